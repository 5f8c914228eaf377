import ArgumentParser
import Foundation
import SDRifyFiles
import SDRifyOutput
import SDRifySecurity
import SDRifyValues

/// A time on the command line: seconds (`90`, `1.5`) or `[HH:]MM:SS[.mmm]` (`1:30`, `00:01:02.500`). Negative values
/// parse, so each option can say its own range instead of the parser's "Missing value".
struct TimeArgument: ExpressibleByArgument {
    let seconds: Double
    init?(argument: String) {
        guard let s = MediaTime.seconds(parsing: argument) else { return nil }
        seconds = s
    }
    /// What a time may be written as: the one wording, in help and in the refusal of a value that is none of them.
    static let forms = "seconds (90, 1.5) or [HH:]MM:SS[.mmm] (1:05)"
    static var defaultValueDescription: String { forms }
}

/// How failures are reported: the one `sdrify:` line on stderr, and under `--json` the error object on stdout,
/// for every failure (usage errors, signals and limits included).
enum FailureReport {
    /// Known before parsing, so a usage error is reported as JSON too.
    nonisolated(unsafe) static var json = CommandLine.arguments.dropFirst().contains("--json")
    /// One object per line (batch items) instead of the indented report.
    nonisolated(unsafe) static var compact = false
    /// What the report names (input, output), set once the command knows.
    nonisolated(unsafe) static var identity: [(String, JSONValue)] = [] { didSet { prepareStops() } }

    static func object(error: String, status: Int32) -> JSONValue {
        .object(
            identity + [
                ("status", .string("failed")), ("error", .string(error)), ("exit_code", .int(Int64(status))),
                ("sandbox", Sandbox.report)
            ])
    }

    static func serialize(_ value: JSONValue) -> String { value.serialized(pretty: !compact) + "\n" }

    /// Signals and limits end the run from a signal handler or the watchdog, which cannot build JSON: the objects
    /// are made now (again whenever what they say changes).
    static func prepareStops() {
        guard json else { return }
        SignalCleanup.reportAsJSON { message, status in serialize(object(error: message, status: status)) }
    }
}
