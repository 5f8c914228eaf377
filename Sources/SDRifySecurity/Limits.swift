import Foundation
import SDRifyValues
#if canImport(Glibc)
    import Glibc
#endif

/// What a run may cost, for services that convert strangers' files (`--max-pixels`, `--max-duration`,
/// `--max-memory`, `--timeout`). The picture-size cap below holds always; the rest only when set.
package struct Limits: Sendable {
    package var maxPixels: Int? = nil  // per picture, from its headers, before anything decodes it
    package var maxDuration: Double? = nil  // seconds of each video input
    package var maxMemory: Int? = nil  // bytes of resident memory, for the whole process
    package var timeout: Double? = nil  // seconds of wall clock, from the start

    package init() {}

    /// The largest picture ever accepted (hostile headers), whatever the options say.
    static let maxDimension = 16384
    static let builtInMaxPixels = 1 << 28

    /// The run's limits, set once by the command line before anything else (`apply`).
    nonisolated(unsafe) package private(set) static var current = Limits()

    /// Makes `limits` the process's, with a data-size ceiling (RLIMIT_DATA) that backs the memory limit up against
    /// a single allocation too large and too fast to watch. (The watchdog for memory and wall clock is the output's:
    /// SignalCleanup.watch, which stops the run and leaves no output.)
    package static func apply(_ limits: Limits) {
        current = limits
        if let bytes = limits.maxMemory {
            // Headroom: the ceiling counts address space reserved for thread stacks and allocator arenas, not only
            // what is resident; the watchdog enforces the resident limit itself.
            let ceiling = rlim_t(clamping: bytes * 2 + (512 << 20))
            var r = rlimit(rlim_cur: ceiling, rlim_max: ceiling)
            var old = rlimit()
            if getrlimit(Int32(RLIMIT_DATA.rawValue), &old) == 0 { r.rlim_max = min(ceiling, old.rlim_max); r.rlim_cur = r.rlim_max }
            _ = setrlimit(Int32(RLIMIT_DATA.rawValue), &r)
        }
    }

    /// The process's peak resident memory so far (the kernel's high-water mark, so no peak between two looks
    /// is missed).
    package static var peakResidentBytes: Int {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        return usage.ru_maxrss * 1024
    }

    /// Refuses a picture larger than the built-in cap or `--max-pixels` (exit 3), before any decoder sees it.
    package static func checkPicture(width w: Int, height h: Int, in path: String) throws {
        if w > maxDimension || h > maxDimension || w * h > builtInMaxPixels {
            throw SDRifyError.unsupported("\(path): picture size \(w)x\(h) is beyond the \(maxDimension)x\(maxDimension), 2^28-pixel limit")
        }
        if let cap = current.maxPixels, w * h > cap {
            throw SDRifyError.unsupported("\(path): picture size \(w)x\(h) (\(w * h) pixels) is beyond --max-pixels \(cap)")
        }
    }

    /// Refuses an input longer than `--max-duration` (exit 3): from its headers, or once its pictures run past.
    package static func checkDuration(_ seconds: Double, of path: String, running: Bool = false) throws {
        guard let cap = current.maxDuration, seconds > cap else { return }
        let length = running ? "runs past \(Limits.seconds(cap))" : "is \(Limits.seconds(seconds)) long"
        throw SDRifyError.unsupported("\(path): \(length), beyond --max-duration \(Limits.seconds(cap))")
    }

    package static func seconds(_ s: Double) -> String { s == s.rounded() && s < 1e9 ? "\(Int(s)) s" : String(format: "%.3g s", s) }
    package static func megabytes(_ b: Int) -> String { String(format: "%.0f MB", Double(b) / 1e6) }
}
