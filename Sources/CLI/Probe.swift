import ArgumentParser
import Foundation
import SDRify
import SDRifyMedia
import SDRifySecurity
import SDRifyValues

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a video (colour, HDR metadata, orientation, streams) or a photo (HEIF, motion photos).")

    @Argument(help: "Input video file.") var input: String
    @Flag(help: "Print JSON (ffprobe's key names) instead of a summary.") var json = false
    @Flag(name: .customLong("timed-metadata"), help: "Print the timed-metadata samples as JSON Lines: t, duration, track, key, value.")
    var timedMetadata = false
    @Option(parsing: .unconditional, help: "With --timed-metadata: only this track (its index).") var track: Int?
    @Flag(
        name: .customLong("scene-stats"),
        help: "Decode the video and print what --tonemap auto finds in each scene (diffuse white, key, peak, exposure) without converting it.")
    var sceneStats = false
    @Option(name: CommandOptions.start.long, parsing: .unconditional, help: CommandOptions.start.argumentHelp) var start: TimeArgument?
    @Option(name: CommandOptions.duration.long, parsing: .unconditional, help: CommandOptions.duration.argumentHelp) var duration: TimeArgument?
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        if let track, track < 0 { throw ValidationError("--track must be 0 or more") }
        if sceneStats && timedMetadata { throw ValidationError("--scene-stats and --timed-metadata are separate reports: ask for one") }
        if !sceneStats && (start != nil || duration != nil) { throw ValidationError("--start and --duration go with --scene-stats") }
        _ = try CommandOptions.start.checked(start?.seconds)
        _ = try CommandOptions.duration.checked(duration?.seconds)
    }

    func run() throws {
        FailureReport.json = json
        FailureReport.identity = [("input", .string(input))]
        let given = input, input = try StreamInput.readable(given)
        service.apply(enterReading: [input])
        if timedMetadata {
            let text = try TimedMetadata.lines(path: input, track: track).map { $0.serialized(pretty: false) + "\n" }.joined()
            guard writeAll(1, text) else { throw SDRifyError(.outputProblem, "stdout: cannot write the samples") }
            return
        }
        if sceneStats { return try printSceneStatistics(input) }
        if let photo = try Prober.photo(path: input) {
            var report = photo.json
            if case .object(var fields) = report { fields.append(("sandbox", Sandbox.report)); report = .object(fields) }
            guard writeAll(1, (json ? shown(json: report.serialized(pretty: true)) : shown(photo.summary)) + "\n") else {
                throw SDRifyError(.outputProblem, "stdout: cannot write the report (\(String(cString: strerror(errno))))")
            }
            return
        }
        let info = try Prober.probe(path: input)
        for w in info.warnings { log("sdrify: warning: \(input): \(w)") }
        var report = info.json
        if case .object(var fields) = report { fields.append(("sandbox", Sandbox.report)); report = .object(fields) }
        guard writeAll(1, (json ? shown(json: report.serialized(pretty: true)) : shown(info.summary)) + "\n") else {
            throw SDRifyError(.outputProblem, "stdout: cannot write the report (\(String(cString: strerror(errno))))")
        }
    }

    /// `--scene-stats`: the input rendered as a conversion would be, into nothing, and the scene tracker's report.
    private func printSceneStatistics(_ input: String) throws {
        let survey = try SceneSurvey.run(
            input: input, start: try CommandOptions.start.value(ifGiven: start?.seconds),
            duration: try CommandOptions.duration.value(ifGiven: duration?.seconds),
            warn: { log("sdrify: warning: \(input): \($0)") })
        var report = survey.json
        if case .object(var fields) = report { fields.append(("sandbox", Sandbox.report)); report = .object(fields) }
        guard writeAll(1, (json ? shown(json: report.serialized(pretty: true)) : shown(Probe.sceneSummary(survey))) + "\n") else {
            throw SDRifyError(.outputProblem, "stdout: cannot write the report (\(String(cString: strerror(errno))))")
        }
    }

    /// One line for the input, then a row per scene.
    static func sceneSummary(_ survey: ExportResult) -> String {
        let head = String(format: "%@: %@, %d pictures, %.3f s", survey.input, survey.hdr.rawValue.uppercased(), survey.frames, survey.duration)
        guard let report = survey.toneMappingDetail, report != .null else {
            return head + "\nnot HDR: sdrify does not tone map it, so there are no scene statistics"
        }
        var lines = [head + "; statistics: " + (report["statistics"]?.text ?? "measured")]
        if let ignored = report["metadata_ignored"]?.text { lines.append("metadata ignored: \(ignored)") }
        lines.append("scene   start (s)  pictures  white  key  peak (cd/m²)  highlights  exposure (stops)")
        for (i, scene) in (report["by_scene"]?.items ?? []).enumerated() {
            func number(_ name: String) -> Double { scene[name]?.number ?? .nan }
            lines.append(
                String(
                    format: "%5d  %10.3f  %8.0f  %5.0f  %4.0f  %12.0f  %10.2f  %16.2f", i + 1, number("start"), number("pictures"),
                    number("white_cd_m2"), number("key_cd_m2"), number("peak_cd_m2"), number("highlights"), number("exposure_stops")))
        }
        return lines.joined(separator: "\n")
    }
}
