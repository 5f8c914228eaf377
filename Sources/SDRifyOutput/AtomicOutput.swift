import CSystem
import Foundation
import SDRifySecurity
import SDRifyValues
#if canImport(Glibc)
    import Glibc
#endif

/// The output file contract: the output is written into an unnamed file in its directory (Linux `O_TMPFILE`)
/// and linked into place only when complete and fsynced, so nothing is ever left behind, not even on SIGKILL, a
/// power cut or the OOM killer. Without --overwrite the link fails atomically if the output appeared meanwhile;
/// with it, the file is linked under a short temporary name and renamed over the output. Where the filesystem
/// has no `O_TMPFILE`, a named temporary (short, so any output name the filesystem allows works) stands in and is
/// removed on every failure path and by the signal handler.
///
/// Under the sandbox the process cannot name or remove files: the output helper (a child started with the
/// output, see CSystem's output_helper.c) does both on request, and removes a named temporary when the process
/// ends however it ends.
package final class AtomicOutput {
    let finalPath: String
    /// The file being written, opened for reading and writing (fast start reads it back).
    package let fd: Int32
    private let directory: String
    private let namedTemp: String?  // the fallback's name; nil for an unnamed file
    private let spareTemp: String  // the name an unnamed file is linked under before replacing an output
    private let overwrite: Bool
    private var helper: Int32 = -1  // the output helper's socket, when the sandbox will be on
    private var committed = false
    private var cleanupSlot = 0  // this output's entry in SignalCleanup

    // O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), a macro Swift does not import.
    private static let tmpfile: Int32 = 0o20000000 | O_DIRECTORY

    /// The outputs the command line opened before the sandbox closed (see `reserve`).
    nonisolated(unsafe) private static var reserved: [AtomicOutput] = []

    /// Opens the output now, before any input is read, so the sandbox can close before a hostile byte is parsed;
    /// the run's `open` for the same path then takes it.
    static func reserve(finalPath: String, overwrite: Bool) throws {
        reserved.append(try AtomicOutput(finalPath: finalPath, overwrite: overwrite))
    }

    /// Drops a reserved output the run never took (it failed before).
    static func releaseReserved() {
        for r in reserved { r.discard() }
        reserved = []
    }

    /// The output at `finalPath`: the reserved one, or a new one. `inputPaths`: every file the output is made from;
    /// none may be the output itself.
    package static func open(finalPath: String, inputPaths: [String], overwrite: Bool) throws -> AtomicOutput {
        var outStat = stat()
        if stat(finalPath, &outStat) == 0 {
            for input in inputPaths {
                var inStat = stat()
                if stat(input, &inStat) == 0, inStat.st_dev == outStat.st_dev, inStat.st_ino == outStat.st_ino {
                    throw SDRifyError.output("\(finalPath): is the input file \(input) itself; choose another output path")
                }
            }
        }
        if let i = reserved.firstIndex(where: { $0.finalPath == finalPath && $0.overwrite == overwrite }) {
            return reserved.remove(at: i)
        }
        return try AtomicOutput(finalPath: finalPath, overwrite: overwrite)
    }

    private init(finalPath: String, overwrite: Bool) throws {
        self.finalPath = finalPath
        self.overwrite = overwrite
        var linkStat = stat()
        if lstat(finalPath, &linkStat) == 0 {
            if (linkStat.st_mode & S_IFMT) == S_IFDIR { throw SDRifyError.output("\(finalPath): is a directory") }
            if !overwrite { throw SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
        }
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
            let socket = sdrify_output_helper_start(fd, directory, finalPath, namedTemp, spareTemp, overwrite ? 1 : 0)
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
            : sdrify_place_output(fd, directory, finalPath, namedTemp, spareTemp, overwrite ? 1 : 0)
        guard err == 0 else {
            SignalCleanup.abandonCommit(cleanupSlot)
            if err == EEXIST { throw SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
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
    package static func reserve(path: String, overwrite: Bool) throws { try AtomicOutput.reserve(finalPath: path, overwrite: overwrite) }
    /// The same for an output that is a directory (`hls`, `sprites`): its temporary directory and helper.
    package static func reserveDirectory(path: String, overwrite: Bool) throws { try AtomicDirectory.reserve(finalPath: path, overwrite: overwrite) }
    /// Drops them if the run failed before using them.
    package static func release() {
        AtomicOutput.releaseReserved()
        AtomicDirectory.releaseReserved()
    }
}
