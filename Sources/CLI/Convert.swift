import ArgumentParser
import Foundation
import SDRify
import SDRifyFiles
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyPresets
import SDRifyTimeline
import SDRifyValues

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert videos to upright BT.709 SDR H.264/AAC MP4 (the default command).",
        usage: """
            sdrify [convert] IN OUT [options]
              sdrify [convert] IN -o OUT [options]
              sdrify [convert] IN... --output-dir DIR [--name PATTERN] [--skip-existing] [--jobs N] [options]
            """,
        discussion: """
            With --output-dir (or a folder as the last argument) every IN becomes DIR/PATTERN. Files run --jobs at a time, \
            sharing the --threads budget; each is finished or not there at all, also when the batch is interrupted. With \
            --json each file's report is one line (JSON Lines), then a summary line; the exit status is the worst \
            (highest) of the files'.
            """)

    @Argument(help: ArgumentHelp("Input videos, then the output file unless -o or --output-dir names it.", valueName: "IN... OUT"))
    var paths: [String] = []
    @Option(name: [.short, .long], help: ArgumentHelp("Output file (.mp4, .m4v or .mov), for one input.", valueName: "OUT"))
    var output: String?
    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Write every input into this folder (made if missing).", valueName: "DIR"))
    var outputDir: String?
    @Option(
        help: ArgumentHelp(
            "Output file name in --output-dir: {stem} (input name without extension), {name}, {ext}, {index}, {preset}.",
            valueName: "PATTERN")) var name: String = Batch.defaultPattern
    @Flag(name: .customLong("skip-existing"), help: "Skip an input whose output is already there, complete (a file cut short is not skipped).")
    var skipExisting = false
    @Option(name: CommandOptions.jobs.long, parsing: .unconditional, help: CommandOptions.jobs.argumentHelp) var jobs: Int = 1
    @OptionGroup var presetFlag: PresetFlag
    @OptionGroup var encoding: EncodingFlags
    @Option(name: CommandOptions.range.long, help: CommandOptions.range.argumentHelp) var dynamicRange: String?
    @Option(
        name: .customLong("hdr-output"),
        help: ArgumentHelp(
            "Also write the HDR kept (as --range hdr makes it) to this file, from the same decode: OUT is the SDR.", valueName: "FILE"))
    var hdrOutput: String?
    @Option(name: CommandOptions.fps.long, help: CommandOptions.fps.argumentHelp) var fps: String?
    @Option(name: CommandOptions.audioTrack.long, help: CommandOptions.audioTrack.argumentHelp) var audioTrack: String?
    @Option(name: CommandOptions.metadata.long, help: CommandOptions.metadata.argumentHelp) var metadata: String = MetadataPolicy.minimal.rawValue
    @OptionGroup var posterFlags: PosterFlags
    @OptionGroup var sound: LoudnessFlag
    @OptionGroup var picture: PictureFlags
    @Option(name: CommandOptions.start.long, parsing: .unconditional, help: CommandOptions.start.argumentHelp) var start: TimeArgument?
    @Option(name: CommandOptions.duration.long, parsing: .unconditional, help: CommandOptions.duration.argumentHelp) var duration: TimeArgument?
    @Option(
        name: [.customLong("end"), .customLong("to")], parsing: .unconditional,
        help: ArgumentHelp("End the output at this time of the input (instead of --duration).", valueName: "TIME"))
    var end: TimeArgument?
    @Flag(name: .customLong("keep-location"), help: "Keep GPS location metadata (dropped by default).") var keepLocation = false
    @Flag(name: .customLong("no-chapters"), help: "Drop the input's chapters (kept by default, retimed by --start/--duration).") var noChapters =
        false
    @Flag(name: .customLong("no-subtitles"), help: "Drop the input's subtitle tracks (text ones are kept by default, retimed).") var noSubtitles =
        false
    @Option(
        help: ArgumentHelp(
            "Add a soft subtitle track (mov_text) from a caption file, with its ISO 639-2 language (repeatable).",
            valueName: "FILE[:LANG]")) var subtitles: [String] = []
    @Option(name: CommandOptions.background.long, help: CommandOptions.background.argumentHelp) var background: String?
    @OptionGroup var service: ServiceFlags

    /// The inputs and where each goes: one output file, or a folder with a name pattern.
    enum Targets {
        case single(input: String, output: String)
        case folder(inputs: [String], directory: String)
    }

    var targets: Targets {
        get throws {
            if let outputDir {
                guard output == nil else { throw ValidationError("give -o OUT or --output-dir DIR, not both") }
                guard !paths.isEmpty else { throw ValidationError("no inputs: give IN... --output-dir DIR") }
                return .folder(inputs: paths, directory: outputDir)
            }
            if let output {
                guard paths.count == 1 else {
                    throw ValidationError(paths.isEmpty ? "no input: give IN -o OUT" : "-o names one output; for several inputs use --output-dir DIR")
                }
                return .single(input: paths[0], output: output)
            }
            // `sdrify a.mov b.mov sdr/`: a last argument that is a folder is the output folder, as with cp.
            if paths.count >= 2, let last = paths.last, last.hasSuffix("/") || isDirectory(last) {
                return .folder(inputs: Array(paths.dropLast()), directory: last)
            }
            switch paths.count {
            case 0: throw ValidationError("no input: give IN OUT (see sdrify --help)")
            case 1: throw ValidationError("no output: give IN OUT, IN -o OUT, or IN... --output-dir DIR")
            case 2:
                // `sdrify convert dir/*.MOV -y` with two files there: the second is an input, not the output.
                if encoding.render.replacing.policy != .anything, FileManager.default.fileExists(atPath: paths[1]),
                    !ExistingOutput.sameFile(paths[0], paths[1]), !ExistingOutput.madeBySdrify(file: paths[1])
                {
                    throw ValidationError(
                        "\(paths[1]): exists and sdrify did not make it: two inputs? Convert both with --output-dir DIR (--overwrite-original replaces it)"
                    )
                }
                return .single(input: paths[0], output: paths[1])
            default: throw ValidationError("\(counted(paths.count, "file")) given: for several inputs name the output folder with --output-dir DIR")
            }
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var dir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir.boolValue
    }

    /// The part of the input to convert, in input seconds.
    var range: (start: Double?, duration: Double?) {
        let from = start?.seconds
        if let end { return (from, end.seconds - (from ?? 0)) }
        return (from, duration?.seconds)
    }

    func validate() throws {
        try encoding.checkOneBitRate()
        _ = try CommandOptions.jobs.checked(jobs)
        let targets = try targets
        if case .single = targets {
            if name != Batch.defaultPattern { throw ValidationError("--name applies to --output-dir only") }
            if jobs != 1 { throw ValidationError("--jobs applies to --output-dir only (one input converts with --threads)") }
        }
        if case .folder(let inputs, let directory) = targets {
            _ = try Batch.plan(inputs: inputs, directory: directory, pattern: name, preset: presetFlag.preset)
        }
        _ = try CommandOptions.start.checked(start?.seconds)
        _ = try CommandOptions.duration.checked(duration?.seconds)
        if let end {
            guard duration == nil else { throw ValidationError("give --duration or --end, not both") }
            guard end.seconds > (start?.seconds ?? 0) else { throw ValidationError("--end must be after --start (and after 0)") }
        }
        _ = try CommandOptions.background.checked(background)
        _ = try CommandOptions.fps.checked(fps)
        let range = try CommandOptions.range.value(ifGiven: dynamicRange)
        if range != nil || hdrOutput != nil, let preset = ExportPreset.named(presetFlag.preset) {
            var output = OutputSpec(path: "", preset: preset)
            encoding.apply(to: &output)
            output.range = range ?? .sdr
            output.hdrOutput = hdrOutput
            if let problem = output.encodingProblem() { throw ValidationError("--\(problem.setting) \(problem.message)") }
        }
        if hdrOutput != nil {
            if range == .hdr { throw ValidationError("--hdr-output writes the HDR beside an SDR OUT: leave --range hdr out") }
            if case .folder = targets { throw ValidationError("--hdr-output names one file: it applies to one input") }
        }
        _ = try CommandOptions.metadata.checked(metadata)
        _ = try CommandOptions.audioTrack.checked(audioTrack)
        if posterFlags.poster != nil, case .folder = targets { throw ValidationError("--poster names one file: it applies to one input") }
        for entry in subtitles {
            let (file, _) = Convert.subtitleEntry(entry)
            guard FileManager.default.isReadableFile(atPath: file) else { throw ValidationError("--subtitles: cannot read \(file)") }
        }
    }

    /// `FILE[:LANG]`: a two- or three-letter suffix after the last colon is the language.
    static func subtitleEntry(_ text: String) -> (file: String, language: String?) {
        if let colon = text.lastIndex(of: ":") {
            let lang = text[text.index(after: colon)...]
            if (2...3).contains(lang.count), lang.allSatisfy({ $0.isASCII && $0.isLetter }) { return (String(text[..<colon]), lang.lowercased()) }
        }
        return (text, nil)
    }

    func run() throws {
        switch try targets {
        case .single(let input, let output):
            try convert(input: input, output: output, threads: encoding.threads)
        case .folder(let inputs, let directory):
            let plan = try Batch.plan(inputs: inputs, directory: directory, pattern: name, preset: presetFlag.preset)
            if let item = Batch.Item.current {  // one file of a batch, in its own process
                FailureReport.compact = true
                try convert(input: plan[item.index].input, output: plan[item.index].output, threads: item.threads)
            } else {
                try Batch.run(plan, directory: directory, jobs: jobs, threads: encoding.threads, json: encoding.json, quiet: encoding.quiet)
            }
        }
    }

    private func convert(input: String, output: String, threads: Int) throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(output))]
        service.apply()
        if skipExisting, FinishedOutput.isComplete(path: output) {
            if encoding.json {
                writeAll(1, FailureReport.serialize(.object(FailureReport.identity + [("status", .string("skipped")), ("exit_code", .int(0))])))
            } else if !encoding.quiet {
                log("sdrify: skipped \(output) (already there, complete)")
            }
            return
        }
        var output = OutputSpec(path: output, preset: presetFlag.exportPreset)
        encoding.apply(to: &output)
        output.threads = threads
        output.loudness = sound.loudness
        output.choose(try CommandOptions.fps.value(ifGiven: fps))
        output.range = try CommandOptions.range.value(ifGiven: dynamicRange) ?? .sdr
        output.hdrOutput = hdrOutput
        output.poster = posterFlags.request
        output.gainMap = posterFlags.gainMap
        if let background = try CommandOptions.background.value(ifGiven: background) { output.background = background }
        var keep = CarryOverSpec()
        keep.keepLocation = keepLocation
        keep.keepChapters = !noChapters
        keep.keepSubtitles = !noSubtitles
        keep.subtitleFiles = subtitles.map(Convert.subtitleEntry)
        keep.audioTrack = try CommandOptions.audioTrack.value(ifGiven: audioTrack) ?? .automatic
        keep.metadata = try CommandOptions.metadata.value(metadata)
        var conversion = Timeline.conversion(of: try StreamInput.readable(input), into: output, keeping: keep)
        conversion.clips[0].from = range.start.map { MediaTime(seconds: $0) }
        conversion.clips[0].duration = range.duration.map { MediaTime(seconds: $0) }
        try picture.apply(to: &conversion)
        let request = ExportRequest(conversion)
        let also = [output.poster?.path, output.hdrOutput].compactMap { $0 }
        try Job(encoding, output: output.path, overwrite: encoding.overwrite, also: also, reads: request.filesRead).run {
            warn, report in
            let result = try Export.run(request, warn: warn, progress: report)
            return (
                result.json, result.decodeErrors,
                "sdrify: wrote \(result.output) (\(result.width)x\(result.height), \(counted(result.frames, "frame")))"
            )
        }
    }
}
