@testable import SDRify
@testable import SDRifyLayers
@testable import SDRifyMedia
@testable import SDRifyOutput
@testable import SDRifyPresets
@testable import SDRifyRender
@testable import SDRifyTimeline
@testable import SDRifyValues
import XCTest

/// The composition pipeline run into a checksum sink (no encoder): the plan's frame arithmetic, which clip shows
/// when, and the transition blends.
final class CompositionTests: XCTestCase {
    func output() -> OutputSpec {
        var o = OutputSpec(path: "/nonexistent/out.mp4", preset: ExportPreset.named("640x480")!)
        o.fps = FrameRate(num: 30, den: 1)
        return o
    }

    func colour(_ hex: String, _ seconds: Double, _ t: Transition = .cut) -> TimelineClip {
        var c = TimelineClip(source: .color(RGBColor(hex: hex)!))
        c.duration = MediaTime(seconds: seconds)
        c.transition = t
        return c
    }

    func render(_ timeline: Timeline, regions: [(Double, Double, Double, Double)] = []) throws -> (ExportResult, ChecksumSink) {
        let sink = ChecksumSink(regions: regions)
        let result = try Export.render(ExportRequest(timeline), into: [sink])
        XCTAssertTrue(sink.finished)
        return (result, sink)
    }

    func testCutsShowEachColourForItsFrames() throws {
        let t = Timeline(output: output(), clips: [colour("#000000", 1), colour("#FFFFFF", 0.5), colour("#808080", 1)])
        let (result, sink) = try render(t)
        XCTAssertEqual(sink.pictures.count, 75)
        XCTAssertEqual(result.frames, 75)
        XCTAssertEqual(result.duration, 2.5, accuracy: 1e-9)
        // Colours only: the preset's box, landscape.
        XCTAssertEqual(sink.width, 640); XCTAssertEqual(sink.height, 480)
        XCTAssertFalse(sink.hasAudio)
        for n in 0..<30 { XCTAssertEqual(sink.pictures[n].meanY, 16, accuracy: 0.5, "frame \(n)") }
        for n in 30..<45 { XCTAssertEqual(sink.pictures[n].meanY, 235, accuracy: 0.5, "frame \(n)") }
        for n in 45..<75 { XCTAssertEqual(sink.pictures[n].meanY, Double(RGBColor(hex: "#808080")!.ycbcr709.y), accuracy: 0.5) }
        XCTAssertEqual(sink.pictures.map(\.pts), (0..<75).map { Int64($0) })
    }

    func testFadeOverlapsAndBlendsMonotonically() throws {
        let t = Timeline(output: output(), clips: [colour("#000000", 1, Transition(kind: .fade, duration: 0.5)), colour("#FFFFFF", 1)])
        let (result, sink) = try render(t)
        XCTAssertEqual(sink.pictures.count, 45, "two 1 s clips overlapping 0.5 s")
        XCTAssertEqual(result.clips[1].start, 0.5, accuracy: 1e-9)
        let ys = sink.pictures.map(\.meanY)
        for n in 0..<15 { XCTAssertEqual(ys[n], 16, accuracy: 0.5) }
        for n in 30..<45 { XCTAssertEqual(ys[n], 235, accuracy: 0.5) }
        for n in 15..<30 {
            XCTAssertGreaterThan(ys[n], ys[n - 1] + 5, "frame \(n) brighter than the one before")
            let p = (Double(n - 15) + 0.5) / 15
            XCTAssertEqual(ys[n], 16 + 219 * p, accuracy: 1.5, "frame \(n): linear mix at progress \(p)")
        }
    }

