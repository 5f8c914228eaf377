import Foundation
import SDRifyValues

/// How generated text looks (titles, SRT/WebVTT/TTML/SCC captions): one ASS style.
package struct TextLook: Equatable, Sendable {
    package var size: Length  // of the picture's short edge, or pixels
    package var color = RGBColor(r: 255, g: 255, b: 255)
    package var outline: Double? = nil  // pixels; default a sixteenth of the size
    package var outlineColor: RGBColor
    package var boxColor: RGBColor? = nil  // an opaque box behind the text instead of the outline
    package var font = "DejaVu Sans"

    package init(size: Length, outlineColor: RGBColor) { self.size = size; self.outlineColor = outlineColor }

    /// The text height in pixels of a `width`×`height` picture.
    package func pixels(width: Int, height: Int) -> Double { max(1, size.resolve(against: min(width, height))) }
    package func outlinePixels(width: Int, height: Int) -> Double { outline ?? max(1, pixels(width: width, height: height) / 16) }

    /// The style line (after "Style: ") `name`, at ASS numpad `alignment`, `margin` pixels from the edges.
    package func assStyle(name: String, alignment: Int, margin: Int, width: Int, height: Int) -> String {
        let back = ASSScript.color(boxColor ?? outlineColor)
        return "\(name),\(font.replacingOccurrences(of: ",", with: " ")),\(String(format: "%.1f", pixels(width: width, height: height))),"
            + "\(ASSScript.color(color)),\(ASSScript.color(color)),\(back),\(back),0,0,0,0,100,100,0,0,\(boxColor == nil ? 1 : 3),"
            + "\(String(format: "%.1f", outlinePixels(width: width, height: height))),0,\(alignment),\(margin),\(margin),\(margin),1"
    }
}

/// A length in output pixels of the upright frame, or a percentage of the frame's width or height.
package enum Length: Equatable, Sendable {
    case pixels(Double)
    case percent(Double)

    /// "12" (pixels) or "5%".
    package init?(parsing s: String) {
        let t = s.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("%"), let p = Double(t.dropLast()), p.isFinite { self = .percent(p); return }
        if let p = Double(t), p.isFinite { self = .pixels(p); return }
        return nil
    }

    package func resolve(against total: Int) -> Double {
        switch self {
        case .pixels(let p): p
        case .percent(let q): q / 100 * Double(total)
        }
    }
}
