import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The output file contract (DESIGN §2): everything is written to a temporary file beside the output, which
/// is fsynced and moved into place only when complete. Without --overwrite the move is `link` + `unlink`,
/// which fails atomically if the output appeared meanwhile. Until committed, the temporary is removed on
/// every failure path and by the signal handler.
final class AtomicOutput {
    let finalPath: String
    let tempPath: String
    private let overwrite: Bool
    private var committed = false

    init(finalPath: String, inputPath: String, overwrite: Bool) throws {
        self.finalPath = finalPath
        self.overwrite = overwrite
        var inStat = stat(), outStat = stat()
        if stat(inputPath, &inStat) == 0, stat(finalPath, &outStat) == 0,
           inStat.st_dev == outStat.st_dev, inStat.st_ino == outStat.st_ino {
            throw SDRifyError.output("\(finalPath): is the input file itself; choose another output path")
        }
        var linkStat = stat()
        if lstat(finalPath, &linkStat) == 0 {
            if (linkStat.st_mode & S_IFMT) == S_IFDIR { throw SDRifyError.output("\(finalPath): is a directory") }
            if !overwrite { throw SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
        }
        let url = URL(fileURLWithPath: finalPath)
        let dir = url.deletingLastPathComponent().path
        var created: String? = nil
        for _ in 0..<16 {
            let candidate = "\(dir)/.\(url.lastPathComponent).sdrify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
            let fd = open(candidate, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
            if fd >= 0 { close(fd); created = candidate; break }
            if errno != EEXIST {
                throw SDRifyError.output("\(dir): cannot create the output there (\(String(cString: strerror(errno))))")
            }
        }
        guard let temp = created else { throw SDRifyError.output("\(dir): cannot create a temporary file") }
        tempPath = temp
        SignalCleanup.register(temp)
    }

    deinit { discard() }

    /// Removes the temporary if the output was not committed.
    func discard() {
        guard !committed else { return }
        unlink(tempPath)
        SignalCleanup.unregister()
        committed = true
    }

    func commit() throws {
        let fd = open(tempPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            if fd >= 0 { close(fd) }
            throw SDRifyError.output("\(finalPath): cannot flush the output to disk (\(String(cString: strerror(errno))))")
        }
        close(fd)
        if overwrite {
            guard rename(tempPath, finalPath) == 0 else {
                throw SDRifyError.output("\(finalPath): cannot move the output into place (\(String(cString: strerror(errno))))")
            }
        } else {
            guard link(tempPath, finalPath) == 0 else {
                let err = errno
                if err == EEXIST { throw SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
                throw SDRifyError.output("\(finalPath): cannot move the output into place (\(String(cString: strerror(err))))")
            }
            unlink(tempPath)
        }
        committed = true
        SignalCleanup.unregister()
        let dirFD = open(URL(fileURLWithPath: finalPath).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 { fsync(dirFD); close(dirFD) }
    }
}

/// SIGINT/SIGTERM: remove the temporary output and exit 130/143. The handler only calls async-signal-safe
/// functions (unlink, write, _exit) on a path prepared beforehand.
public enum SignalCleanup {
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>? = nil
    nonisolated(unsafe) private static var installed = false

    public static func install() {
        guard !installed else { return }
        installed = true
        let handler: @convention(c) (Int32) -> Void = { sig in
            if let p = SignalCleanup.path { unlink(p) }
            let msg: StaticString = sig == SIGINT ? "sdrify: interrupted (SIGINT)\n" : "sdrify: terminated (SIGTERM)\n"
            _ = write(2, msg.utf8Start, msg.utf8CodeUnitCount)
            _exit(128 + sig)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    static func register(_ p: String) { path = strdup(p) }
    static func unregister() { path = nil }
}
