import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The output file contract: the output is written into an unnamed file in its directory (Linux `O_TMPFILE`)
/// and linked into place only when complete and fsynced, so nothing is ever left behind, not even on SIGKILL, a
/// power cut or the OOM killer. Without --overwrite the link fails atomically if the output appeared meanwhile;
/// with it, the file is linked under a short temporary name and renamed over the output. Where the filesystem
/// has no `O_TMPFILE`, a named temporary (short, so any output name the filesystem allows works) stands in and is
/// removed on every failure path and by the signal handler.
final class AtomicOutput {
    let finalPath: String
    /// The file being written, opened for reading and writing (fast start reads it back).
    let fd: Int32
    private let directory: String
    private let namedTemp: String?  // the fallback's name; nil for an unnamed file
    private let overwrite: Bool
    private var committed = false

    // O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), a macro Swift does not import.
    private static let tmpfile: Int32 = 0o20000000 | O_DIRECTORY

    convenience init(finalPath: String, inputPath: String, overwrite: Bool) throws {
        try self.init(finalPath: finalPath, inputPaths: [inputPath], overwrite: overwrite)
    }

    /// `inputPaths`: every file the output is made from; none may be the output itself.
    init(finalPath: String, inputPaths: [String], overwrite: Bool) throws {
        self.finalPath = finalPath
        self.overwrite = overwrite
        var outStat = stat()
        if stat(finalPath, &outStat) == 0 {
            for input in inputPaths {
                var inStat = stat()
                if stat(input, &inStat) == 0, inStat.st_dev == outStat.st_dev, inStat.st_ino == outStat.st_ino {
                    throw SDRifyError.output("\(finalPath): is the input file \(input) itself; choose another output path")
                }
            }
        }
        var linkStat = stat()
        if lstat(finalPath, &linkStat) == 0 {
            if (linkStat.st_mode & S_IFMT) == S_IFDIR { throw SDRifyError.output("\(finalPath): is a directory") }
            if !overwrite { throw SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
        }
        let dir = URL(fileURLWithPath: finalPath).deletingLastPathComponent().path
        directory = dir
        let unnamed = open(dir, AtomicOutput.tmpfile | O_RDWR | O_CLOEXEC, 0o644)
        if unnamed >= 0 {
            fd = unnamed
            namedTemp = nil
            return
        }
        guard [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else {
            throw SDRifyError.output("\(dir): cannot create the output there (\(String(cString: strerror(errno))))")
        }
        var made: (Int32, String)? = nil
        for _ in 0..<16 {
            let candidate = AtomicOutput.tempName(in: dir)
            let fd = open(candidate, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o644)
            if fd >= 0 { made = (fd, candidate); break }
            if errno != EEXIST {
                throw SDRifyError.output("\(dir): cannot create the output there (\(String(cString: strerror(errno))))")
            }
        }
        guard let (fd, name) = made else { throw SDRifyError.output("\(dir): cannot create a temporary file") }
        self.fd = fd
        namedTemp = name
        SignalCleanup.register(name)
    }

    /// A short hidden name in `dir` (not derived from the output's, which may already be as long as names get).
    static func tempName(in dir: String) -> String { "\(dir)/.sdrify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp" }

    deinit { discard() }

    /// Drops the output if it was not committed.
    func discard() {
        guard !committed else { return }
        if let namedTemp { unlink(namedTemp); SignalCleanup.unregister() }
        close(fd)
        committed = true
    }

    /// Puts the complete output in place. From here until the caller's `SignalCleanup.conclude`, a signal no longer
    /// kills the process halfway: it is held, and conclude undoes the output and exits with it.
    func commit() throws {
        guard fsync(fd) == 0 else {
            throw SDRifyError.output("\(finalPath): cannot flush the output to disk (\(String(cString: strerror(errno))))")
        }
        SignalCleanup.beginCommit(finalPath)
        do {
            try place()
        } catch {
            SignalCleanup.abandonCommit()
            throw error
        }
        committed = true
        close(fd)
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 { fsync(dirFD); close(dirFD) }
    }

    private func place() throws {
        func failure(_ err: Int32) -> SDRifyError {
            if err == EEXIST { return SDRifyError.output("\(finalPath): already exists (use --overwrite to replace it)") }
            return SDRifyError.output("\(finalPath): cannot move the output into place (\(String(cString: strerror(err))))")
        }
        // Gives the unnamed file the name `target` (through /proc, which needs no privilege; AT_EMPTY_PATH, which
        // needs CAP_DAC_READ_SEARCH, where /proc is not mounted).
        func name(_ target: String) -> Int32 {
            if linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 { return 0 }
            if errno == ENOENT, linkat(fd, "", AT_FDCWD, target, 0x1000 /* AT_EMPTY_PATH */) == 0 { return 0 }
            return errno
        }
        if let namedTemp {
            if overwrite {
                guard rename(namedTemp, finalPath) == 0 else { throw failure(errno) }
            } else {
                guard link(namedTemp, finalPath) == 0 else { throw failure(errno) }
                unlink(namedTemp)
            }
            SignalCleanup.unregister()
        } else if overwrite {
            let temp = AtomicOutput.tempName(in: directory)
            let err = name(temp)
            guard err == 0 else { throw failure(err) }
            guard rename(temp, finalPath) == 0 else { let e = errno; unlink(temp); throw failure(e) }
        } else {
            let err = name(finalPath)
            guard err == 0 else { throw failure(err) }
        }
    }
}

/// Signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM end a conversion cleanly (the
/// temporary, if named, removed; one line; exit 128 + n); SIGPIPE is ignored (a write to a closed pipe fails
/// with EPIPE instead, and is handled where it happens). Installed first thing in main.
///
/// One decision point: while the finished output is being put in place and reported (from `beginCommit` to
/// `conclude`), a signal is held; `conclude` then removes the output and exits with it, so the result is either
/// exit 0 with the complete output or 128 + n with none. After `conclude` the process has decided on exit 0 and
/// signals are ignored. The handler only reads and writes preallocated memory and calls async-signal-safe
/// functions (unlink, write, _exit).
public enum SignalCleanup {
    public static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM]

    private static let running: Int32 = 0, committing: Int32 = 1, decided: Int32 = 2
    nonisolated(unsafe) private static let state = UnsafeMutablePointer<Int32>.allocate(capacity: 2)  // [phase, held signal]
    nonisolated(unsafe) private static var tempPath: UnsafeMutablePointer<CChar>? = nil
    nonisolated(unsafe) private static var finalPath: UnsafeMutablePointer<CChar>? = nil
    nonisolated(unsafe) private static var installed = false

    public static func install() {
        guard !installed else { return }
        installed = true
        state[0] = running
        state[1] = 0
        signal(SIGPIPE, SIG_IGN)
        let handler: @convention(c) (Int32) -> Void = { sig in
            switch SignalCleanup.state[0] {
            case SignalCleanup.decided: return
            case SignalCleanup.committing:
                if SignalCleanup.state[1] == 0 { SignalCleanup.state[1] = sig }
                return
            default:
                if let p = SignalCleanup.tempPath { unlink(p) }
                SignalCleanup.say(sig)
                _exit(128 + sig)
            }
        }
        for sig in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            for other in handled { sigaddset(&action.sa_mask, other) }  // one handler at a time
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }

    /// The one line for `sig` (static strings: no allocation in a handler).
    private static func say(_ sig: Int32) {
        let msg: StaticString = switch sig {
        case SIGINT: "sdrify: interrupted (SIGINT)\n"
        case SIGTERM: "sdrify: terminated (SIGTERM)\n"
        case SIGHUP: "sdrify: terminated (SIGHUP)\n"
        case SIGQUIT: "sdrify: terminated (SIGQUIT)\n"
        case SIGUSR1: "sdrify: terminated (SIGUSR1)\n"
        case SIGUSR2: "sdrify: terminated (SIGUSR2)\n"
        case SIGALRM: "sdrify: terminated (SIGALRM)\n"
        default: "sdrify: terminated by a signal\n"
        }
        _ = write(2, msg.utf8Start, msg.utf8CodeUnitCount)
    }

    static func register(_ p: String) { tempPath = strdup(p) }
    static func unregister() { tempPath = nil }

    static func beginCommit(_ output: String) {
        finalPath = strdup(output)
        state[0] = committing
    }

    static func abandonCommit() { state[0] = running; deliverHeld(removing: nil) }

    /// Ends the window opened by a commit: with a signal held, the output is removed and the process exits with
    /// it; otherwise exit 0 is decided and later signals are ignored.
    public static func conclude() {
        guard installed, state[0] == committing else { return }
        state[0] = decided
        deliverHeld(removing: finalPath)
    }

    /// Within the commit window: a signal held so far is delivered now (the output removed, exit 128 + n).
    public static func checkpoint() {
        guard installed, state[0] == committing else { return }
        deliverHeld(removing: finalPath)
    }

    /// Undoes a committed output before a failing exit (the report that goes with it could not be written).
    public static func revokeOutput() {
        if let p = finalPath, state[0] != running { unlink(p) }
    }

    private static func deliverHeld(removing output: UnsafeMutablePointer<CChar>?) {
        let sig = state[1]
        guard sig != 0 else { return }
        if let output { unlink(output) }
        if let p = tempPath { unlink(p) }
        say(sig)
        _exit(128 + sig)
    }
}
