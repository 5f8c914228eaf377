import Foundation

/// How sdrify renders HDR scenes exposed brighter than BT.2408 (cameras in bright light): SDR photographs and a
/// chart (six greys of a colour checker's neutral row, six of its colours) lifted to PQ and HLG with their white
/// placed at 203, 400, 600 and 1000 cd/m², plain and with small speculars and a light source added, converted by
/// sdrify and compared with the photo itself relative to its own white (one exposure factor is free): the greys'
/// L* error, the chart's mean ΔE00, the exposure sdrify chose, the smallest step between neighbouring greys.
/// The lifting is scripts/make-roundtrip-vectors.py's (SDRDisplay's light, BT.709 → BT.2020, the PQ inverse
/// EOTF or HLG's inverse OOTF at 1000 cd/m²), with the white where the camera put it instead of at 203.
/// ExposureTests asserts on it; `sdrify-bench exposure` prints the table BENCHMARKS.md keeps.
package enum ExposureChart {
    package static let width = 768, height = 432
    /// 8-bit sRGB-coded values of a colour checker's neutral row (white … black) and six of its colours.
    package static let greys: [UInt8] = [243, 200, 160, 122, 85, 52]
    package static let colours: [(UInt8, UInt8, UInt8)] = [
        (115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177), (103, 189, 170)
    ]
    /// The photos (testvectors/photos, 288x192 each) in a 2x2 grid at the top left.
    package static let photos = ["astronaut", "coffee", "chelsea", "rocket"]
    /// `photos` as RGB, 288x192 each (this scene's grid and BrightShareScene's).
    package static func decodedPhotos(ffmpeg: String, directory: String) throws -> [[UInt8]] {
        try photos.map { try decode(ffmpeg, "\(directory)/\($0).png", width: 288, height: 192) }
    }
    package static let placements: [Double] = [203, 400, 600, 1000]
    static let cell = (w: 96, h: 64)  // two columns of six cells right of the photos: greys, then colours

    package enum Transfer: String, Sendable, CaseIterable { case hlg, pq }

    /// One placement's measures.
    package struct Row: Sendable {
        package var transfer: Transfer
        package var white: Double  // cd/m² of the SDR white in the lifted scene
        package var highlights: Bool
        package var greyErrors: [Double]  // L* relative to white, output − scene, white … black
        package var meanDE: Double  // over the twelve cells, relative to each one's white
        package var smallestStep: Double  // L* between neighbouring greys in the output
        package var exposure: String, whiteFound: String, peak: String  // as sdrify's --json gives them
        package var maxGreyError: Double { greyErrors.map(abs).max() ?? 0 }

        package var markdown: String {
            let errors = greyErrors.map { String(format: "%+.1f", $0) }.joined(separator: " ")
            return String(
                format: "| %@ | %.0f | %@ | %@ | %.1f | %.1f | %@ | %@ / %@ | %.1f |", transfer.rawValue.uppercased(), white,
                highlights ? "yes" : "no", errors, maxGreyError, meanDE, exposure, whiteFound, peak, smallestStep)
        }
        package static let header = """
            | transfer | white (cd/m²) | highlights | grey L* error per patch (white … black) | max | mean ΔE00 | exposure (stops) | white / peak found (cd/m²) | smallest grey step (L*) |
            |---|---|---|---|---|---|---|---|---|
            """
    }

    struct Cell { let grey: Bool; let x: Int, y: Int; let rgb: (UInt8, UInt8, UInt8) }
    static var cells: [Cell] {
        greys.enumerated().map { Cell(grey: true, x: 576, y: $0.offset * cell.h, rgb: ($0.element, $0.element, $0.element)) }
            + colours.enumerated().map { Cell(grey: false, x: 672, y: $0.offset * cell.h, rgb: $0.element) }
    }

    /// The SDR scene, rgb24: mid-grey, the photos (rgb24, 288x192 each, in `photos` order) and the chart.
    package static func scene(photos pictures: [[UInt8]]) -> [UInt8] {
        var rgb = [UInt8](repeating: 128, count: width * height * 3)
        for (i, photo) in pictures.enumerated() {
            let x0 = (i % 2) * 288, y0 = (i / 2) * 192
            for y in 0..<192 {
                for x in 0..<(288 * 3) { rgb[((y0 + y) * width + x0) * 3 + x] = photo[y * 288 * 3 + x] }
            }
        }
        for c in cells {
            for y in c.y..<(c.y + cell.h) {
                for x in c.x..<(c.x + cell.w) {
                    let i = (y * width + x) * 3
                    rgb[i] = c.rgb.0; rgb[i + 1] = c.rgb.1; rgb[i + 2] = c.rgb.2
                }
            }
        }
        return rgb
    }

    /// The scene as `transfer`'s signal (planar G, B, R floats: ffmpeg's gbrpf32le), its white at `white` cd/m²;
    /// with `highlights`, five 4x4 speculars (glints on the photos) and a 40x32 light source (a lamp) added.
    package static func lifted(_ sdr: [UInt8], white: Double, transfer: Transfer, highlights: Bool) -> [Float] {
        var light = (0..<(width * height)).map { i -> SIMD3<Double> in bt709To2020(displayLight(sdr, pixel: i) * white) }
        if highlights {
            func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int, _ cd: Double) {
                for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { light[y * width + x] = SIMD3(repeating: cd) } }
            }
            for (x, y) in [(60, 40), (350, 90), (150, 250), (470, 300), (520, 60)] { fill(x, y, 4, 4, transfer == .hlg ? 1000 : 4000) }
            fill(20, 396, 40, 32, transfer == .hlg ? 1000 : 10000)
        }
        var planes = [Float](repeating: 0, count: width * height * 3)
        for (i, c) in light.enumerated() {
            let s = transfer == .pq ? SIMD3(pq(c.x), pq(c.y), pq(c.z)) : hlg(c)
            planes[i] = Float(s.y)  // G
            planes[width * height + i] = Float(s.z)  // B
            planes[2 * width * height + i] = Float(s.x)  // R
        }
        return planes
    }

    /// The measures of sdrify's output (rgb24, full range, the chart's size).
    package static func score(output rgb: [UInt8]) -> (greyErrors: [Double], meanDE: Double, smallestStep: Double) {
        func mean(_ c: Cell, _ image: (Int, Int) -> SIMD3<Double>) -> SIMD3<Double> {
            var sum = SIMD3<Double>(repeating: 0), n = 0.0
            for y in (c.y + 16)..<(c.y + cell.h - 16) { for x in (c.x + 16)..<(c.x + cell.w - 16) { sum += image(x, y); n += 1 } }
            return sum / n
        }
        let cells = self.cells
        let got = cells.map { c in
            mean(c) { x, y in
                let i = (y * width + x) * 3
                return SIMD3(Double(rgb[i]), Double(rgb[i + 1]), Double(rgb[i + 2]))
            }
        }.map { SIMD3(display($0.x), display($0.y), display($0.z)) }
        let sourceWhite = display(Double(greys[0])), outputWhite = got[0].y
        var errors: [Double] = [], lstar: [Double] = [], deltas: [Double] = []
        for (c, out) in zip(cells, got) {
            let want = ColorScience.lab(SIMD3(display(c.rgb.0), display(c.rgb.1), display(c.rgb.2)) / sourceWhite)
            let have = ColorScience.lab(out / outputWhite)
            deltas.append(ColorScience.ciede2000(want, have))
            if c.grey { errors.append(have.x - want.x); lstar.append(have.x) }
        }
        let steps = zip(lstar.dropFirst(), lstar).map { $1 - $0 }
        return (errors, deltas.reduce(0, +) / Double(deltas.count), steps.min() ?? 0)
    }

    /// Every placement, one row each as it is measured: the scene lifted and encoded losslessly (x265, by the
    /// ffmpeg CLI), converted by `sdrify`, its first picture decoded and scored. `work` holds the files.
    package static func measure(sdrify: String, ffmpeg: String, photosDirectory: String, work: URL, row: (Row) throws -> Void) throws {
        let sdr = scene(photos: try decodedPhotos(ffmpeg: ffmpeg, directory: photosDirectory))
        let raw = work.appendingPathComponent("scene.gbrpf32").path, source = work.appendingPathComponent("in.mp4").path
        let output = work.appendingPathComponent("out.mp4").path
        for transfer in Transfer.allCases {
            for white in placements {
                for highlights in [false, true] {
                    let planes = lifted(sdr, white: white, transfer: transfer, highlights: highlights)
                    try encodeLossless(ffmpeg, planes: planes, width: width, height: height, transfer: transfer, raw: raw, to: source)
                    let report = try run(sdrify, [source, output, "--overwrite", "--json", "--preset", "1920x1080"])
                    let json = try JSONSerialization.jsonObject(with: report) as? [String: Any]
                    let tone = json?["tone_mapping"] as? [String: Any] ?? [:]
                    func range(_ key: String) -> String {
                        (tone[key] as? [Any]).map { "[" + $0.map { "\($0)" }.joined(separator: ", ") + "]" } ?? "–"
                    }
                    let measured = score(output: try decode(ffmpeg, output, width: width, height: height))
                    try row(
                        Row(
                            transfer: transfer, white: white, highlights: highlights, greyErrors: measured.greyErrors,
                            meanDE: measured.meanDE, smallestStep: measured.smallestStep, exposure: range("exposure_stops"),
                            whiteFound: range("white_cd_m2"), peak: range("peak_cd_m2")))
                }
            }
        }
    }

    /// Planar G, B, R signal floats (gbrpf32le) written to `raw`, then three pictures of them encoded losslessly as
    /// 10-bit 4:2:0 BT.2020 HEVC of `transfer` (zimg through the ffmpeg CLI, x265) into `source`. Lossless decodes to
    /// the same pictures at any x265 preset: ultrafast takes a third of the time of the default.
    static func encodeLossless(
        _ ffmpeg: String, planes: [Float], width: Int, height: Int, transfer: Transfer, raw: String, to source: String
    ) throws {
        try planes.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: raw)) }
        let trc = transfer == .pq ? "smpte2084" : "arib-std-b67"
        try run(
            ffmpeg,
            [
                "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gbrpf32le", "-s", "\(width)x\(height)", "-r", "24",
                "-stream_loop", "2", "-i", raw, "-vf",
                "zscale=min=gbr:m=2020_ncl:rin=full:r=limited:tin=\(trc):t=\(trc):pin=2020:p=2020:chromal=left,format=yuv420p10le",
                "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "lossless=1:log-level=error:pools=1:frame-threads=1",
                "-tag:v", "hvc1",
                "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv", source
            ])
    }

    // MARK: colour and transfer arithmetic (the lifting's)

    /// SDRDisplay light of an 8-bit code, or of a mean of codes (relative, 1 = white).
    static func display(_ code: UInt8) -> Double { ColorScience.codeLight[Int(code)] }
    static func display(_ code: Double) -> Double { ColorScience.gamma(code / 255) }
    /// The same of pixel `i` of an rgb24 picture.
    static func displayLight(_ rgb: [UInt8], pixel i: Int) -> SIMD3<Double> {
        ColorScience.displayLight(r: rgb[i * 3], g: rgb[i * 3 + 1], b: rgb[i * 3 + 2])
    }

    static func bt709To2020(_ c: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(
            0.6274039 * c.x + 0.3292830 * c.y + 0.0433131 * c.z,
            0.0690973 * c.x + 0.9195404 * c.y + 0.0113623 * c.z,
            0.0163914 * c.x + 0.0880133 * c.y + 0.8955953 * c.z)
    }

    /// The PQ inverse EOTF of cd/m².
    static func pq(_ cd: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(cd, 0), 10000) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2020 display light (cd/m²) → HLG signal: the inverse OOTF at 1000 cd/m² (gamma 1.2), then the OETF.
    static func hlg(_ cd: SIMD3<Double>) -> SIMD3<Double> {
        let f = cd / 1000
        let yd = max(0.2627 * f.x + 0.6780 * f.y + 0.0593 * f.z, 1e-12)
        let scene = f * pow(yd, (1 - 1.2) / 1.2)
        func oetf(_ e: Double) -> Double {
            let a = 0.17883277, b = 0.28466892, c = 0.55991073, v = min(max(e, 0), 1)
            return v <= 1.0 / 12 ? (3 * v).squareRoot() : a * log(max(12 * v - b, 1e-12)) + c
        }
        return SIMD3(oetf(scene.x), oetf(scene.y), oetf(scene.z))
    }

    // MARK: processes

    static func decode(_ ffmpeg: String, _ path: String, width: Int, height: Int) throws -> [UInt8] {
        let data = try run(ffmpeg, ["-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard data.count == width * height * 3 else { throw MeasureError("\(path): \(data.count) bytes, expected a \(width)x\(height) picture") }
        return [UInt8](data)
    }

    @discardableResult
    static func run(_ executable: String, _ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw MeasureError("\(executable) \(args.joined(separator: " ")): exit \(p.terminationStatus)") }
        return data
    }
}

package struct MeasureError: Error, CustomStringConvertible {
    package let description: String
    init(_ d: String) { description = d }
}
