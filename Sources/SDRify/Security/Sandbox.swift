import CSystem
import Foundation

/// The seccomp sandbox (Linux): once the run's output is open, the process can no longer start programs, make or
/// use network sockets, open files for writing, create, rename or remove files, reach into other processes or gain
/// privileges (CSystem's sandbox.c has the rule list). It reads inputs and writes through the descriptors it holds,
/// with any number of threads. The finished output is put in place by the output helper (see AtomicOutput).
public enum Sandbox {
    public enum Status: Equatable, Sendable {
        case off  // --no-sandbox, or not entered yet
        case on
        case unavailable(String)  // the kernel cannot (no seccomp): the run goes on without
    }

    /// Set once by the command line before a run (on unless --no-sandbox); the library alone never sandboxes.
    nonisolated(unsafe) public static var requested = false
    nonisolated(unsafe) public private(set) static var status = Status.off

    /// Enters the sandbox if requested and not yet in it. Irreversible, for the whole process.
    public static func enter() {
        guard requested, status == .off else { return }
        let err = sdrify_sandbox_enter()
        status = err == 0 ? .on : .unavailable(String(cString: strerror(err)))
    }

    /// For reports: "on", "off", or "unavailable (why)".
    public static var description: String {
        switch status {
        case .on: "on"
        case .off: "off"
        case .unavailable(let why): "unavailable (\(why))"
        }
    }

    /// What the kernel says of this process: its seccomp mode (2 = filtering), or nil where it does not say.
    public static var kernelMode: Int? {
        let mode = sdrify_seccomp_mode()
        return mode < 0 ? nil : Int(mode)
    }
}
