import Foundation

/// An sRGB colour given as #RRGGBB.
package struct RGBColor: Hashable, Sendable {
    package var r: UInt8, g: UInt8, b: UInt8

    package init(r: UInt8, g: UInt8, b: UInt8) { self.r = r; self.g = g; self.b = b }

    package static let black = RGBColor(r: 0, g: 0, b: 0)

    package init?(hex text: String) {
        var t = Substring(text)
        if t.hasPrefix("#") { t = t.dropFirst() }
        guard t.count == 6, t.allSatisfy(\.isHexDigit), let v = UInt32(t, radix: 16) else { return nil }
        self.init(r: UInt8(v >> 16), g: UInt8((v >> 8) & 0xFF), b: UInt8(v & 0xFF))
    }

    package var hex: String { String(format: "#%02X%02X%02X", r, g, b) }

    /// The colour as 8-bit BT.709 limited-range Y'CbCr (the output's coding).
    package var ycbcr709: (y: UInt8, cb: UInt8, cr: UInt8) {
        let (R, G, B) = (Double(r) / 255, Double(g) / 255, Double(b) / 255)
        let y = 0.2126 * R + 0.7152 * G + 0.0722 * B
        func code(_ v: Double) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
        return (code(16 + 219 * y), code(128 + 224 * (B - y) / 1.8556), code(128 + 224 * (R - y) / 1.5748))
    }
}
