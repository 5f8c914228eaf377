import Foundation
import SDRifyLayers
import SDRifyMeasure
import SDRifyMedia
import SDRifyRender
import SDRifyToneMap
import SDRifyValues

// Micro-benchmarks of sdrify's own stages, run by scripts/bench (release build). Prints one Markdown table row
// per measurement; the whole-conversion comparison with ffmpeg lives in scripts/bench itself.

func medianMilliseconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }
    return times.sorted()[times.count / 2]
}

/// The obvious per-pixel loop: each destination sample computes its source coordinates from the EXIF case.
func naiveRotate90(_ src: Frame, into dst: Frame, format: PlanarFormat) {
    for p in 0..<3 {
        let (w, h) = format.planeSize(p, width: src.width, height: src.height)
        let s = src.data(p), d = dst.data(p)
        let ss = src.stride(p), ds = dst.stride(p)
        for y in 0..<w {  // upright height = coded width
            for x in 0..<h {  // upright width = coded height
                let sx = y, sy = h - 1 - x
                let v = (s + sy * ss).assumingMemoryBound(to: UInt16.self)[sx]
                (d + y * ds).assumingMemoryBound(to: UInt16.self)[x] = v
            }
        }
    }
}

func rotateBenchmark() throws {
    let fmt = PlanarFormat.yuv420p10
    let src = try Frame(width: 1920, height: 1080, format: fmt)
    for p in 0..<3 {
        let (w, h) = fmt.planeSize(p, width: 1920, height: 1080)
        for y in 0..<h { for x in 0..<w { (src.data(p) + y * src.stride(p)).assumingMemoryBound(to: UInt16.self)[x] = UInt16((x ^ y) & 1023) } }
    }
    let orienter = try FrameOrienter(.right, width: 1920, height: 1080, format: fmt)
    let naiveOut = try Frame(width: 1080, height: 1920, format: fmt)
    _ = try orienter.apply(src)
    let tiled = try medianMilliseconds(runs: 31) { _ = try orienter.apply(src) }
    naiveRotate90(src, into: naiveOut, format: fmt)
    let naive = medianMilliseconds(runs: 31) { naiveRotate90(src, into: naiveOut, format: fmt) }
    // Both must agree, or the numbers mean nothing.
    let out = try orienter.apply(src)
    for p in 0..<3 {
        let (w, h) = fmt.planeSize(p, width: 1080, height: 1920)
        for y in 0..<h where memcmp(out.data(p) + y * out.stride(p), naiveOut.data(p) + y * naiveOut.stride(p), w * 2) != 0 {
            fatalError("tiled and naive rotation disagree at plane \(p) row \(y)")
        }
    }
    print(
        String(
            format: "| rotate 90° cw, 1920x1080 10-bit 4:2:0 frame | %.2f ms | %.2f ms (naive per-pixel loop) | %.1fx |",
            tiled, naive, naive / tiled))
}

/// The colour stage alone on one frame: `width`×`height` 10-bit 4:2:0 (raw yuv420p10le file) in BT.2020
/// PQ or HLG → 8-bit 4:2:0 BT.709 SDR at the same size, one thread. Returns megapixels per second of the
/// default (`auto`: each picture measured and followed as a scene) and of a fixed curve (bt2390, no statistics),
/// and the share of the default's time that the statistics alone take (measured on their own, same frame).
func toneMapBenchmark(rawFrame path: String, width w: Int, height h: Int, kind: String) throws -> (auto: Double, fixed: Double, statistics: Double) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let src = try Frame(width: w, height: h, format: .yuv420p10)
    var offset = 0
    for p in 0..<3 {
        let (pw, ph) = PlanarFormat.yuv420p10.planeSize(p, width: w, height: h)
        guard data.count >= offset + pw * ph * 2 else { throw SDRifyError(.invalidInput, "\(path): short raw frame") }
        data.withUnsafeBytes { bytes in
            for y in 0..<ph {
                (src.data(p) + y * src.stride(p)).copyMemory(from: bytes.baseAddress! + offset + y * pw * 2, byteCount: pw * 2)
            }
        }
        offset += pw * ph * 2
    }
    src.color = ColorDescription(
        primaries: .bt2020, transfer: kind == "hlg" ? .aribStdB67 : .smpte2084,
        matrix: .bt2020nc, range: .limited, chromaLocation: .left)
    func run(_ op: ToneMapOperator) throws -> Double {
        let mapper = try ToneMapper(
            sourceFormat: .yuv420p10, sourceColor: src.color, width: w, height: h,
            outputWidth: w, outputHeight: h, curve: ToneCurve(op, sourcePeak: 1000),
            scenes: SceneTracker())
        _ = try mapper.process(src, format: .yuv420p10)
        let ms = try medianMilliseconds(runs: 31) { _ = try mapper.process(src, format: .yuv420p10) }
        return Double(w * h) / 1e6 / (ms / 1000)
    }
    // Alternated, so both see the same machine load.
    var auto: [Double] = [], fixed: [Double] = []
    for _ in 0..<3 { auto.append(try run(.auto)); fixed.append(try run(.bt2390)) }
    let meter = SceneMeter(format: .yuv420p10, color: src.color, width: w, height: h)
    let tracker = SceneTracker()
    let statsMs = medianMilliseconds(runs: 101) { _ = tracker.next(meter.measure(src)) }
    let autoMpx = auto.sorted()[1]
    return (autoMpx, fixed.sorted()[1], statsMs / (Double(w * h) / 1e6 / autoMpx * 1000))
}

