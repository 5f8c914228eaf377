import ArgumentParser
import Foundation
import SDRify

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Describe a video: colour, HDR metadata, orientation, streams.")

    @Argument(help: "Input video file.") var input: String
    @Flag(help: "Print JSON (ffprobe's key names) instead of a summary.") var json = false
    @Flag(name: .customLong("timed-metadata"), help: "Print the timed-metadata samples as JSON Lines: t, duration, track, key, value.")
    var timedMetadata = false
    @Option(parsing: .unconditional, help: "With --timed-metadata: only this track (its index).") var track: Int?
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        if let track, track < 0 { throw ValidationError("--track must be 0 or more") }
    }

    func run() throws {
        FailureReport.json = json
        FailureReport.identity = [("input", .string(input))]
        service.apply(enterReading: [input])
        if timedMetadata {
            let text = try TimedMetadata.lines(path: input, track: track).map { $0.serialized(pretty: false) + "\n" }.joined()
            guard writeAll(1, text) else { throw SDRifyError(.outputProblem, "stdout: cannot write the samples") }
            return
        }
        let info = try Prober.probe(path: input)
        for w in info.warnings { log("sdrify: warning: \(input): \(w)") }
        var report = info.json
        if case .object(var fields) = report { fields.append(("sandbox", Sandbox.report)); report = .object(fields) }
        guard writeAll(1, (json ? report.serialized(pretty: true) : info.summary) + "\n") else {
            throw SDRifyError(.outputProblem, "stdout: cannot write the report (\(String(cString: strerror(errno))))")
        }
    }
}
