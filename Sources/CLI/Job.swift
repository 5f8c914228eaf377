import ArgumentParser
import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyOutput
import SDRifySecurity
import SDRifyValues

/// What every command that writes a video does around the library call: warnings to stderr (and into the JSON
/// report), progress, the one decision point for signals once the output is in place, the JSON report (or the
/// error as JSON), the summary line.
struct Job {
    let json: Bool
    let quiet: Bool
    let progress: String?
    let output: (path: String, overwrite: OverwritePolicy)
    let also: [String]  // the run's other outputs (a poster, the HDR kept beside the SDR)
    let reads: [String]  // every file the run reads: all the sandbox lets it read of the user's
    let directory: Bool  // the output is a directory (hls, sprites)

    init(_ flags: EncodingFlags, output: String, overwrite: OverwritePolicy, also: [String] = [], directory: Bool = false, reads: [String]) {
        self.init(flags.render, output: output, overwrite: overwrite, also: also, directory: directory, reads: reads)
    }

    init(_ flags: RenderFlags, output: String, overwrite: OverwritePolicy, also: [String] = [], directory: Bool = false, reads: [String]) {
        json = flags.json; quiet = flags.quiet; progress = flags.progress
        self.output = (output, overwrite)
        self.directory = directory
        self.also = also
        self.reads = reads
    }

    /// `body` returns the report, the damage concealed, and the line said when done.
    func run(_ body: (@escaping WarningHandler, @escaping ProgressHandler) throws -> (JSONValue, Int, String)) throws {
        let quiet = self.quiet
        let warnings = WarningLog()
        let reporter = ProgressReporter(target: progress, bar: !quiet && isatty(2) == 1)
        let warn: WarningHandler = { message in
            warnings.add(message)  // for the JSON report, even with --quiet
            guard !quiet else { return }
            reporter.clearBar()
            log("sdrify: warning: \(message)")
        }
        reporter.warn = warn
        if Batch.Item.current != nil, case .string(let input)? = FailureReport.identity.first(where: { $0.0 == "input" })?.1 {
            reporter.input = input
        }
        do {
            ServiceFlags.beginOutput(path: output.path, overwrite: output.overwrite, also: also, directory: directory, reading: reads)
            FailureReport.prepareStops()  // the sandbox's state is known now
            let (report, concealed, summary) = try body(warn, reporter.report)
            if let unopened = OutputReservation.unreported() { throw unopened }  // an output the run never reached
            if concealed > 0 { warn("concealed \(concealed) decode errors") }
            // The output is in place; until `conclude`, a signal is held and undoes it (one decision point).
            SignalCleanup.checkpoint()
            if json, case .object(var fields) = report {
                fields.append(("warnings", .array(warnings.all.map { .string($0) })))
                fields.append(("sandbox", Sandbox.report))
                fields += [("status", .string("converted")), ("exit_code", .int(0))]
                // The report is part of the result: if it cannot be written, the conversion has failed (exit 4).
                guard writeAll(1, shown(json: FailureReport.serialize(.object(fields)))) else {
                    SignalCleanup.revokeOutput()
                    fail(
                        "stdout: cannot write the JSON report (\(String(cString: strerror(errno)))); the output was removed",
                        ExitStatus.outputProblem.rawValue)
                }
            }
            SignalCleanup.conclude()
            if !quiet, !json { log(summary) }
        } catch {
            reporter.clearBar()
            throw error  // reported (as JSON too, under --json) by `fail`
        }
    }
}

/// Progress for people (a one-line bar on a terminal's stderr) and for programs (`--progress FD|-`).
/// Warnings from any pipeline thread, kept in order for the JSON report.
final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
}

final class ProgressReporter: @unchecked Sendable {
    private var fd: Int32?
    private let bar: Bool
    /// In a batch, each block starts with `input=PATH`: the files' blocks share one descriptor.
    var input: String?
    private let lock = NSLock()
    private var barShown = false
    /// Where a failed progress write is reported (once): progress is a side channel, the conversion goes on.
    var warn: WarningHandler = { _ in }

    init(target: String?, bar: Bool) {
        fd = target.map { $0 == "-" ? 1 : Int32($0)! }
        self.bar = bar
    }

    func report(_ p: ConversionProgress) {
        lock.lock(); defer { lock.unlock() }
        // One write per block: it reaches the reader whole.
        if let target = fd, !writeAll(target, (input.map { "input=\($0)\n" } ?? "") + p.keyValueBlock) {
            fd = nil
            let reason = String(cString: strerror(errno))
            lock.unlock()
            warn("--progress: cannot write (\(reason)); progress reports stopped, the conversion goes on")
            lock.lock()
        }
        guard bar else { return }
        if p.finished {
            if barShown { writeAll(2, "\r\u{1B}[2K") }
            barShown = false
            return
        }
        let percent = p.fraction.map { String(format: "%3.0f%%", $0 * 100) } ?? "  ?%"
        let filled = Int((p.fraction ?? 0) * 30)
        let eta = p.fraction.flatMap { f in f > 0.01 ? String(format: " ETA %.0f s", p.elapsed * (1 - f) / f) : nil } ?? ""
        let line =
            "\r\u{1B}[2Ksdrify: [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent) \(String(format: "%.0f", p.fps)) fps\(eta)"
        writeAll(2, line)
        barShown = true
    }

    /// Removes the bar so a log line starts on a clean line.
    func clearBar() {
        lock.lock(); defer { lock.unlock() }
        if barShown { writeAll(2, "\r\u{1B}[2K"); barShown = false }
    }
}