/// Raw bytes of one decoded frame, through ffmpeg (no scaling, no colour conversion).
func rawFrame(_ path: String, index: Int, pixelFormat: String) throws -> [UInt8] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    p.arguments = [
        "-v", "error", "-i", path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1",
        "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"
    ]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw SDRifyError(.invalidInput, "ffmpeg could not decode \(path)") }
    return [UInt8](data)
}

/// Scores a tone-mapped output of testvectors/roundtrip_KIND.mp4 against the SDR original.
func roundTripScore(output: String, kind: String, vectors: String) throws {
    let layout = try RoundTripLayout.load("\(vectors)/roundtrip_layout.json")
    let score = RoundTrip.score(
        yuv: try rawFrame(output, index: 1, pixelFormat: "yuv420p"),
        reference: try rawFrame("\(vectors)/roundtrip_reference.png", index: 0, pixelFormat: "rgb24"),
        layout: layout, kind: kind)
    print(
        String(
            format: "%.2f\t%.2f\t%@\t%.1f\t%d\t%.1f", score.meanDE, score.p95DE, score.rampMonotonic ? "yes" : "no",
            score.rampMaxSpread, score.rampLevelsAbove200, score.patchHueError.values.max() ?? 0))
    if ProcessInfo.processInfo.environment["SDRIFY_DEBUG"] != nil { print(score.patchHueError, score.patchInvalidPixels) }
}

