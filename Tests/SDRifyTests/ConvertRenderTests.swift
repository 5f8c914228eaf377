@testable import SDRify
@testable import SDRifyOutput
@testable import SDRifyPresets
@testable import SDRifyTimeline
@testable import SDRifyValues
import XCTest

/// A conversion run into a checksum sink (no encoder, no file): the one-clip plan on the source's clock, or on a
/// constant one, through the same render path as a composition.
final class ConvertRenderTests: XCTestCase {
    let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testvectors")

    func render(_ configure: (inout Timeline) -> Void = { _ in }) throws -> (ExportResult, ChecksumSink) {
        var conversion = Timeline.conversion(
            of: vectors.appendingPathComponent("hlg_portrait.mov").path,
            into: OutputSpec(path: "/nonexistent/out.mp4", preset: ExportPreset.named("640x480")!))
        configure(&conversion)
        let sink = ChecksumSink()
        let result = try Export.render(ExportRequest(conversion), into: [sink])
        XCTAssertTrue(sink.finished)
        return (result, sink)
    }

    func testTheSourcesOwnClockKeepsEveryPictureAndItsTime() throws {
        let (result, sink) = try render()
        XCTAssertEqual(sink.pictures.count, 30)
        XCTAssertEqual(result.frames, 30)
        XCTAssertEqual(sink.width, 360, "upright portrait"); XCTAssertEqual(sink.height, 640)
        let tb = try XCTUnwrap(sink.timeBase)
        let times = sink.pictures.map { Double($0.pts ?? -1) * tb.seconds }
        XCTAssertEqual(times.first ?? -1, 0, accuracy: 1e-9)
        for i in 1..<times.count { XCTAssertEqual(times[i] - times[i - 1], 1.0 / 30, accuracy: 1e-6) }
        XCTAssertEqual(result.duration, 1, accuracy: 1e-6)
        XCTAssertEqual(result.hdr, .hlg)
    }

    func testAConstantRateShowsTheNearestPictures() throws {
        let (source, sourceSink) = try render()
        let (result, sink) = try render { $0.output.fps = FrameRate(num: 15, den: 1) }
        XCTAssertEqual(sink.pictures.count, 15)
        XCTAssertEqual(result.duration, source.duration, accuracy: 1.0 / 15)
        XCTAssertEqual(sink.pictures.map(\.pts), (0..<15).map { Int64($0) })
        // Output frame n at n/15 s shows source picture 2n (every other one).
        for n in 0..<15 { XCTAssertEqual(sink.pictures[n].checksum, sourceSink.pictures[2 * n].checksum, "frame \(n)") }
    }

    func testTheSamePicturesWhateverTheThreads() throws {
        let (_, inline) = try render { $0.output.threads = 1 }
        let (_, threaded) = try render { $0.output.threads = 4 }
        XCTAssertEqual(inline.pictures.map(\.checksum), threaded.pictures.map(\.checksum))
        XCTAssertEqual(inline.pictures.map(\.pts), threaded.pictures.map(\.pts))
    }

    func testATrimStartsAtZero() throws {
        let (result, sink) = try render {
            $0.clips[0].from = 0.5; $0.clips[0].duration = 0.3
        }
        XCTAssertEqual(sink.pictures.count, 9)
        XCTAssertEqual(sink.pictures.first?.pts, 0)
        XCTAssertEqual(result.duration, 0.3, accuracy: 1e-6)
    }

    /// A start past the end selects nothing: the request's fault (exit 64), said before any output, never an empty one.
    func testAStartPastTheEndIsAnEmptyRangeNotAnEmptyOutput() throws {
        for fps in [nil, FrameRate(num: 30, den: 1)] {
            XCTAssertThrowsError(
                try render {
                    $0.clips[0].from = 5; $0.output.fps = fps
                }
            ) { error in
                XCTAssertEqual((error as? SDRifyError)?.status, .usage, "\(String(describing: fps))")
                XCTAssertTrue((error as? SDRifyError)?.message.contains("the range is empty") == true, "\(error)")
            }
        }
    }
}