    func testWipesAndSlidesTakeTheRightSide() throws {
        // The incoming clip enters from the side ffmpeg's xfade names: wipeleft/slideleft from the right, …
        let left = (0.02, 0.45, 0.1, 0.1), right = (0.88, 0.45, 0.1, 0.1), top = (0.45, 0.02, 0.1, 0.1), bottom = (0.45, 0.88, 0.1, 0.1)
        let cases: [(TransitionKind, [Int])] = [
            (.wipeleft, [1]), (.slideleft, [1]), (.wiperight, [0]), (.slideright, [0]),
            (.wipeup, [3]), (.slideup, [3]), (.wipedown, [2]), (.slidedown, [2])
        ]
        for (kind, whiteRegions) in cases {
            let t = Timeline(output: output(), clips: [colour("#000000", 1, Transition(kind: kind, duration: 0.5)), colour("#FFFFFF", 1)])
            let (_, sink) = try render(t, regions: [left, right, top, bottom])
            let mid = sink.pictures[22].regions  // progress 0.5
            for r in 0..<4 {
                let horizontal = [TransitionKind.wipeleft, .slideleft, .wiperight, .slideright].contains(kind)
                guard horizontal == (r < 2) else { continue }
                XCTAssertEqual(mid[r], whiteRegions.contains(r) ? 235 : 16, accuracy: 1, "\(kind) region \(r)")
            }
        }
    }

    func testFadeThroughBlackReachesBlackMidway() throws {
        let t = Timeline(output: output(), clips: [colour("#FF0000", 1, Transition(kind: .fadeblack, duration: 0.5)), colour("#0000FF", 1)])
        let (_, sink) = try render(t)
        let ys = sink.pictures.map(\.meanY)
        XCTAssertLessThan(ys[22], 20, "black at the middle")
        XCTAssertLessThan(ys[20], ys[16]); XCTAssertGreaterThan(ys[28], ys[24])
    }

    func testTransitionLongerThanHalfAClipIsRefused() {
        let t = Timeline(output: output(), clips: [colour("#000000", 1, Transition(kind: .fade, duration: 0.6)), colour("#FFFFFF", 2)])
        XCTAssertThrowsError(try render(t)) { e in
            XCTAssertEqual((e as? SDRifyError)?.status, .usage)
            XCTAssertTrue("\(e)".contains("longer than half of this clip which shows 1.000 s"), "\(e)")
        }
    }

    func testFrameRatesParseAndTimesAreExact() {
        XCTAssertEqual(FrameRate(parsing: "29.97"), FrameRate(num: 30000, den: 1001))
        XCTAssertEqual(FrameRate(parsing: "30000/1001"), FrameRate(num: 30000, den: 1001))
        XCTAssertEqual(FrameRate(parsing: "25"), FrameRate(num: 25, den: 1))
        XCTAssertEqual(FrameRate(parsing: "12.5"), FrameRate(num: 12500, den: 1000))
        XCTAssertNil(FrameRate(parsing: "0"))
        XCTAssertNil(FrameRate(parsing: "abc"))
        let r = FrameRate(num: 30000, den: 1001)
        XCTAssertEqual(r.time(ofFrame: 30000), MediaTime(value: 1001, timescale: 1))
        XCTAssertTrue(r.time(ofFrame: 29) < MediaTime(seconds: 1))
    }

    func testCanvasFollowsTheFirstClipAndNeverExceedsTheLargest() {
        // Portrait first clip in a 1920x1080 box: portrait output.
        XCTAssertTrue(Canvas.size(firstShape: (1080, 1920), largest: (1920, 1080), box: BoundingBox(long: 1920, short: 1080)) == (1080, 1920))
        // Small clips only: not upscaled to the box.
        XCTAssertTrue(Canvas.size(firstShape: (640, 360), largest: (640, 360), box: BoundingBox(long: 1920, short: 1080)) == (640, 360))
        // A small first clip and a large second: the first's shape at the largest size the box allows.
        XCTAssertTrue(Canvas.size(firstShape: (640, 360), largest: (3840, 2160), box: BoundingBox(long: 1280, short: 720)) == (1280, 720))
        // 4:3 first clip into a 16:9 box.
        XCTAssertTrue(Canvas.size(firstShape: (1440, 1080), largest: (1920, 1080), box: BoundingBox(long: 1920, short: 1080)) == (1440, 1080))
        let canvas = Canvas(width: 1280, height: 720, backdrop: .black(1280, 720))
        XCTAssertTrue(canvas.fitted((1080, 1920), .contain) == (406, 720))
        XCTAssertTrue(canvas.fitted((1080, 1920), .cover) == (1280, 2276))
    }

