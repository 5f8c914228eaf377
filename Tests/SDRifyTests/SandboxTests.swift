import Foundation
@testable import SDRifySecurity
import XCTest
#if canImport(Glibc)
    import Glibc
#endif

/// What the sandbox forbids, tried from inside it. Entering it is irreversible for the whole process, so the test
/// runs itself again in a child process (this test bundle, filtered to this one test, with SDRIFY_SANDBOX_CHILD set):
/// the child enters the sandbox and tries each forbidden call, printing one line per finding; the parent checks
/// the child passed and that every finding was printed (so a child that ran nothing cannot pass).
final class SandboxTests: XCTestCase {
    static let findings = [
        "execve refused", "spawn refused", "inet socket refused", "unix socket refused",
        "create refused", "write-open refused", "truncate-open refused", "unlink refused", "rename refused",
        "mkdir refused", "signal to another process refused", "read-open works", "read elsewhere refused", "write to held fd works",
        "threads work", "signal to self works", "kernel says filtering"
    ]

    func testForbiddenCallsFailInsideTheSandbox() throws {
        if ProcessInfo.processInfo.environment["SDRIFY_SANDBOX_CHILD"] != nil {
            try insideTheSandbox()
            return
        }
        // Its own folder, not FolderTestCase's: the child, in the sandbox, could not remove one made for it.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data("existing".utf8).write(to: scratch.appendingPathComponent("existing.txt"))

        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["SDRifyTests.SandboxTests/testForbiddenCallsFailInsideTheSandbox"]
        var env = ProcessInfo.processInfo.environment
        env["SDRIFY_SANDBOX_CHILD"] = scratch.path
        child.environment = env
        let out = Pipe()
        child.standardOutput = out
        child.standardError = out
        try child.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, text)
        for finding in SandboxTests.findings {
            XCTAssertTrue(text.contains("sandbox: \(finding)\n"), "missing '\(finding)' in:\n\(text)")
        }
        // Nothing the child tried to make exists.
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted()
        XCTAssertEqual(left, ["existing.txt"])
        XCTAssertEqual(try String(contentsOf: scratch.appendingPathComponent("existing.txt"), encoding: .utf8), "existing")
    }

    private func insideTheSandbox() throws {
        let scratch = ProcessInfo.processInfo.environment["SDRIFY_SANDBOX_CHILD"]!
        let existing = scratch + "/existing.txt"
        // A descriptor opened before, like the output: it stays writable.
        let held = open("/dev/null", O_WRONLY)
        XCTAssertGreaterThanOrEqual(held, 0)

        Sandbox.requested = true
        Sandbox.enter(reading: [scratch])
        XCTAssertEqual(Sandbox.status, .on)
        XCTAssertEqual(Sandbox.readConfinement, .on)
        func say(_ finding: String) { let line = "sandbox: \(finding)\n"; _ = write(1, line, line.utf8.count) }
        func refused(_ result: Int32, _ finding: String, file: StaticString = #filePath, line: UInt = #line) {
            let err = errno
            XCTAssertEqual(result, -1, finding, file: file, line: line)
            XCTAssertEqual(err, EPERM, "\(finding): errno \(err)", file: file, line: line)
            if result == -1 && err == EPERM { say(finding) }
        }

        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        refused(execv("/bin/true", &argv), "execve refused")
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/true", nil, nil, &argv, nil)
        XCTAssertNotEqual(spawned, 0)
        if spawned != 0 { say("spawn refused") }
        refused(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0), "inet socket refused")
        refused(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0), "unix socket refused")
        refused(open(scratch + "/new.txt", O_CREAT | O_WRONLY, 0o644), "create refused")
        refused(open(existing, O_WRONLY), "write-open refused")
        refused(open(existing, O_RDONLY | O_TRUNC), "truncate-open refused")
        refused(unlink(existing), "unlink refused")
        refused(rename(existing, scratch + "/moved.txt"), "rename refused")
        refused(mkdir(scratch + "/dir", 0o755), "mkdir refused")
        refused(kill(1, 0), "signal to another process refused")

        let reading = open(existing, O_RDONLY)
        XCTAssertGreaterThanOrEqual(reading, 0)
        if reading >= 0 { say("read-open works"); close(reading) }
        let elsewhere = open("/etc/hostname", O_RDONLY)
        XCTAssertEqual(elsewhere, -1, "only the files the job names can be read")
        if elsewhere == -1 && errno == EACCES { say("read elsewhere refused") }
        let byte: [UInt8] = [0]
        if write(held, byte, 1) == 1 { say("write to held fd works") } else { XCTFail("write to a held descriptor failed: \(errno)") }
        nonisolated(unsafe) var ran = false
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            ran = true; done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        if ran { say("threads work") }
        if kill(getpid(), 0) == 0 { say("signal to self works") } else { XCTFail("kill(self, 0) failed: \(errno)") }
        if Sandbox.kernelMode == 2 { say("kernel says filtering") } else { XCTFail("seccomp mode \(String(describing: Sandbox.kernelMode))") }
    }
}
