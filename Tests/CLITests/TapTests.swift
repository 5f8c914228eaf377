import Foundation
import XCTest

/// `sdrify tap` (issue 45): lyrics timed by holding them in a real browser (Debian's Chromium through playwright), the
/// cues saved and burned in over exactly their holds; the server on the loopback only, serving only what it was given;
/// bad input in one line; Ctrl-C leaves nothing behind.
final class TapTests: CLITestCase {
    /// `sdrify tap` started in the background; its address once it listens.
    final class Server {
        let process = Process()
        let out = Pipe(), err = Pipe()
        var address = ""

        init(_ args: [String]) throws {
            process.executableURL = Support.binary
            process.arguments = ["tap"] + args
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // The first line on stdout is the page's address.
            var line = Data()
            while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([10]) { line.append(byte) }
            address = String(decoding: line, as: UTF8.self)
        }

        /// Waits (up to `seconds`) for it to end; its status, or nil if it did not.
        func wait(_ seconds: Double = 20) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { process.terminate(); return nil }
            return process.terminationStatus
        }

        var stderr: String { String(decoding: err.fileHandleForReading.availableData, as: UTF8.self) }
    }

    func lyrics(_ text: String = "First line here\nSecond line\n\nThird one\n", name: String = "lyrics.txt") throws -> String {
        let path = file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A 3 s 640×360 30 fps clip with sound.
    func song() throws -> String {
        try sharedFile("tap-song", "song.mp4") { path in
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=3", "-f", "lavfi", "-i", "sine=f=440:d=3", "-c:v", "libx264", "-pix_fmt",
                "yuv420p", "-c:a", "aac", "-shortest", path
            ])
        }
    }

    /// An HTTP request as sent (the path not cleaned up), through Python: the status code.
    func status(_ address: String, _ path: String, method: String = "GET", range: String? = nil) throws -> Int {
        let script = """
            import http.client, sys, urllib.parse
            u = urllib.parse.urlparse(sys.argv[1]); c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
            c.putrequest(sys.argv[3], sys.argv[2], skip_host=False); c.putheader("Range", sys.argv[4]) if sys.argv[4] else None
            c.endheaders(); print(c.getresponse().status)
            """
        let r = try Support.run(Support.tool("python3"), ["-c", script, address, path, method, range ?? ""])
        return Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func testHoldsInTheBrowserBecomeCuesBurnedInOverExactlyTheirHolds() throws {
        let media = try song(), text = try lyrics("First line here\nSecond line\n\nThird one\nFourth, by the pointer\n")
        let server = try Server([media, text])
        XCTAssertTrue(server.address.hasPrefix("http://127.0.0.1:"), server.address)
        // Line 1 held 0.2–0.5 s; lines 2 and 3 a duet: Space from 1.0, J from 1.2 (before Space is let go at 1.5), to 1.7;
        // line 4 held with the pointer on it, 2.0–2.4 s.
        let holds =
            #"[["Space","down",0.2],["Space","up",0.5],["Space","down",1.0],["KeyJ","down",1.2],["Space","up",1.5],["KeyJ","up",1.7],"#
            + #"["line:3","down",2.0],["line:3","up",2.4]]"#
        let shot = file("page.png")
        // The python3 on PATH: scripts/setup installs playwright into that one. (The other scripts use Debian's, which
        // starts without a version manager's shims in front of it: 17 ms against 130.)
        let r = try Support.run(
            "/usr/bin/env", ["python3", Support.packageRoot.appendingPathComponent("scripts/tap-browser.py").path, server.address, holds, shot])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(server.wait(), 0, "closing the page stops the server: \(server.stderr)")
        let page = (try? JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any]) ?? [:]
        // The page's own controls, as a person uses them.
        let ui = page["ui"] as? [String: Any] ?? [:]
        XCTAssertGreaterThanOrEqual(ui["held_font_px"] as? Double ?? 0, 40, "the held line is shown large: \(ui)")
        XCTAssertEqual(ui["held_text"] as? String, "First line here", "the line held with the pointer shows: \(ui)")
        XCTAssertEqual(ui["playing_after_click"] as? Bool, true)
        XCTAssertEqual(ui["paused_after_second_click"] as? Bool, true)
        XCTAssertTrue((ui["button_while_playing"] as? String ?? "").contains("Pause"), "\(ui)")
        XCTAssertEqual(ui["blocks"] as? Int, 4, "a block on the seek bar for each timed line: \(ui)")
        XCTAssertEqual(ui["block_click_goes_to"] as? Double ?? -1, ui["first_cue_start"] as? Double ?? -2, accuracy: 0.05)
        XCTAssertEqual(ui["bar_click_fraction"] as? Double ?? 0, 0.75, accuracy: 0.05)
        XCTAssertEqual(ui["last_marked"] as? Int, 3, "the line timed last (the pointer's) is marked: \(ui)")
        XCTAssertGreaterThan((try? Data(contentsOf: URL(fileURLWithPath: shot)))?.count ?? 0, 10_000, "a screenshot of the page")
        if let keep = ProcessInfo.processInfo.environment["SDRIFY_TAP_SCREENSHOT"] { try? FileManager.default.copyItem(atPath: shot, toPath: keep) }
        XCTAssertEqual((page["saved"] as? [String: Any])?["cues"] as? Int, 4, "\(page)")
        XCTAssertNotNil((page["again"] as? [String: Any])?["exists"], "a second save asks before replacing: \(page)")
        // The saved file, next to the medium: each cue within a frame of its hold.
        let srt = try String(contentsOfFile: file("song.srt"), encoding: .utf8)
        let expected: [(String, Double, Double)] = [
            ("First line here", 0.2, 0.5), ("Second line", 1.0, 1.5), ("Third one", 1.2, 1.7), ("Fourth, by the pointer", 2.0, 2.4)
        ]
        let blocks = srt.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        XCTAssertEqual(blocks.count, 4, srt)
        func seconds(_ s: Substring) -> Double {
            let p = s.split(whereSeparator: { ":,".contains($0) }).compactMap { Double($0) }
            return p.count == 4 ? p[0] * 3600 + p[1] * 60 + p[2] + p[3] / 1000 : -1
        }
        for (block, (line, start, end)) in zip(blocks, expected) {
            let rows = block.split(separator: "\n")
            XCTAssertEqual(rows.count, 3, block)
            guard rows.count == 3 else { continue }
            let times = rows[1].components(separatedBy: " --> ")
            XCTAssertEqual(seconds(Substring(times[0])), start, accuracy: 1.0 / 30, "\(line) starts")
            XCTAssertEqual(seconds(Substring(times[1])), end, accuracy: 1.0 / 30, "\(line) ends")
            XCTAssertEqual(String(rows[2]), line)
        }
        // Burned in: the captions' band differs from the plain picture exactly on the pictures of the holds.
        let burned = file("burned.mp4"), plain = file("plain.mp4")
        XCTAssertEqual(try Support.sdrify([media, burned, "--captions", file("song.srt"), "--crf", "12", "-q"]).status, 0)
        XCTAssertEqual(try Support.sdrify([media, plain, "--crf", "12", "-q"]).status, 0)
        // Frame n is at n/30 s: line 1 shows on frames 6–14, lines 2 and 3 on 30–50, line 4 on 60–71.
        let captionedAt: [(Int, Bool)] = [
            (5, false), (6, true), (14, true), (15, false), (29, false), (30, true), (40, true), (50, true), (51, false), (59, false),
            (60, true), (71, true), (72, false)
        ]
        let band = "crop=iw:ih/4:0:ih*3/4", pictures = captionedAt.map(\.0)
        let burnedBands = try Support.lumaFrames(burned, indices: pictures, filter: band)
        let plainBands = try Support.lumaFrames(plain, indices: pictures, filter: band)
        for ((n, shown), (a, b)) in zip(captionedAt, zip(burnedBands, plainBands)) {
            let captioned = zip(a, b).filter { abs(Int($0) - Int($1)) > 60 }.count > 100
            XCTAssertEqual(captioned, shown, "picture \(n) (\(Double(n) / 30) s)")
        }
    }

    func testServesOnlyWhatItWasGivenOnTheLoopback() throws {
        let media = try song(), server = try Server([media, try lyrics(), "-o", file("out.lrc")])
        let address = server.address
        XCTAssertEqual(try status(address, "/"), 200)
        XCTAssertEqual(try status(address, "/media", range: "bytes=0-99"), 206, "range requests: the page can seek")
        for path in ["/etc/passwd", "/../../../../etc/passwd", "/media/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/lyrics.txt"] {
            XCTAssertEqual(try status(address, path), 404, path)
        }
        // Bound to 127.0.0.1 only (the kernel's table of listening sockets).
        let port = Int(address.split(separator: ":").last?.filter(\.isNumber) ?? "") ?? -1
        let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
        let local = String(format: "0100007F:%04X", port)
        XCTAssertTrue(table.contains(local), "listening on 127.0.0.1:\(port)")
        XCTAssertFalse(table.contains(String(format: "00000000:%04X", port)), "not on every address")
        XCTAssertEqual(try status(address, "/close", method: "POST"), 200)
        XCTAssertEqual(server.wait(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("out.lrc")), "nothing saved, nothing written")
        // A song (sound only) plays in the page's audio element, as it is.
        try ffmpeg(["-f", "lavfi", "-i", "sine=f=440:d=2", "-c:a", "aac", file("song.m4a")])
        let song = try Server([file("song.m4a"), try lyrics()])
        let r = try Support.run(
            Support.tool("python3"),
            ["-c", "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1] + 'session').read().decode())", song.address])
        XCTAssertTrue(r.stdout.contains(#""kind":"audio""#), r.stdout)
        XCTAssertEqual(try status(song.address, "/close", method: "POST"), 200)
        XCTAssertEqual(song.wait(), 0)
    }

    func testBadInputGetsOneClearLine() throws {
        let media = try song()
        let cases: [([String], Int32, String)] = [
            ([media, try lyrics("\n  \n", name: "blank.txt")], 64, "no lines to time"),
            ([file("missing.mp4"), try lyrics()], 64, "cannot read the medium"),
            ([media, file("missing.txt")], 64, "cannot read the lyrics"),
            ([media, try lyrics(), "-o", file("x.txt")], 64, ".srt, .vtt, .ass or .lrc")
        ]
        for (args, code, named) in cases {
            let r = try Support.sdrify(["tap"] + args)
            XCTAssertEqual(r.status, code, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(named), "\(args) says \(named): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)")
        }
        // A damaged medium: refused before any page is served.
        try Data(repeating: 0x47, count: 4096).write(to: URL(fileURLWithPath: file("junk.mp4")))
        let junk = try Support.sdrify(["tap", file("junk.mp4"), try lyrics()])
        XCTAssertNotEqual(junk.status, 0)
        XCTAssertEqual(junk.stderr.split(separator: "\n").count, 1, junk.stderr)
        // A port in use.
        let first = try Server([media, try lyrics()])
        let port = first.address.split(separator: ":").last?.filter(\.isNumber) ?? ""
        let second = try Support.sdrify(["tap", media, try lyrics(), "--port", String(port)])
        XCTAssertEqual(second.status, 64, second.stderr)
        XCTAssertTrue(second.stderr.contains("port"), second.stderr)
        XCTAssertEqual(try status(first.address, "/close", method: "POST"), 200)
        XCTAssertEqual(first.wait(), 0)
    }

    /// An HDR video plays as sdrify's SDR preview; Ctrl-C stops the server and leaves no preview or output behind.
    func testHDRPlaysAsThePreviewAndCtrlCLeavesNothing() throws {
        let media = file("hdr.mp4")
        try FileManager.default.copyItem(atPath: Support.vector("pq_hevc_hdr10.mp4"), toPath: media)
        let server = try Server([media, try lyrics()])
        let preview = file("preview.mp4")
        let r = try Support.run(
            Support.tool("python3"),
            [
                "-c", "import sys, urllib.request; open(sys.argv[2], 'wb').write(urllib.request.urlopen(sys.argv[1] + 'media').read())",
                server.address, preview
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let v = Support.streams(try Support.ffprobe(preview), "video").first ?? [:]
        XCTAssertEqual(v["codec_name"] as? String, "h264", "the preview")
        XCTAssertEqual(v["color_transfer"] as? String, "bt709", "SDR")
        let scratch = "/tmp/sdrify-tap-\(server.process.processIdentifier)"
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch), "the preview lives in \(scratch) while the page is served")
        server.process.interrupt()  // Ctrl-C
        XCTAssertEqual(server.wait(), 130, server.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch), "the preview is removed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("hdr.srt")), "nothing was saved")
    }

    /// A browser killed without a word (no pagehide) leaves no server behind: with no page for --idle-timeout it stops
    /// by itself, exit 0, saying why; a page that is open keeps it serving (the holds test runs past the limit below).
    func testWithNoPageTheServerStopsByItself() throws {
        let started = Date()
        let server = try Server([try song(), try lyrics(), "--idle-timeout", "2"])
        XCTAssertTrue(server.address.hasPrefix("http://127.0.0.1:"), server.address)
        XCTAssertEqual(server.wait(20), 0, server.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2)
        XCTAssertTrue(server.stderr.contains("no page open for 2 s: stopped"), server.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("song.srt")))
        // While the page says it is open, it serves on past the limit.
        let kept = try Server([try song(), try lyrics(), "--idle-timeout", "2"])
        for _ in 0..<6 {
            XCTAssertEqual(try status(kept.address, "/alive", method: "POST"), 204)
            usleep(700_000)
        }
        XCTAssertTrue(kept.process.isRunning, "4 s of heartbeats past a 2 s limit: still serving")
        kept.process.interrupt()
        XCTAssertEqual(kept.wait(), 130)
    }
}