    func testTimelineValuesAreCheckedInOnePlace() {
        var clip = colour("#000000", 1)
        clip.volume = -1
        XCTAssertThrowsError(try Timeline(output: output(), clips: [clip]).validate()) { e in
            XCTAssertTrue("\(e)".contains("clip 1: volume"), "\(e)")
        }
        XCTAssertThrowsError(try Timeline(output: output(), clips: []).validate())
        var bad = output(); bad.path = "x.avi"
        XCTAssertThrowsError(try Timeline(output: bad, clips: [colour("#000000", 1)]).validate())
        XCTAssertEqual(Transition(spec: "crossfade:1.5"), Transition(kind: .fade, duration: 1.5))
        XCTAssertEqual(Transition(spec: "wipeup"), Transition(kind: .wipeup, duration: 0.5))
        XCTAssertNil(Transition(spec: "spin"))
        XCTAssertNil(Transition(spec: "fade:-1"))
    }
}

final class EffectMathTests: XCTestCase {
    func testEasingsRunFromZeroToOne() {
        for e in Easing.allCases {
            XCTAssertEqual(e.apply(0), 0, accuracy: 1e-12); XCTAssertEqual(e.apply(1), 1, accuracy: 1e-12)
            XCTAssertEqual(e.apply(0.5), e == .linear || e == .easeInOut ? 0.5 : (e == .easeIn ? 0.125 : 0.875), accuracy: 1e-12)
        }
    }

    /// Three boxes whose variances add up to the Gaussian's (each box of width w has variance (w² − 1)/12).
    func testBoxWidthsMatchTheGaussiansVariance() {
        for sigma in [1.0, 3.0, 7.5, 40] {
            let widths = EffectKernels.boxes(sigma: sigma)
            let variance = widths.reduce(0.0) { $0 + (Double($1 * $1) - 1) / 12 }
            XCTAssertEqual(variance.squareRoot(), sigma, accuracy: sigma * 0.15 + 0.3, "sigma \(sigma): \(widths)")
            XCTAssertTrue(widths.allSatisfy { $0 % 2 == 1 })
        }
    }
}

final class StickerEasingTests: XCTestCase {
    func testStickerKeyframesFollowTheirEasing() {
        var spec = StickerSpec(image: "unused.png", x: .pixels(0), y: .pixels(0))
        var a = StickerKeyframe(t: 0), b = StickerKeyframe(t: 1)
        a.x = .pixels(0); b.x = .pixels(100); b.easing = .easeIn
        spec.keyframes = [a, b]
        let picture = RGBAImage(width: 10, height: 10, pixels: [UInt8](repeating: 255, count: 400), duration: 0)
        let layer = StickerLayer(spec: spec, pictures: [picture], frameWidth: 640, frameHeight: 360)
        XCTAssertEqual(layer.state(at: 0.5)!.centreX, 100 * 0.125 + 5, accuracy: 1e-9, "ease-in: an eighth of the way at half time")
        XCTAssertEqual(layer.state(at: 1)!.centreX, 105, accuracy: 1e-9)
    }
}

final class FrameClockTests: XCTestCase {
    /// Frame n of 30000/1001 starts at n·1001/30000 s: sample n·1001·48000/30000 exactly (1601.6 per frame).
    func testAudioSamplesFollowTheFrameGridExactly() {
        let r = FrameRate(num: 30000, den: 1001)
        XCTAssertEqual(r.sample(ofFrame: 5, sampleRate: 48000), 8008)
        XCTAssertEqual(r.sample(ofFrame: 1, sampleRate: 48000), 1602)  // 1601.6 rounded
        XCTAssertEqual(r.sample(ofFrame: 3_000_000, sampleRate: 48000), 4_804_800_000, "no drift over 27 hours")
    }
}
