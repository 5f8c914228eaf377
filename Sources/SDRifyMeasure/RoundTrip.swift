import Foundation
import SDRifyValues

/// The round-trip measurement of issue "tone mapping": an SDR picture lifted into HDR (BT.2408) and brought
/// back by a tone mapper is compared with the original in BT.709 display light, over 4×4-pixel blocks, in
/// CIEDE2000; plus the neutral ramp and the saturated patches of the HDR-only area.
package struct RoundTripLayout: Decodable, Sendable {
    package struct Rect: Decodable, Sendable { package let x, y, w, h: Int }
    package struct Photo: Decodable, Sendable { package let name: String; package let x, y, w, h: Int }
    package struct Patch: Decodable, Sendable {
        package let name: String
        package let x, y, w, h: Int
        package let bt2020_cd: [String: [Double]]
    }
    package struct Ramp: Decodable, Sendable { package let x, y, w, h: Int; package let pq_end: Double }
    package let width, height: Int
    package let photos: [Photo]
    package let patches: [Patch]
    package let ramp: Ramp

    package static func load(_ path: String) throws -> RoundTripLayout {
        try JSONDecoder().decode(RoundTripLayout.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

package struct RoundTripScore: Sendable {
    package var meanDE: Double  // photographic areas, CIEDE2000 over 4×4 blocks
    package var p95DE: Double
    package var rampMonotonic: Bool  // column means never fall more than one code below the running maximum
    package var rampMaxSpread: Double  // largest R/G/B disagreement of a ramp column, in 8-bit codes
    package var rampLevelsAbove200: Int  // distinct 8-bit luma levels where the source is above 200 cd/m²
    package var patchHueError: [String: Double]  // degrees of Oklab hue off the source colour's
    package var patchInvalidPixels: Int  // black, NaN-like or wildly off pixels inside patches

    package var summary: String {
        String(
            format: "mean ΔE00 %.2f, p95 %.2f, ramp %@ spread %.1f codes, %d levels above 200 cd/m², patch hue error max %.1f°",
            meanDE, p95DE, rampMonotonic ? "monotonic," : "NOT monotonic,", rampMaxSpread, rampLevelsAbove200,
            patchHueError.values.max() ?? 0)
    }
}

package enum RoundTrip {
    /// The photographic areas' difference: 4×4 block means in display light, then CIEDE2000; mean and 95th
    /// percentile. `yuv` is 8-bit 4:2:0 BT.709, `reference` 8-bit R'G'B', both of the layout's size.
    package static func photoDifference(yuv: [UInt8], reference: [UInt8], layout: RoundTripLayout) -> (mean: Double, p95: Double) {
        let pictures = Compared(yuv: yuv, reference: reference, layout: layout)
        var des: [Double] = []
        for p in layout.photos {
            for by in stride(from: p.y, to: p.y + p.h - 3, by: 4) {
                for bx in stride(from: p.x, to: p.x + p.w - 3, by: 4) {
                    var a = ColorScience.RGB(repeating: 0), b = ColorScience.RGB(repeating: 0)
                    for y in by..<by + 4 { for x in bx..<bx + 4 { a += pictures.out(x, y); b += pictures.ref(x, y) } }
                    des.append(ColorScience.ciede2000(ColorScience.lab(a / 16), ColorScience.lab(b / 16)))
                }
            }
        }
        des.sort()
        return (des.reduce(0, +) / Double(des.count), des[min(des.count - 1, Int(Double(des.count) * 0.95))])
    }

    /// The output (8-bit 4:2:0 BT.709) and the reference (packed 8-bit R'G'B') of one layout, in display light.
    struct Compared {
        let yuv: [UInt8], reference: [UInt8]
        let width: Int, ySize: Int, cSize: Int

        init(yuv: [UInt8], reference: [UInt8], layout: RoundTripLayout) {
            let (w, h) = (layout.width, layout.height)
            (self.yuv, self.reference, width, ySize, cSize) = (yuv, reference, w, w * h, (w / 2) * (h / 2))
            precondition(yuv.count >= ySize + 2 * cSize && reference.count >= w * h * 3)
        }

        func out(_ x: Int, _ y: Int) -> ColorScience.RGB {
            let c = (y / 2) * (width / 2) + x / 2
            return ColorScience.displayLight(y: yuv[y * width + x], cb: yuv[ySize + c], cr: yuv[ySize + cSize + c])
        }

        func ref(_ x: Int, _ y: Int) -> ColorScience.RGB {
            let i = (y * width + x) * 3
            return ColorScience.displayLight(r: reference[i], g: reference[i + 1], b: reference[i + 2])
        }
    }

    /// `yuv` is one 8-bit 4:2:0 frame (Y plane then Cb then Cr, no padding); `reference` is the SDR picture as
    /// packed 8-bit R'G'B'. `kind` is "pq" or "hlg" (which patch values the HDR file held).
    package static func score(yuv: [UInt8], reference: [UInt8], layout: RoundTripLayout, kind: String) -> RoundTripScore {
        let W = layout.width
        let pictures = Compared(yuv: yuv, reference: reference, layout: layout)
        func out(_ x: Int, _ y: Int) -> ColorScience.RGB { pictures.out(x, y) }
        func ref(_ x: Int, _ y: Int) -> ColorScience.RGB { pictures.ref(x, y) }

        let (mean, p95) = photoDifference(yuv: yuv, reference: reference, layout: layout)

        // Ramp: per-column means of 8-bit R'G'B' codes (rows away from the edges).
        let r = layout.ramp
        var monotonic = true, spread = 0.0, previous = -1.0
        var levels = Set<Int>()
        for x in r.x..<r.x + r.w {
            var sum = ColorScience.RGB(repeating: 0), n = 0.0, lumaSum = 0.0
            for y in r.y + 4..<r.y + r.h - 4 {
                let lin = out(x, y)
                sum += ColorScience.RGB(SDRDisplay.signal(lin.x), SDRDisplay.signal(lin.y), SDRDisplay.signal(lin.z)) * 255
                lumaSum += Double(yuv[y * W + x]); n += 1
            }
            let c = sum / n, luma = lumaSum / n
            spread = max(spread, max(c.x, c.y, c.z) - min(c.x, c.y, c.z))
            if luma < previous - 1.0 { monotonic = false }  // 8-bit quantisation + encoder noise is under a code
            previous = max(previous, luma)
            let sourcePQ = Double(x - r.x) / Double(r.w - 1) * r.pq_end
            if pqToCd(sourcePQ) > 200 { levels.insert(Int(luma.rounded())) }
        }

        // Patches: the mean colour's hue against the source colour's, both in Oklab.
        var hueErrors: [String: Double] = [:]
        var invalid = 0
        for p in layout.patches {
            var sum = ColorScience.RGB(repeating: 0), n = 0.0
            var pixels: [ColorScience.RGB] = []
            for y in p.y + 4..<p.y + p.h - 4 { for x in p.x + 4..<p.x + p.w - 4 { let c = out(x, y); pixels.append(c); sum += c; n += 1 } }
            let mean = sum / n
            for c in pixels where !(c.x.isFinite && c.y.isFinite && c.z.isFinite) || (c - mean).max() > 0.1 || (mean - c).max() > 0.1 {
                invalid += 1
            }
            let src = p.bt2020_cd[kind] ?? p.bt2020_cd["pq"]!
            let s709 = bt2020To709(ColorScience.RGB(src[0], src[1], src[2]))
            // Oklab's hue does not depend on the level, and its hue lines are straight (CIELAB's bend for blue).
            let dh = abs(ColorScience.hue(ColorScience.oklab(mean)) - ColorScience.hue(ColorScience.oklab(s709)))
            hueErrors[p.name] = min(dh, 360 - dh)
        }
        return RoundTripScore(
            meanDE: mean, p95DE: p95, rampMonotonic: monotonic, rampMaxSpread: spread,
            rampLevelsAbove200: levels.count, patchHueError: hueErrors, patchInvalidPixels: invalid)
    }

    static func bt2020To709(_ c: ColorScience.RGB) -> ColorScience.RGB {
        ColorScience.RGB(
            1.6604910 * c.x - 0.5876411 * c.y - 0.0728499 * c.z,
            -0.1245505 * c.x + 1.1328999 * c.y - 0.0083494 * c.z,
            -0.0181508 * c.x - 0.1005789 * c.y + 1.1187297 * c.z)
    }

    static func pqToCd(_ e: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(e, 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }
}