/// Each effect's cost per 1920x1080 picture, over the whole picture and over a 480x270 region: one table row each.
func effectsBenchmark() throws {
    let frame = try Frame(width: 1920, height: 1080, format: .yuv420p)
    for p in 0..<3 {
        let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: 1920, height: 1080)
        for y in 0..<h {
            for x in 0..<w { (frame.data(p) + y * frame.stride(p)).assumingMemoryBound(to: UInt8.self)[x] = UInt8(16 + (x * 7 + y * 13) % 200) }
        }
    }
    let kinds: [(EffectKind, [String: Double])] = [
        (.pixelate, ["block": 16]), (.blur, ["radius": 24]), (.vortex, ["angle": 180]),
        (.grayscale, [:]), (.sepia, [:]), (.adjust, ["contrast": 1.2, "saturation": 1.3]),
        (.vignette, [:]), (.pointillize, ["size": 12])
    ]
    for (kind, values) in kinds {
        var ms: [Double] = []
        for region in [nil, Region(x: .pixels(720), y: .pixels(400), width: .pixels(480), height: .pixels(270))] {
            var spec = EffectSpec(kind: kind)
            spec.values = values
            spec.region = region
            var overlays = OverlaySpec()
            overlays.effects = [spec]
            let stage = try OverlayStage(spec: overlays, frameWidth: 1920, frameHeight: 1080)
            ms.append(medianMilliseconds(runs: 15) { stage.apply(to: frame, time: .zero) })
        }
        print(
            String(
                format:
                    "| effect %@ %@, ms per 1920x1080 picture (median of 15): whole picture / 480x270 region | %.2f / %.2f | | region %.1f %% of whole |",
                kind.rawValue, values.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "), ms[0], ms[1], ms[1] / ms[0] * 100))
    }
}

/// What a background costs behind a portrait 608x1080 picture contained in a 1920x1080 frame (the bars: 68 % of it).
func backgroundsBenchmark() throws {
    let frame = try Frame(width: 1920, height: 1080, format: .yuv420p)
    let picture = try Frame(width: 608, height: 1080, format: .yuv420p)
    for p in 0..<3 {
        let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: 608, height: 1080)
        for y in 0..<h {
            for x in 0..<w { (picture.data(p) + y * picture.stride(p)).assumingMemoryBound(to: UInt8.self)[x] = UInt8(16 + (x * 7 + y * 13) % 200) }
        }
    }
    let image = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-bench-bg.png").path
    let made = Process()
    made.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    made.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1280x720", "-frames:v", "1", image]
    try made.run(); made.waitUntilExit()
    defer { try? FileManager.default.removeItem(atPath: image) }
    for background in [Background.color(.black), .image(image, fit: .cover), .blur(radius: nil), .blur(radius: 200)] {
        let canvas = Canvas(width: 1920, height: 1080, backdrop: try Backdrop(background, width: 1920, height: 1080))
        let ms = medianMilliseconds(runs: 15) { canvas.place(picture, into: frame) }
        let name: String =
            switch background {
            case .color: "colour"
            case .image: "image"
            case .blur(let r): "blur radius \(r.map { String(Int($0)) } ?? "54 (default)")"
            }
        print(
            String(
                format: "| background %@ behind a 608x1080 picture in 1920x1080, ms per picture (median of 15) | %.2f | | bars and picture placed |",
                name, ms))
    }
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first ?? "rotate" {
    case "rotate": try rotateBenchmark()
    case "effects": try effectsBenchmark(); try backgroundsBenchmark()
    case "tonemap" where args.count == 5:
        let r = try toneMapBenchmark(rawFrame: args[1], width: Int(args[2])!, height: Int(args[3])!, kind: args[4])
        print(String(format: "%.1f %.1f %.1f", r.auto, r.fixed, r.statistics * 100))
    case "roundtrip" where args.count == 3 || args.count == 4:
        try roundTripScore(output: args[1], kind: args[2], vectors: args.count == 4 ? args[3] : "testvectors")
    case "exposure" where args.count == 2 || args.count == 3:
        // The table of issue 32's measure (ExposureChart): sdrify's binary, then optionally the photos' folder.
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-exposure-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        print(ExposureChart.Row.header)
        try ExposureChart.measure(
            sdrify: args[1], ffmpeg: "/usr/bin/ffmpeg", photosDirectory: args.count == 3 ? args[2] : "testvectors/photos", work: work
        ) {
            print($0.markdown); fflush(nil)
        }
    case "heif" where args.count == 2 || args.count == 3:
        // Median wall time of decoding a HEIF photo to upright RGBA (what a clip, sticker or background reads).
        var times: [Double] = []
        for _ in 0..<(args.count == 3 ? Int(args[2]) ?? 5 : 5) {
            let t = Date()
            let images = try StickerImages.load(args[1])
            times.append(Date().timeIntervalSince(t))
            precondition(images.first.map { $0.width * $0.height > 0 } ?? false)
        }
        print(String(format: "%.4f", times.sorted()[times.count / 2]))
    case "heif-planes" where args.count == 3 || args.count == 4:
        // A HEIF photo's primary picture, or its auxiliary picture of a type (Apple's gain map), as raw planes for
        // scripts/compare-maker-sdr; prints its size, FFmpeg pixel format, matrix and range.
        guard let p = try HEIFDecoder.planes(path: args[1], auxiliary: args.count == 4 ? args[2] : nil) else {
            throw SDRifyError.invalidInput("\(args[1]): no auxiliary picture of type \(args[2])")
        }
        try Data(p.planes.joined()).write(to: URL(fileURLWithPath: args.last!))
        print(p.width, p.height, p.pixelFormat, p.color.matrix.rawValue, p.color.range == .full ? "full" : "limited")
    default:
        FileHandle.standardError.write(
            Data(
                "usage: sdrify-bench rotate | effects | tonemap FRAME.yuv W H pq|hlg | roundtrip OUTPUT.mp4 pq|hlg [VECTORS] | exposure SDRIFY [PHOTOS] | heif PHOTO [RUNS] | heif-planes PHOTO [AUX-URN] OUT\n"
                    .utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("sdrify-bench: \(error)\n".utf8))
    exit(1)
}
