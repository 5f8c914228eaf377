import Foundation
import SDRifyMedia
import SDRifyProbe
import SDRifyValues

/// A gain map from an HDR picture and the SDR picture made of it (the base every JPEG reader shows): per channel,
/// the log2 ratio of their linear light (BT.709 primaries, 1 = SDR white = 203 cd/m²) over `scale`×`scale`
/// blocks, as a viewer rebuilds it. The SDR side is the base's own R'G'B' values, linearised as a viewer reads the
/// JPEG (sRGB); the HDR side through the render's own transfer, clipped into BT.709's gamut (a gain cannot make a
/// negative channel).
package struct GainMapImage {
    package let width: Int, height: Int
    package private(set) var rgb: [UInt8]  // packed R, G, B: the stored values, 0…255
    package let metadata: GainMapMetadata

    /// Blocks of this many pixels a side share one gain (the map is a quarter of the picture's pixels).
    package static let scale = 2

    /// `hdr`: 10-bit 4:2:0 BT.2020 of `kind`; `sdrRGB`: the base's packed 8-bit R'G'B', the same size.
    package init(hdr: Frame, kind: HDRKind, sdrRGB: [UInt8]) throws {
        let (w, h) = (hdr.width, hdr.height)
        guard sdrRGB.count == w * h * 3, kind != .sdr else { preconditionFailure("a gain map needs an HDR picture and its SDR, one size") }
        let linear = ColorDescription(primaries: .bt709, transfer: .linear, matrix: .rgb, range: .full)
        func light(_ frame: Frame, _ format: PlanarFormat, _ color: ColorDescription) throws -> [[Float]] {
            let graph = try ZimgGraph(
                from: ZimgFormat(width: w, height: h, format: format, color: color),
                to: ZimgFormat(width: w, height: h, rgb: linear), dither: .none, nominalPeakLuminance: ToneCurve.referenceWhite)
            // zimg's rows: 64-byte aligned, as the colour stage's.
            let stride = (w * MemoryLayout<Float>.size + 63) & ~63
            let planes = (0..<3).map { _ in UnsafeMutableRawPointer.allocate(byteCount: stride * h, alignment: 64) }
            defer { planes.forEach { $0.deallocate() } }
            try graph.process(src: frame.planes(3).map { (UnsafeRawPointer($0.0), $0.1) }, dst: planes.map { ($0, stride) })
            return planes.map { p in
                (0..<h).flatMap { y in UnsafeBufferPointer(start: (p + y * stride).assumingMemoryBound(to: Float.self), count: w) }
            }
        }
        // The base as a viewer decodes it: sRGB.
        let srgb = (0..<256).map { v -> Float in
            let s = Double(v) / 255
            return Float(s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4))
        }
        let base = (0..<3).map { c in (0..<(w * h)).map { srgb[Int(sdrRGB[$0 * 3 + c])] } }
        let full = try light(hdr, .output(kind), .output(kind))

        let s = GainMapImage.scale
        let (gw, gh) = ((w + s - 1) / s, (h + s - 1) / s)
        let offset = 1.0 / 64
        var logs = [[Double]](repeating: [Double](repeating: 0, count: gw * gh), count: 3)
        for c in 0..<3 {
            for by in 0..<gh {
                for bx in 0..<gw {
                    var a = 0.0, b = 0.0, n = 0.0
                    for y in (by * s)..<min(by * s + s, h) {
                        for x in (bx * s)..<min(bx * s + s, w) {
                            a += Double(max(full[c][y * w + x], 0)); b += Double(max(base[c][y * w + x], 0)); n += 1
                        }
                    }
                    logs[c][by * gw + bx] = log2((a / n + offset) / (b / n + offset))
                }
            }
        }
        // The range the map spans, per channel; never empty (an SDR-like picture still gets a valid map).
        let lows = logs.map { $0.min() ?? 0 }, highs = zip(logs, lows).map { max($0.max() ?? 0, $1 + 1.0 / 64) }
        let metadata = GainMapMetadata(gainMapMin: lows, gainMapMax: highs, hdrCapacityMin: 0, hdrCapacityMax: max(highs.max() ?? 0, 1.0 / 64))
        var rgb = [UInt8](repeating: 0, count: gw * gh * 3)
        for i in 0..<(gw * gh) {
            for c in 0..<3 { rgb[i * 3 + c] = UInt8((metadata.encode(log2Gain: logs[c][i], channel: c) * 255).rounded()) }
        }
        (width, height, self.rgb, self.metadata) = (gw, gh, rgb, metadata)
    }

    /// Where the base differs from the SDR picture the map was made against (`made`; labels drawn on the base
    /// afterwards), the blocks keep the base as it is on every screen: gain 1. Both packed R'G'B' of `pictureWidth`.
    package mutating func keepBase(_ base: [UInt8], differingFrom made: [UInt8], pictureWidth w: Int) {
        precondition(base.count == made.count)
        let s = GainMapImage.scale
        let unity = (0..<3).map { UInt8((metadata.encode(log2Gain: 0, channel: $0) * 255).rounded()) }
        for i in stride(from: 0, to: base.count, by: 3) where base[i] != made[i] || base[i + 1] != made[i + 1] || base[i + 2] != made[i + 2] {
            let (x, y) = ((i / 3) % w / s, (i / 3) / w / s)
            for c in 0..<3 { rgb[(y * width + x) * 3 + c] = unity[c] }
        }
    }
}
