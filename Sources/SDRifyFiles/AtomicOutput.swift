import CSystem
import Foundation
import SDRifySecurity
import SDRifyValues
#if canImport(Glibc)
    import Glibc
#endif

/// The output file contract: the output is written into an unnamed file in its directory (Linux `O_TMPFILE`)
/// and linked into place only when complete and fsynced, so nothing is ever left behind, not even on SIGKILL, a
/// power cut or the OOM killer. What may be replaced is `ExistingOutput`'s rule; where nothing may, the link
/// fails atomically if the output appeared meanwhile; where it may, the file is linked under a short temporary name
/// and renamed over the output. Where the filesystem has no `O_TMPFILE`, a named temporary (short, so any output
/// name the filesystem allows works) stands in and is removed on every failure path and by the signal handler.
///
/// Under the sandbox the process cannot name or remove files: the output helper (a child started with the
/// output, see CSystem's output_helper.c) does both on request, and removes a named temporary when the process
/// ends however it ends.
package final class AtomicOutput {
    package let finalPath: String
    /// The file being written, opened for reading and writing (fast start reads it back).
    package let fd: Int32
    private let directory: String
    private let namedTemp: String?  // the fallback's name; nil for an unnamed file
    private let spareTemp: String  // the name an unnamed file is linked under before replacing an output
    private let policy: OverwritePolicy
    private var helper: Int32 = -1  // the output helper's socket, when the sandbox will be on
    private var committed = false
    private var cleanupSlot = 0  // this output's entry in SignalCleanup

    // O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), a macro Swift does not import.
    private static let tmpfile: Int32 = 0o20000000 | O_DIRECTORY

    /// The outputs the command line opened before the sandbox closed (see `reserve`).
    nonisolated(unsafe) private static var reserved: [AtomicOutput] = []
    /// Why an output could not be reserved, said when the run reaches it: after every value has been checked.
    nonisolated(unsafe) static var refused: [String: Error] = [:]

    /// Opens the output now, before any input is read, so the sandbox can close before a hostile byte is parsed;
    /// the run's `open` for the same path then takes it. An output that cannot be opened (one already there, say)
    /// is not reported here but when the run opens it, so that a bad value is reported first.
    static func reserve(finalPath: String, policy: OverwritePolicy) {
        do { reserved.append(try AtomicOutput(finalPath: finalPath, policy: policy)) } catch { refused[finalPath] = error }
    }

    /// Drops a reserved output the run never took (it failed before).
    static func releaseReserved() {
        for r in reserved { r.discard() }
        reserved = []
        refused = [:]
    }

    /// The output at `finalPath`: the reserved one, or a new one. `inputPaths`: every file the output is made from;
    /// none may be the output itself.
    package static func open(finalPath: String, inputPaths: [String], policy: OverwritePolicy) throws -> AtomicOutput {
        if let input = inputPaths.first(where: { ExistingOutput.sameFile($0, finalPath) }) {
            throw SDRifyError.output("\(finalPath): is the input file \(input) itself; choose another output path")
        }
        if let error = refused.removeValue(forKey: finalPath) { throw error }
        if let i = reserved.firstIndex(where: { $0.finalPath == finalPath && $0.policy == policy }) {
            return reserved.remove(at: i)
        }
        return try AtomicOutput(finalPath: finalPath, policy: policy)
    }

    private init(finalPath: String, policy: OverwritePolicy) throws {
        self.finalPath = finalPath
        self.policy = policy
        try ExistingOutput.check(finalPath, policy: policy)
        let dir = URL(fileURLWithPath: finalPath).deletingLastPathComponent().path
        directory = dir
        spareTemp = AtomicOutput.tempName(in: dir)
        let unnamed = Glibc.open(dir, AtomicOutput.tmpfile | O_RDWR | O_CLOEXEC, 0o644)
        if unnamed >= 0 {
            fd = unnamed
            namedTemp = nil
        } else {
            guard [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else {
                throw SDRifyError.output("\(dir): cannot create the output there (\(String(cString: strerror(errno))))")
            }
            var made: (Int32, String)? = nil
            for _ in 0..<16 {
                let candidate = AtomicOutput.tempName(in: dir)
                let fd = Glibc.open(candidate, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o644)
                if fd >= 0 { made = (fd, candidate); break }
                if errno != EEXIST {
                    throw SDRifyError.output("\(dir): cannot create the output there (\(String(cString: strerror(errno))))")
                }
            }
            guard let (fd, name) = made else { throw SDRifyError.output("\(dir): cannot create a temporary file") }
            self.fd = fd
            namedTemp = name
        }
        if Sandbox.requested {
            let socket = sdrify_output_helper_start(fd, directory, finalPath, namedTemp, spareTemp, policy.replaces ? 1 : 0)
            guard socket >= 0 else {
                if let namedTemp { unlink(namedTemp) }
                close(fd)
                throw SDRifyError.output("cannot start the output helper (\(String(cString: strerror(-socket))))")
            }
            helper = socket
        }
        cleanupSlot = SignalCleanup.register(temp: namedTemp, helper: helper)
    }

    /// A short hidden name in `dir` (not derived from the output's, which may already be as long as names get).
    static func tempName(in dir: String) -> String { "\(dir)/.sdrify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp" }

    deinit { discard() }

    /// Writes all of `bytes` (a small output made in memory: captions, a poster).
    package func write(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SDRifyError.output("\(finalPath): cannot write (\(String(cString: strerror(errno))))") }
            done += n
        }
    }

    /// Drops the output if it was not committed.
    package func discard() {
        guard !committed else { return }
        if let namedTemp {
            if helper >= 0 { _ = sdrify_output_helper_request(helper, CChar(UInt8(ascii: "D"))) } else { unlink(namedTemp) }
        }
        SignalCleanup.unregister(cleanupSlot)
        close(fd)
        committed = true
    }

    /// Puts the complete output in place. From here until the caller's `SignalCleanup.conclude`, a signal no longer
    /// kills the process halfway: it is held, and conclude undoes the output and exits with it.
    package func commit() throws {
        guard fsync(fd) == 0 else {
            throw SDRifyError.output("\(finalPath): cannot flush the output to disk (\(String(cString: strerror(errno))))")
        }
        SignalCleanup.beginCommit(finalPath, slot: cleanupSlot)
        let err =
            helper >= 0
            ? sdrify_output_helper_request(helper, CChar(UInt8(ascii: "P")))
            : sdrify_place_output(fd, directory, finalPath, namedTemp, spareTemp, policy.replaces ? 1 : 0)
        guard err == 0 else {
            SignalCleanup.abandonCommit(cleanupSlot)
            if err == EEXIST { throw SDRifyError.output("\(finalPath): already exists (it appeared during the run; nothing was replaced)") }
            throw SDRifyError.output("\(finalPath): cannot move the output into place (\(String(cString: strerror(err))))")
        }
        committed = true
        close(fd)
        SignalCleanup.holdCommitWindowForTests()
    }
}

/// The command line's side of the output contract (see AtomicOutput.reserve).
package enum OutputReservation {
    /// Opens the output file (unnamed until finished) before anything reads an input.
    package static func reserve(path: String, policy: OverwritePolicy) { AtomicOutput.reserve(finalPath: path, policy: policy) }
    /// The same for an output that is a directory (`hls`, `sprites`): its temporary directory and helper.
    package static func reserveDirectory(path: String, policy: OverwritePolicy) {
        AtomicDirectory.reserve(finalPath: path, policy: policy)
    }
    /// The first output the run was to write but never opened, and why it could not be: a run that ends without
    /// opening one of its outputs has not done its job.
    package static func unreported() -> Error? { AtomicOutput.refused.values.first ?? AtomicDirectory.refused.values.first }
    /// Drops them if the run failed before using them.
    package static func release() {
        AtomicOutput.releaseReserved()
        AtomicDirectory.releaseReserved()
    }
}
