import CSystem
import Foundation
import SDRifyValues

/// The sandbox (Linux): once the run's output is open, the process can no longer start programs, make or use network
/// sockets, open files for writing, create, rename or remove files, reach into other processes or gain privileges
/// (the seccomp filter: CSystem's sandbox.c has the rule list), and it can read only the files its job names and what
/// the libraries read on their own (Landlock: landlock.c), so a decoder exploited by a crafted file cannot read other
/// users' uploads or keys into the output. It reads inputs and writes through the descriptors it holds, with any
/// number of threads. The finished output is put in place by the output helper (see AtomicOutput).
package enum Sandbox {
    package enum Status: Equatable, Sendable {
        case off  // --no-sandbox, or not entered yet
        case on
        case unavailable(String)  // the kernel cannot (no seccomp, no Landlock): the run goes on without
    }

    /// Set once by the command line before a run (on unless --no-sandbox); the library alone never sandboxes.
    nonisolated(unsafe) package static var requested = false
    /// The seccomp filter's state.
    nonisolated(unsafe) package private(set) static var status = Status.off
    /// Landlock's: reading confined to the job's files.
    nonisolated(unsafe) package private(set) static var readConfinement = Status.off

    /// Enters the sandbox if requested and not yet in it, reading confined to `paths` (the job's inputs: files, or
    /// directories and all beneath them) and `libraryReads`. Irreversible, for the whole process: threads started
    /// before keep their reading (only the limits' watchdog, which reads nothing).
    package static func enter(reading paths: [String] = []) {
        guard requested, status == .off else { return }
        let readable = (paths + libraryReads).map { strdup($0) }
        defer { readable.forEach { free($0) } }
        let confined = readable.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            sdrify_landlock_enter($0.baseAddress, Int32($0.count))
        }
        readConfinement = confined == 0 ? .on : .unavailable(String(cString: strerror(confined)))
        let err = sdrify_sandbox_enter()
        status = err == 0 ? .on : .unavailable(String(cString: strerror(err)))
    }

    /// What the libraries read by themselves besides the job's files: fontconfig's configuration, fonts and caches
    /// (libass), shared data and libraries (gconv modules, time zones), this process's own /proc and cgroup entries
    /// (memory and processor limits), the NUMA nodes (x265 asks libnuma, and says so on stderr when refused), /dev/null
    /// and /dev/urandom. No user's files and nothing under /etc but these.
    static var libraryReads: [String] {
        let env = ProcessInfo.processInfo.environment
        var paths = [
            "/usr/share", "/usr/local/share", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/etc/fonts",
            "/var/cache/fontconfig", "/etc/ld.so.cache", "/etc/localtime", "/proc/self", "/sys/fs/cgroup",
            "/sys/devices/system/cpu", "/sys/devices/system/node", "/dev/null", "/dev/urandom"
        ]
        if let home = env["HOME"] {
            paths += [".fonts", ".local/share/fonts", ".cache/fontconfig", ".config/fontconfig"].map { "\(home)/\($0)" }
        }
        for key in ["XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "FONTCONFIG_PATH", "FONTCONFIG_FILE"] {
            if let v = env[key], !v.isEmpty { paths.append(v) }
        }
        return paths
    }

    /// For `--json`: `{"seccomp": true, "landlock": true}`, each false when off or where the kernel lacks it.
    package static var report: JSONValue {
        .object([("seccomp", .bool(status == .on)), ("landlock", .bool(readConfinement == .on))])
    }

    /// What this kernel (and any filter a container runtime puts around it) allows of the sandbox, tried in a child
    /// process (`sdrify --version --json`): a job runner reads it before it sends work.
    package static var allowed: (seccomp: Bool, landlock: Bool) {
        let bits = sdrify_sandbox_probe()
        return bits < 0 ? (false, false) : (bits & 1 != 0, bits & 2 != 0)
    }

    /// Whether `path` can be read now: nil, or why not (for `sdrify sandbox-check`).
    package static func readProblem(_ path: String) -> String? {
        let err = sdrify_can_read(path)
        return err == 0 ? nil : String(cString: strerror(err))
    }

    /// What the kernel says of this process: its seccomp mode (2 = filtering), or nil where it does not say.
    static var kernelMode: Int? {
        let mode = sdrify_seccomp_mode()
        return mode < 0 ? nil : Int(mode)
    }
}
