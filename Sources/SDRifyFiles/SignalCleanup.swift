import CSystem
import Foundation
import SDRifySecurity
import SDRifyValues
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// How a run ends early: on a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM: the
/// temporary, if named, removed; one line; exit 128 + n), or when a limit trips (`--timeout`: exit 124;
/// `--max-memory`: exit 1). SIGPIPE is ignored (a write to a closed pipe fails with EPIPE instead, and is handled
/// where it happens). Installed first thing in main.
///
/// One decision point: while the finished output is being put in place and reported (from `beginCommit` to
/// `conclude`), a stop is held; `conclude` then removes the output and exits with it, so the result is either
/// exit 0 with the complete output or the stop's status with none. After `conclude` the process has decided on
/// exit 0 and stops are ignored. The phase moves by compare-and-swap, so a signal handler, the limits' watchdog
/// thread and the committing thread agree on who ends the run. The ending path only reads preallocated memory and
/// calls async-signal-safe functions (unlink, write, read, _exit).
package enum SignalCleanup {
    package static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM]

    /// Stops that are not signals (above any signal number).
    static let timeoutStop: Int32 = 1000, memoryStop: Int32 = 1001

    private static let running: Int32 = 0, committing: Int32 = 1, decided: Int32 = 2, ending: Int32 = 3
    private static let phase = Atomic<Int32>(0)
    private static let held = Atomic<Int32>(0)  // the stop that arrived while committing
    /// The run's outputs (a video and its poster, say), each with its named temporary (nil: unnamed or gone), its
    /// output helper (-1: none) and, once committed, its final path; preallocated, for the ending path.
    struct OutputSlot { var temp: UnsafeMutablePointer<CChar>?; var helper: Int32; var final: UnsafeMutablePointer<CChar>? }
    static let maxOutputs = 4
    nonisolated(unsafe) private static let outputs: UnsafeMutablePointer<OutputSlot> = {
        let p = UnsafeMutablePointer<OutputSlot>.allocate(capacity: maxOutputs)
        p.initialize(repeating: OutputSlot(temp: nil, helper: -1, final: nil), count: maxOutputs)
        return p
    }()
    nonisolated(unsafe) private static var outputCount = 0
    nonisolated(unsafe) private static var installed = false
    /// What each stop says, made ahead (the ending path cannot allocate), by slot: the signal number, or 64/65 for
    /// the limits. `lines`: the stderr line; `jsonReports`: under `--json`, the error object for stdout.
    private static let slots = 66
    private static func table() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        p.initialize(repeating: nil, count: slots)
        return p
    }
    nonisolated(unsafe) private static let lines = table()
    nonisolated(unsafe) private static let jsonReports = table()
    nonisolated(unsafe) private static var jsonMaker: ((String, Int32) -> String)? = nil
    nonisolated(unsafe) private static var limitText: [Int32: String] = [:]

    package static func install() {
        guard !installed else { return }
        installed = true
        signal(SIGPIPE, SIG_IGN)
        for sig in handled { lines[slot(of: sig)] = strdup("sdrify: \(message(of: sig))\n") }
        let handler: @convention(c) (Int32) -> Void = { sig in SignalCleanup.stop(sig) }
        for sig in handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            for other in handled { sigaddset(&action.sa_mask, other) }  // one handler at a time
            action.sa_flags = 0
            sigaction(sig, &action, nil)
        }
    }

    /// The line a limit's stop says (made now: the ending path does not allocate).
    static func setLine(_ line: String, for stop: Int32) {
        lines[slot(of: stop)] = strdup(line + "\n")
        limitText[stop] = line.hasPrefix("sdrify: ") ? String(line.dropFirst(8)) : line
        if let jsonMaker { reportAsJSON(jsonMaker) }
    }

    /// Under `--json`: every stop also prints the error object `make(message, exit status)` on stdout. Made now,
    /// because the ending path cannot allocate; called again whenever what the object says changes.
    package static func reportAsJSON(_ make: @escaping (String, Int32) -> String) {
        jsonMaker = make
        for sig in handled { jsonReports[Int(sig)] = strdup(make(message(of: sig), 128 + sig)) }
        for (stop, text) in limitText { jsonReports[slot(of: stop)] = strdup(make(text, status(of: stop))) }
    }

    private static func slot(of stop: Int32) -> Int { stop == timeoutStop ? 64 : stop == memoryStop ? 65 : Int(stop) }

    /// A handled signal's name ("SIGTERM").
    package static func name(of sig: Int32) -> String {
        [
            SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGUSR1: "SIGUSR1", SIGUSR2: "SIGUSR2",
            SIGALRM: "SIGALRM"
        ][sig] ?? "signal \(sig)"
    }

    /// What a run stopped by `sig` says: "interrupted (SIGINT)", "terminated (SIGTERM)" …
    package static func message(of sig: Int32) -> String {
        "\(sig == SIGINT ? "interrupted" : "terminated") (\(name(of: sig)))"
    }

    /// Ends the run for `stop` (a signal number or a limit), or holds it while the output is being committed.
    static func stop(_ stop: Int32) {
        while true {
            switch phase.load(ordering: .sequentiallyConsistent) {
            case running:
                guard phase.compareExchange(expected: running, desired: ending, ordering: .sequentiallyConsistent).exchanged else { continue }
                end(stop, removingOutput: false)
            case committing:
                _ = held.compareExchange(expected: 0, desired: stop, ordering: .sequentiallyConsistent)
                return
            default:
                return  // decided on exit 0, or another thread is already ending the run
            }
        }
    }

    private static func end(_ stop: Int32, removingOutput: Bool) -> Never {
        if removingOutput { removeOutput() }
        // A named temporary: removed here, or by the output helper when this process is gone.
        for i in 0..<outputCount where outputs[i].helper < 0 { if let p = outputs[i].temp { unlink(p) } }
        say(stop)
        sdrify_helpers_finish_all()  // each helper removes its temporary and is waited for: none is left a zombie
        _exit(status(of: stop))
    }

    private static func status(of stop: Int32) -> Int32 {
        switch stop {
        case timeoutStop: ExitStatus.timedOut.rawValue
        case memoryStop: ExitStatus.conversionFailed.rawValue
        default: 128 + stop
        }
    }

    /// The one line for `stop`, and its JSON object under --json (preallocated: no allocation here).
    private static func say(_ stop: Int32) {
        let slot = slot(of: stop)
        guard slot >= 0, slot < slots else { return }
        if let json = jsonReports[slot] { _ = write(1, json, strlen(json)) }
        if let line = lines[slot] { _ = write(2, line, strlen(line)) }
    }

    /// A new output of the run; returns its slot.
    static func register(temp: String?, helper socket: Int32) -> Int {
        precondition(outputCount < maxOutputs, "at most \(maxOutputs) outputs per run")
        outputs[outputCount] = OutputSlot(temp: temp.map { strdup($0) }, helper: socket, final: nil)
        outputCount += 1
        return outputCount - 1
    }
    /// The output's temporary is gone (committed or discarded).
    static func unregister(_ slot: Int) { outputs[slot].temp = nil }

    /// Opens the commit window (the first output placed) or adds to it (the run's other outputs, placed in the same
    /// window: a stop held then undoes all of them).
    static func beginCommit(_ output: String, slot: Int) {
        outputs[slot].final = strdup(output)
        if phase.load(ordering: .sequentiallyConsistent) == committing { return }
        // Another thread already ending the run (a limit, a signal) exits in a moment: the output must not appear.
        guard phase.compareExchange(expected: running, desired: committing, ordering: .sequentiallyConsistent).exchanged else {
            while true { pause() }
        }
    }

    /// For tests only: `SDRIFY_TEST_HOLD_COMMIT_MS` keeps the commit window open that long once the output is in
    /// place, so a test can send a signal inside it and check that it undoes the output (not reachable otherwise:
    /// the window lasts microseconds). A held stop ends the wait early, whichever thread the signal reached.
    static func holdCommitWindowForTests() {
        guard let ms = ProcessInfo.processInfo.environment["SDRIFY_TEST_HOLD_COMMIT_MS"].flatMap(Int.init), ms > 0 else { return }
        for _ in 0..<(ms / 10) where held.load(ordering: .sequentiallyConsistent) == 0 {
            var tick = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            _ = nanosleep(&tick, nil)
        }
    }

    /// The output in `slot` could not be placed: it is not the run's to undo.
    static func abandonCommit(_ slot: Int) {
        outputs[slot].final = nil
        guard !(0..<outputCount).contains(where: { outputs[$0].final != nil }) else { return }  // others are placed
        phase.store(running, ordering: .sequentiallyConsistent)
        let stop = held.exchange(0, ordering: .sequentiallyConsistent)
        if stop != 0 { SignalCleanup.stop(stop) }
    }

    /// Ends the window opened by a commit: with a stop held, the output is removed and the process exits with it;
    /// otherwise exit 0 is decided and later stops are ignored.
    package static func conclude() {
        guard installed, phase.compareExchange(expected: committing, desired: decided, ordering: .sequentiallyConsistent).exchanged else { return }
        deliverHeld()
    }

    /// Within the commit window: a stop held so far is delivered now (the output removed, its exit status).
    package static func checkpoint() {
        guard installed, phase.load(ordering: .sequentiallyConsistent) == committing else { return }
        deliverHeld()
    }

    /// Undoes a committed output before a failing exit (the report that goes with it could not be written).
    package static func revokeOutput() {
        if phase.load(ordering: .sequentiallyConsistent) != running { removeOutput() }
    }

    private static func removeOutput() {
        for i in 0..<outputCount {
            guard let final = outputs[i].final else { continue }
            if outputs[i].helper >= 0 { _ = sdrify_output_helper_request(outputs[i].helper, CChar(UInt8(ascii: "R"))) } else { unlink(final) }
        }
    }

    private static func deliverHeld() {
        let stop = held.load(ordering: .sequentiallyConsistent)
        guard stop != 0 else { return }
        end(stop, removingOutput: true)
    }
}

extension SignalCleanup {
    /// Starts the watchdog for `limits`' memory and wall clock (if either is set): past either, the run stops as on
    /// a signal, with its own line and exit status, and leaves no output.
    package static func watch(_ limits: Limits) {
        if let bytes = limits.maxMemory {
            setLine("sdrify: memory use passed --max-memory (\(Limits.megabytes(bytes))); stopped, no output written", for: memoryStop)
        }
        if let seconds = limits.timeout {
            setLine("sdrify: timed out after \(Limits.seconds(seconds)) (--timeout); stopped, no output written", for: timeoutStop)
        }
        guard limits.maxMemory != nil || limits.timeout != nil else { return }
        let started = DispatchTime.now().uptimeNanoseconds
        let thread = Thread {
            while true {
                if let seconds = limits.timeout, Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 >= seconds {
                    stop(timeoutStop)
                }
                if let bytes = limits.maxMemory, Limits.peakResidentBytes > bytes {
                    stop(memoryStop)
                }
                usleep(5_000)
            }
        }
        thread.stackSize = 1 << 16
        thread.start()
    }
}
