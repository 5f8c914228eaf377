import Foundation
import XCTest

/// Runs programs and reads media for the end-to-end tests.
enum Support {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectors = packageRoot.appendingPathComponent("testvectors")

    /// The sdrify binary the end-to-end tests run: `SDRIFY_TEST_BINARY` when set (scripts/test sets it to the release
    /// build the Debian package ships: what users run, and it starts in a tenth of the time of a debug build, whose
    /// argument parser checks its own declarations on every run), else the one built next to this test bundle.
    static let binary: URL = {
        if let chosen = ProcessInfo.processInfo.environment["SDRIFY_TEST_BINARY"], !chosen.isEmpty {
            let url = URL(fileURLWithPath: chosen, relativeTo: packageRoot)
            guard FileManager.default.isExecutableFile(atPath: url.path) else { fatalError("SDRIFY_TEST_BINARY: no sdrify at \(url.path)") }
            return url
        }
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sdrify")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return packageRoot.appendingPathComponent(".build/debug/sdrify")
    }()

    static func vector(_ name: String) -> String { vectors.appendingPathComponent(name).path }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stdoutData: Data
        var signalled: Bool
    }

    static func run(_ executable: String, _ args: [String], in directory: URL? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        if let directory { p.currentDirectoryURL = directory }
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read both pipes concurrently so a chatty child cannot block on a full pipe. The reader says when it is done
        // (`isExecuting` is false too before a thread starts: under load the message was lost, the exit code kept).
        nonisolated(unsafe) var errData = Data()
        let readDone = DispatchSemaphore(value: 0)
        let reader = Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            readDone.signal()
        }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        readDone.wait()
        let result = Result(
            status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData,
            signalled: p.terminationReason == .uncaughtSignal)
        if executable == binary.path { checkMessageLengths(result.stderr, args) }
        return result
    }

    /// What sdrify says to a person stays readable: no line of its stderr over 300 characters, in any test (a list in
    /// a message is its first item and how many more). The words are counted, not the names the person gave: each
    /// argument of the command line (a path, most often) counts as one character wherever the line repeats it, and
    /// so does the test's own folder. Help text is the parser's layout, not a message.
    static let longestMessage = 300
    static func checkMessageLengths(_ stderr: String, _ args: [String]) {
        guard !args.contains("--help"), !args.contains("-h") else { return }
        let given = args.filter { $0.count > 1 }.sorted { $0.count > $1.count }
        for line in stderr.split(separator: "\n") {
            let words = given.reduce(String(line)) { $0.replacingOccurrences(of: $1, with: "#") }
                .replacingOccurrences(of: "/[^ ]*sdrify-tests-[0-9A-F-]{36}", with: "#", options: .regularExpression)
            if words.count > longestMessage {
                XCTFail("sdrify \(args.prefix(3).joined(separator: " ")) …: a message of \(words.count) characters: \(line.prefix(400))")
            }
        }
    }

    static func sdrify(_ args: String...) throws -> Result { try run(binary.path, args) }
    static func sdrify(_ args: [String]) throws -> Result { try run(binary.path, args) }

    static func tool(_ name: String) -> String {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return name
    }

    /// ffprobe's JSON for streams and format.
    /// Size and file position of each packet of a stream ("v" or "a"), from ffprobe.
    static func packets(_ path: String, _ stream: String) throws -> [(size: Int, pos: Int)] {
        let r = try run(
            tool("ffprobe"),
            [
                "-v", "error", "-select_streams", stream, "-show_entries", "packet=size,pos",
                "-of", "csv=p=0", path
            ])
        return r.stdout.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").compactMap { Int($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
    }

    static func ffprobe(_ path: String) throws -> [String: Any] {
        let r = try run(tool("ffprobe"), ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try JSONSerialization.jsonObject(with: r.stdoutData) as? [String: Any] ?? [:]
    }

    static func streams(_ probe: [String: Any], _ type: String) -> [[String: Any]] {
        (probe["streams"] as? [[String: Any]] ?? []).filter { $0["codec_type"] as? String == type }
    }

    /// One decoded frame's luma as 8-bit grey bytes, optionally through an ffmpeg filter chain. With
    /// `autorotate` ffmpeg applies the display matrix itself (its CLI handles all eight cases in 5.1). A picture that
    /// is not there fails the test (`rawFrames`).
    static func lumaFrame(
        _ path: String, index: Int, filter: String? = nil, autorotate: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        try lumaFrames(path, indices: [index], filter: filter, autorotate: autorotate, file: file, line: line)[0]
    }

    /// Raw bytes of one decoded frame in `pixelFormat`, no scaling (ffmpeg converts only the sample layout, after
    /// `filter` if given).
    static func rawFrame(
        _ path: String, index: Int, pixelFormat: String, filter: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        try rawFrames(path, indices: [index], pixelFormat: pixelFormat, filter: filter, file: file, line: line)[0]
    }

    /// Pictures `indices` of a file, in the order asked, from one ffmpeg run: starting ffmpeg
    /// is most of what one small picture costs, and tests that read a file's pictures one by one started it 218 times
    /// more than they needed. ffmpeg's showinfo counts what came out, so a picture that is not there fails the test.
    static func rawFrames(
        _ path: String, indices: [Int], pixelFormat: String, filter: String? = nil, autorotate: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[UInt8]] {
        let wanted = Array(Set(indices)).sorted()
        let select = "select=" + wanted.map { "eq(n\\,\($0))" }.joined(separator: "+")
        let r = try run(
            tool("ffmpeg"),
            ["-hide_banner", "-nostats", "-v", "info"] + (autorotate ? [] : ["-noautorotate"])
                + [
                    "-i", path, "-vf", [select, filter, "showinfo"].compactMap { $0 }.joined(separator: ","), "-fps_mode", "passthrough",
                    "-frames:v", "\(wanted.count)", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"
                ])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        let shown = r.stderr.split(separator: "\n").filter { $0.contains("Parsed_showinfo") && $0.contains(" n:") }.count
        guard !wanted.isEmpty, shown == wanted.count, r.stdoutData.count % wanted.count == 0 else {
            XCTFail("\(path): \(shown) of pictures \(wanted) decoded", file: file, line: line)
            return indices.map { _ in [] }
        }
        let size = r.stdoutData.count / wanted.count, bytes = [UInt8](r.stdoutData)
        return indices.map { index in
            let k = wanted.firstIndex(of: index)!
            return Array(bytes[(k * size)..<((k + 1) * size)])
        }
    }

    /// `lumaFrame` of each of `indices`, from one ffmpeg run (see `rawFrames`).
    static func lumaFrames(
        _ path: String, indices: [Int], filter: String? = nil, autorotate: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [[UInt8]] {
        try rawFrames(path, indices: indices, pixelFormat: "gray", filter: filter, autorotate: autorotate, file: file, line: line)
    }

    /// PSNR in dB between two pictures of the same size and sample type (8-bit, or 16-bit words).
    static func psnr<Sample: FixedWidthInteger & UnsignedInteger>(_ a: [Sample], _ b: [Sample]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var sse = 0.0
        for i in 0..<a.count { let d = Double(a[i]) - Double(b[i]); sse += d * d }
        let mse = sse / Double(a.count), peak = Double(Sample.max)
        return mse == 0 ? 99 : 10 * log10(peak * peak / mse)
    }

    static func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func expected() throws -> [String: Any] {
        let data = try Data(contentsOf: vectors.appendingPathComponent("expected.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}

/// A test case with its own temporary folder (removed afterwards) and an ffmpeg helper.
class CLITestCase: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try Support.tempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func file(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Runs the ffmpeg CLI (quiet, overwriting) and expects it to succeed.
    func ffmpeg(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try Support.run(Support.tool("ffmpeg"), ["-v", "error", "-y"] + args)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
    }

    /// A grey clip (`grey` its 8-bit level) of `size` at 30 fps, with a sine of `tone` Hz or silent.
    func greyClip(_ name: String, grey: Int, size: String, seconds: Double, tone: Int? = nil) throws -> String {
        var args = ["-f", "lavfi", "-i", "color=c=0x\(String(format: "%02X%02X%02X", grey, grey, grey)):s=\(size):r=30:d=\(seconds)"]
        if let tone { args += ["-f", "lavfi", "-i", "sine=f=\(tone):r=48000:d=\(seconds)", "-ac", "2", "-c:a", "aac", "-b:a", "128k"] }
        args += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", file(name)]
        try ffmpeg(args)
        return file(name)
    }

    /// Files several tests make alike (the HEIF vectors, a 4K clip, the lying-duration corpus), made by `make` into
    /// the folder it is given once per test run and copied into this test's folder, which is what each test then
    /// reads and may change. scripts/test gives the run a folder for them (SDRIFY_TEST_SHARED); without one, each test
    /// makes its own. `key` names what `make` makes: one key, one recipe (and `make` asks for no other key).
    func shared(_ key: String, _ make: (URL) throws -> Void) throws {
        guard let root = ProcessInfo.processInfo.environment["SDRIFY_TEST_SHARED"], !root.isEmpty else { return try make(dir) }
        let files = FileManager.default, made = URL(fileURLWithPath: root).appendingPathComponent(key)
        // A test in another worker that asks at the same time waits for this one's: the tests of a class start
        // together, and without the lock 6 of the run's 14 were made two or three times (22 CPU-seconds).
        let lock = open(URL(fileURLWithPath: root).appendingPathComponent(".\(key).lock").path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard lock >= 0, flock(lock, LOCK_EX) == 0 else { throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: made.path]) }
        defer { close(lock) }  // (closing it unlocks it)
        if !files.fileExists(atPath: made.path) {
            // Made aside and renamed into place: what is there is always whole.
            let aside = URL(fileURLWithPath: root).appendingPathComponent(".\(key)-\(UUID().uuidString)")
            try files.createDirectory(at: aside, withIntermediateDirectories: true)
            defer { try? files.removeItem(at: aside) }
            let failures = testRun?.totalFailureCount ?? 0
            try make(aside)
            // What failed to be made is not handed to the other tests (this one has failed already).
            guard testRun?.totalFailureCount ?? 0 == failures else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: made.path]) }
            if rename(aside.path, made.path) != 0 && !files.fileExists(atPath: made.path) {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: made.path])
            }
        }
        for name in try files.contentsOfDirectory(atPath: made.path) {
            let copy = dir.appendingPathComponent(name)
            try? files.removeItem(at: copy)  // asked again: made again, as `make` would
            try files.copyItem(at: made.appendingPathComponent(name), to: copy)
        }
    }

    /// One file `name` made by `make` (given the path to write) as `shared` makes a folder: its path in this test's
    /// folder.
    @discardableResult
    func sharedFile(_ key: String, _ name: String, _ make: (String) throws -> Void) throws -> String {
        try shared(key) { made in try make(made.appendingPathComponent(name).path) }
        return file(name)
    }

    /// grey.mp4: 2 s of flat grey, 320x240 at 30 fps, what the caption and sticker tests draw on.
    func makeGreyClip() throws {
        try sharedFile("grey-320x240-2s", "grey.mp4") { path in
            try ffmpeg(["-f", "lavfi", "-i", "color=c=gray:size=320x240:rate=30", "-t", "2", "-c:v", "libx264", "-pix_fmt", "yuv420p", path])
        }
    }

    /// Each timeline clip (JSON) is refused by compose with exit 64, its error naming the given words, and no output.
    func assertComposeRefuses(_ cases: [(clip: String, named: String)], file path: StaticString = #filePath, line: UInt = #line) throws {
        for (clip, named) in cases {
            let timeline = file("bad.json")
            try #"{"clips": [\#(clip)]}"#.write(toFile: timeline, atomically: true, encoding: .utf8)
            let r = try Support.sdrify(["compose", "--timeline", timeline, "--output", file("bad.mp4")])
            XCTAssertEqual(r.status, 64, "\(clip): \(r.stderr)", file: path, line: line)
            XCTAssertTrue(r.stderr.contains(named), "\(clip) names \(named): \(r.stderr)", file: path, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file("bad.mp4")), file: path, line: line)
        }
    }
}
