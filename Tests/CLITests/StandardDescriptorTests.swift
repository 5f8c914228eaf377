import Foundation
import XCTest

/// A run started with standard descriptors closed (`<&-`, `>&-`, `2>&-`) works as with them open: the output is
/// complete and nothing meant for stdout lands in it.
final class StandardDescriptorTests: CLITestCase {
    /// Runs sdrify through the shell with `redirections` (e.g. ">&-") and returns its exit status.
    func run(_ redirections: String, _ args: [String]) throws -> Int32 {
        let quoted = ([Support.binary.path] + args).map { "'\($0)'" }.joined(separator: " ")
        return try Support.run("/bin/sh", ["-c", "exec \(quoted) \(redirections)"]).status
    }

    func testClosedDescriptorsAreStandIns() throws {
        let input = Support.vector("sdr_h264_aac.mp4")
        let closings = ["<&-", ">&-", "2>&-", "<&- >&- 2>&-"]
        for (k, closing) in closings.enumerated() {
            let out = file("out\(k).mp4")
            let status = try run(closing, [input, out, "--progress", "-", "--preset", "640x480"])
            XCTAssertEqual(status, 0, "\(closing)")
            let probe = try Support.ffprobe(out)
            XCTAssertEqual(Support.streams(probe, "video").first?["nb_frames"] as? String, "30", "\(closing): a whole MP4")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            XCTAssertNil(bytes.range(of: Data("progress=".utf8)), "\(closing): no progress block inside the video")
        }
        // A failure still exits with its status when stderr is closed.
        XCTAssertEqual(try run("2>&-", [Support.vector("text.mp4"), file("bad.mp4")]), 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")))
    }
}
