import Foundation

/// Graded HDR with a share of the frame brighter than its white (issue 55): the test photographs placed at ITU-R
/// BT.2408 reference white (203 cd/m²) in a 2x2 grid, the top `share` of the frame replaced by what graded HDR
/// puts above it: a grey ramp from 203 to 1000 cd/m² (even steps in stops), saturated BT.2020 red, green, blue and
/// yellow at 600 cd/m² and, above 7 %, a window (the photo under it lit at 4×). A graded picture's SDR-range part
/// must come back as it went in, whatever share is brighter; the saturated patches must stay saturated.
/// scripts/roundtrip_scenes.py is the same measure at a larger size with the tuning and checking photos apart;
/// this one is what BrightShareTests asserts on.
package enum BrightShareScene {
    package static let width = 576, height = 384
    package static let shares: [Double] = [0, 3, 7, 15, 30, 50]
    static let margin = 8  // rows between the bright band and the photos scored (chroma siting, local contrast)
    static let patches: [(String, SIMD3<Double>)] = [
        ("red", SIMD3(1, 0.05, 0.05)), ("green", SIMD3(0.05, 1, 0.05)), ("blue", SIMD3(0.02, 0.05, 1)), ("yellow", SIMD3(1, 1, 0.05))
    ]

    package struct Score: Sendable {
        package var meanDE: Double  // photos, 4x4 blocks, CIEDE2000
        package var deltaL: Double  // mean L* output − reference over the photos
        package var exposure: String  // as sdrify's --json gives it
        /// Each patch's output colour (8-bit R'G'B', the patch's middle) by name.
        package var patchColours: [String: SIMD3<Double>]
        /// Each patch's CIELAB chroma over that of its colour as BT.709 can show it at full strength (brought
        /// inside toward grey at equal luminance, then scaled until its strongest channel is SDR white), and its
        /// hue's difference from the source colour's (degrees, in Oklab: CIELAB's own hue of blue bends with
        /// lightness).
        package var patchChroma: [String: Double]
        package var patchHueError: [String: Double]
    }

    static func bandRows(_ share: Double) -> Int { Int((Double(height) * share / 100).rounded()) / 2 * 2 }

    /// The scene's display light in BT.2020 cd/m² and its SDR reference (rgb24, the band grey).
    static func scene(photos pictures: [[UInt8]], share: Double) -> (light: [SIMD3<Double>], reference: [UInt8]) {
        var rgb = [UInt8](repeating: 128, count: width * height * 3)
        for (i, photo) in pictures.prefix(4).enumerated() {
            let x0 = (i % 2) * 288, y0 = (i / 2) * 192
            for y in 0..<192 { for x in 0..<(288 * 3) { rgb[((y0 + y) * width + x0) * 3 + x] = photo[y * 288 * 3 + x] } }
        }
        var light = (0..<(width * height)).map { i in ExposureChart.bt709To2020(ExposureChart.displayLight(rgb, pixel: i) * 203) }
        let rows = bandRows(share)
        if rows > 0 {
            let windowWidth = share <= 7 ? 0 : width / 2, rest = width - windowWidth, rampWidth = rest / 2
            let patchWidth = (rest - rampWidth) / patches.count
            for y in 0..<rows {
                for x in 0..<width {
                    let i = y * width + x
                    if x < rampWidth {
                        light[i] = SIMD3(repeating: 203 * pow(1000.0 / 203, Double(x) / Double(max(rampWidth - 1, 1))))
                    } else if x < rest {
                        let d = patches[min((x - rampWidth) / patchWidth, patches.count - 1)].1
                        light[i] = d * 600 / (0.2627 * d.x + 0.6780 * d.y + 0.0593 * d.z)
                    } else {
                        light[i] *= 4
                    }
                }
            }
        }
        return (light, rgb)
    }

    /// The scene as `transfer`'s signal, planar G, B, R floats (ffmpeg's gbrpf32le).
    static func signal(_ light: [SIMD3<Double>], transfer: ExposureChart.Transfer) -> [Float] {
        var planes = [Float](repeating: 0, count: width * height * 3)
        for (i, c) in light.enumerated() {
            let s = transfer == .pq ? SIMD3(ExposureChart.pq(c.x), ExposureChart.pq(c.y), ExposureChart.pq(c.z)) : ExposureChart.hlg(c)
            planes[i] = Float(s.y)
            planes[width * height + i] = Float(s.z)
            planes[2 * width * height + i] = Float(s.x)
        }
        return planes
    }

    /// One scene lifted, encoded losslessly (x265 through the ffmpeg CLI), converted by `sdrify` and scored.
    /// `pictures` is `ExposureChart.decodedPhotos(ffmpeg:directory:)`, decoded once for every share and transfer measured.
    package static func measure(
        sdrify: String, ffmpeg: String, pictures: [[UInt8]], work: URL, share: Double, transfer: ExposureChart.Transfer
    ) throws -> Score {
        let (light, reference) = scene(photos: pictures, share: share)
        let raw = work.appendingPathComponent("bright.gbrpf32").path, source = work.appendingPathComponent("bright.mp4").path
        let output = work.appendingPathComponent("bright.sdr.mp4").path
        try ExposureChart.encodeLossless(
            ffmpeg, planes: signal(light, transfer: transfer), width: width, height: height, transfer: transfer, raw: raw, to: source)
        let report = try ExposureChart.run(sdrify, [source, output, "--overwrite", "--json", "--crf", "10"])
        let tone = (try JSONSerialization.jsonObject(with: report) as? [String: Any])?["tone_mapping"] as? [String: Any] ?? [:]
        let exposure = (tone["exposure_stops"] as? [Any]).map { "[" + $0.map { "\($0)" }.joined(separator: ", ") + "]" } ?? "–"
        let out = try ExposureChart.decode(ffmpeg, output, width: width, height: height)
        return score(output: out, reference: reference, share: share, exposure: exposure)
    }

    static func score(output out: [UInt8], reference: [UInt8], share: Double, exposure: String) -> Score {
        let rows = bandRows(share)
        func light(_ p: [UInt8], _ x: Int, _ y: Int) -> SIMD3<Double> {
            let i = (y * width + x) * 3
            return ColorScience.displayLight(r: p[i], g: p[i + 1], b: p[i + 2])
        }
        var des: [Double] = [], dl = 0.0
        let top = rows == 0 ? 0 : (rows + margin + 3) / 4 * 4
        for by in stride(from: top, to: height - 3, by: 4) {
            for bx in stride(from: 0, to: width - 3, by: 4) {
                var a = SIMD3<Double>(repeating: 0), b = a
                for y in by..<by + 4 { for x in bx..<bx + 4 { a += light(out, x, y); b += light(reference, x, y) } }
                let la = ColorScience.lab(a / 16), lb = ColorScience.lab(b / 16)
                des.append(ColorScience.ciede2000(la, lb))
                dl += la.x - lb.x
            }
        }
        var colours: [String: SIMD3<Double>] = [:], chroma: [String: Double] = [:], hueError: [String: Double] = [:]
        if rows > 0 {
            let rest = width - (share <= 7 ? 0 : width / 2), rampWidth = rest / 2
            let patchWidth = (rest - rampWidth) / patches.count
            for (k, (name, _)) in patches.enumerated() {
                let x = rampWidth + k * patchWidth + patchWidth / 2, i = (rows / 2 * width + x) * 3
                colours[name] = SIMD3(Double(out[i]), Double(out[i + 1]), Double(out[i + 2]))
                let got = ColorScience.lab(ColorScience.displayLight(r: out[i], g: out[i + 1], b: out[i + 2]))
                let want = ColorScience.lab(fullStrength(patches[k].1))
                chroma[name] = (got.y * got.y + got.z * got.z).squareRoot() / (want.y * want.y + want.z * want.z).squareRoot()
                let light = ColorScience.displayLight(r: out[i], g: out[i + 1], b: out[i + 2])
                let dh = abs(ColorScience.hue(ColorScience.oklab(light)) - ColorScience.hue(ColorScience.oklab(in709(patches[k].1))))
                hueError[name] = min(dh, 360 - dh)
            }
        }
        return Score(
            meanDE: des.reduce(0, +) / Double(max(des.count, 1)), deltaL: dl / Double(max(des.count, 1)), exposure: exposure,
            patchColours: colours, patchChroma: chroma, patchHueError: hueError)
    }

    /// A BT.2020 colour in BT.709's primaries, negative channels and all (linear).
    static func in709(_ d: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(
            1.6604910 * d.x - 0.5876411 * d.y - 0.0728499 * d.z, -0.1245505 * d.x + 1.1328999 * d.y - 0.0083494 * d.z,
            -0.0181508 * d.x - 0.1005789 * d.y + 1.1187297 * d.z)
    }

    /// A BT.2020 direction as BT.709 shows it at full strength (linear, 1 = SDR white).
    static func fullStrength(_ d: SIMD3<Double>) -> SIMD3<Double> {
        let c = in709(d)
        let y = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z, lo = c.min()
        let inside = lo < 0 ? y + (c - y) * (y / (y - lo)) : c
        return inside / inside.max()
    }
}
