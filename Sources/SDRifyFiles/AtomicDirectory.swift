import CSystem
import Foundation
import SDRifyValues
#if canImport(Glibc)
    import Glibc
#endif

/// The output contract for outputs that are directories (`hls`, `sprites`): every file is written into a hidden
/// temporary directory beside the output, and the directory is renamed into place only when all of it is complete
/// and flushed, so the output appears whole or not at all. Files are made by the directory helper (CSystem's
/// output_helper.c), which hands each back to the worker: the sandboxed worker itself creates nothing. When the
/// worker ends without placing it (a failure, a signal, SIGKILL, the OOM killer), the helper empties and removes
/// the temporary directory.
///
/// Only flat directories are made or replaced. With `-y` an existing output is replaced when it is an earlier run's
/// (`ExistingOutput`); with `--overwrite-original` when it holds nothing but files; a directory holding
/// subdirectories is always refused, so a mistaken path cannot cost more than the files directly in it.
package final class AtomicDirectory {
    package let finalPath: String
    private let tempPath: String
    private let helper: Int32
    private var files: [Int32] = []  // the files still open (each is flushed and closed once finished)
    private var committed = false
    private var cleanupSlot = 0

    nonisolated(unsafe) private static var reserved: [AtomicDirectory] = []
    nonisolated(unsafe) static var refused: [String: Error] = [:]

    /// Makes the temporary directory and its helper now, before the sandbox closes (see AtomicOutput.reserve: a
    /// refusal is said when the run opens the output).
    static func reserve(finalPath: String, policy: OverwritePolicy) {
        do { reserved.append(try AtomicDirectory(finalPath: finalPath, policy: policy)) } catch { refused[trimmed(finalPath)] = error }
    }

    static func releaseReserved() {
        for r in reserved { r.discard() }
        reserved = []
        refused = [:]
    }

    /// The directory output at `finalPath`: the reserved one, or a new one. No input may lie inside it.
    package static func open(finalPath: String, inputPaths: [String], policy: OverwritePolicy) throws -> AtomicDirectory {
        var outStat = stat()
        if stat(finalPath, &outStat) == 0 {
            for input in inputPaths {
                var inStat = stat()
                let parent = URL(fileURLWithPath: input).deletingLastPathComponent().path
                if stat(parent, &inStat) == 0, inStat.st_dev == outStat.st_dev, inStat.st_ino == outStat.st_ino {
                    throw SDRifyError.output("\(finalPath): holds the input \(input); choose another output directory")
                }
            }
        }
        if let error = refused.removeValue(forKey: trimmed(finalPath)) { throw error }
        if let i = reserved.firstIndex(where: { $0.finalPath == trimmed(finalPath) }) { return reserved.remove(at: i) }
        return try AtomicDirectory(finalPath: finalPath, policy: policy)
    }

    /// `out/` and `out` name the same directory.
    private static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    private init(finalPath: String, policy: OverwritePolicy) throws {
        let trimmed = AtomicDirectory.trimmed(finalPath)
        self.finalPath = trimmed
        try AtomicDirectory.checkReplaceable(trimmed, policy: policy)
        let parent = URL(fileURLWithPath: trimmed).deletingLastPathComponent().path
        var made: String? = nil
        for _ in 0..<16 {
            let candidate = AtomicOutput.tempName(in: parent)
            if mkdir(candidate, 0o755) == 0 { made = candidate; break }
            if errno != EEXIST {
                throw SDRifyError.output("\(parent): cannot create the output there (\(String(cString: strerror(errno))))")
            }
        }
        guard let made else { throw SDRifyError.output("\(parent): cannot create a temporary directory") }
        tempPath = made
        let socket = sdrify_directory_helper_start(made, trimmed, AtomicOutput.tempName(in: parent), parent, policy.replaces ? 1 : 0)
        guard socket >= 0 else {
            rmdir(made)
            throw SDRifyError.output("cannot start the output helper (\(String(cString: strerror(-socket))))")
        }
        helper = socket
        cleanupSlot = SignalCleanup.register(temp: nil, helper: socket)
    }

    /// An existing output may be replaced only as `ExistingOutput` says, and only when it is a directory of files.
    private static func checkReplaceable(_ path: String, policy: OverwritePolicy) throws {
        try ExistingOutput.check(path, policy: policy, directory: true)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for entry in entries {
            var e = stat()
            if lstat("\(path)/\(entry)", &e) == 0, (e.st_mode & S_IFMT) != S_IFREG {
                throw SDRifyError.output("\(path): holds \(entry), not a file: not replacing it (choose another output directory)")
            }
        }
    }

    deinit { discard() }

    /// A new file `name` in the directory, open for reading and writing until `finish` (or the commit) closes it.
    package func create(_ name: String) throws -> Int32 {
        let fd = sdrify_directory_helper_create(helper, name)
        guard fd >= 0 else { throw SDRifyError.output("\(finalPath)/\(name): cannot create (\(String(cString: strerror(-fd))))") }
        files.append(fd)
        return fd
    }

    /// Writes `bytes` as the new file `name` (a playlist, a WebVTT file, an image).
    package func write(_ name: String, _ bytes: [UInt8]) throws {
        let fd = try create(name)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw SDRifyError.output("\(finalPath)/\(name): cannot write (\(String(cString: strerror(errno))))") }
            done += n
        }
        try finish(fd)
    }

    /// Flushes a finished file to disk and closes it (a long ladder makes thousands of segments: none stays open).
    package func finish(_ fd: Int32) throws {
        guard let i = files.firstIndex(of: fd) else { return }
        files.remove(at: i)
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw SDRifyError.output("\(finalPath): cannot flush the output to disk (\(String(cString: strerror(errno))))")
        }
    }

    package func discard() {
        guard !committed else { return }
        _ = sdrify_output_helper_request(helper, CChar(UInt8(ascii: "D")))
        closeFiles()
        _ = sdrify_helper_finish(helper)
        committed = true
    }

    private func closeFiles() {
        for fd in files { close(fd) }
        files = []
    }

    /// Flushes every file, then renames the directory into place (see AtomicOutput.commit for the commit window).
    package func commit() throws {
        for fd in files { try finish(fd) }
        SignalCleanup.beginCommit(finalPath, slot: cleanupSlot)
        let err = sdrify_output_helper_request(helper, CChar(UInt8(ascii: "P")))
        guard err == 0 else {
            SignalCleanup.abandonCommit(cleanupSlot)
            if err == EEXIST || err == ENOTEMPTY {
                throw SDRifyError.output("\(finalPath): already exists (it appeared during the run; nothing was replaced)")
            }
            throw SDRifyError.output("\(finalPath): cannot move the output into place (\(String(cString: strerror(err))))")
        }
        committed = true
        SignalCleanup.holdCommitWindowForTests()
    }
}
