import ArgumentParser
import Foundation
import SDRify

// The CLI is a thin client of the SDRify library (the dav1d model): it parses arguments, calls one library
// entry point, and turns the outcome into output and an exit status. stdout carries data only.

/// Writes all of `text` to a file descriptor; false if it could not (a closed pipe, a full device). POSIX
/// write, because FileHandle traps on such errors.
@discardableResult
func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Writes one line to stderr (nothing more can be done if stderr itself is gone).
func log(_ line: String) {
    writeAll(2, line + "\n")
}

/// The single `sdrify:` line for a failure (and under `--json` the error object on stdout), then the exit status.
func fail(_ message: String, _ status: Int32) -> Never {
    let oneLine = message.split(whereSeparator: \.isNewline).map(String.init).joined(separator: "; ")
    OutputReservation.release()
    if FailureReport.json { writeAll(1, FailureReport.serialize(FailureReport.object(error: oneLine, status: status))) }
    log("sdrify: \(oneLine)")
    exit(status)
}

struct SDRifyCommand: ParsableCommand {
    static let usage = """
        sdrify IN OUT [--preset NAME] [options]
          sdrify convert IN... --output-dir DIR [--name PATTERN] [--skip-existing] [--jobs N] [options]
          sdrify <subcommand> [options]
        """
    static let examples = """
        EXAMPLES:
          sdrify IMG_0042.MOV out.mp4 --preset 960x540
          sdrify convert ~/Videos/*.MOV --output-dir sdr/ --skip-existing --jobs 2
          sdrify compose a.mov b.mp4 photo.jpg -o film.mp4 --transition fade --music song.m4a

        EXIT STATUS:
          0 done; 1 conversion failed or --max-memory; 2 damaged input; 3 unsupported input or a limit;
          4 output problem; 64 usage; 124 --timeout; 128+n signal n. A batch exits with its worst (highest) status.
        """

    static let configuration = CommandConfiguration(
        commandName: "sdrify",
        abstract: "Turn phone HDR video into SDR H.264 MP4 that plays correctly everywhere.",
        usage: usage,
        discussion: "Every clip comes out upright, tone mapped to BT.709 SDR, H.264/AAC in a fast-start MP4.\n\n" + examples,
        version: SDRifyVersion.report,
        subcommands: [Convert.self, Compose.self, Captions.self, Probe.self, Presets.self],
        defaultSubcommand: Convert.self)

    /// `sdrify --help` and bare `sdrify`: the main form first, then examples, then the commands.
    static var leadingHelp: String {
        let generated = helpMessage()
        let rest = generated.range(of: "\nOPTIONS:").map { String(generated[$0.lowerBound...]) } ?? generated
        let aligned = usage.replacingOccurrences(of: "\n  ", with: "\n       ")  // under "USAGE: "
        return "USAGE: " + aligned + "\n\n" + configuration.abstract + "\n\n" + examples + "\n" + rest
    }
}

/// Captions burned in from the command line, and how SRT/WebVTT ones look.
struct CaptionFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Burn in captions or lyrics from an SRT, WebVTT, ASS, TTML/iTT or SCC file, or input:N for the input's subtitle track N (repeatable).", valueName: "FILE"))
    var captions: [String] = []
    @Option(name: .customLong("caption-size"), help: ArgumentHelp("Text height: a percentage of the short edge or pixels (default 5.5%).", valueName: "SIZE"))
    var size: String?
    @Option(name: .customLong("caption-position"), help: "bottom, top or center.") var position: String?
    @Option(name: .customLong("caption-margin"), help: ArgumentHelp("Distance from the edge: a percentage of the short edge or pixels (default 5%).", valueName: "SIZE"))
    var margin: String?
    @Option(name: .customLong("caption-color"), help: ArgumentHelp("Text colour.", valueName: "#RRGGBB")) var color: String?
    @Option(name: .customLong("caption-outline"), parsing: .unconditional, help: ArgumentHelp("Outline width in pixels (0: none).", valueName: "PIXELS"))
    var outline: Double?
    @Option(name: .customLong("captions-offset"), parsing: .unconditional, help: ArgumentHelp("Time added to every caption (negative: earlier).", valueName: "TIME"))
    var offsetTime: TimeArgument?
    var offset: Double { offsetTime?.seconds ?? 0 }

    var style: CaptionStyle {
        var s = CaptionStyle()
        if let size, let l = Length(parsing: size) { s.look.size = l }
        if let position, let p = CaptionStyle.Position(rawValue: position) { s.position = p }
        if let margin, let l = Length(parsing: margin) { s.margin = l }
        if let color, let c = RGBColor(hex: color) { s.look.color = c }
        if let outline { s.look.outline = outline }
        return s
    }

    var tracks: [CaptionTrack] {
        captions.map { var t = CaptionTrack(file: $0, style: style); t.offset = offset; return t }
    }

    func validate() throws {
        for file in captions where CaptionTrack(file: file).inputTrack == nil && !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--captions: cannot read \(file)")
        }
        if let size, !((Length(parsing: size)?.resolve(against: 100) ?? 0) > 0) { throw ValidationError("--caption-size: expected a percentage like 6% or pixels") }
        if let margin, !((Length(parsing: margin)?.resolve(against: 100) ?? -1) >= 0) { throw ValidationError("--caption-margin: expected a percentage like 5% or pixels") }
        if let position, CaptionStyle.Position(rawValue: position) == nil { throw ValidationError("--caption-position must be bottom, top or center") }
        if let color, RGBColor(hex: color) == nil { throw ValidationError("--caption-color must be a colour like #RRGGBB") }
        if let outline, !(outline >= 0 && outline.isFinite) { throw ValidationError("--caption-outline must be 0 or more pixels") }
    }
}

/// `--poster FILE [--poster-at TIME]`: a still of the output's own picture, written beside it from the same render.
struct PosterFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Also write the output's picture at --poster-at as an image (.jpg, .png or .webp), from the same render.",
                               valueName: "FILE")) var poster: String?
    @Option(name: .customLong("poster-at"), parsing: .unconditional,
            help: ArgumentHelp("When the poster is taken, in output time (default 1 s, or the middle of outputs under 2 s).", valueName: "TIME"))
    var posterAt: TimeArgument?

    var request: PosterRequest? { poster.map { PosterRequest(path: $0, at: posterAt?.seconds) } }

    func validate() throws {
        if posterAt != nil, poster == nil { throw ValidationError("--poster-at needs --poster FILE") }
        if let posterAt, !(posterAt.seconds >= 0) { throw ValidationError("--poster-at must be 0 or more seconds") }
        if let poster, ImageFileType(path: poster) == nil { throw ValidationError("--poster: \(poster) is not a .jpg, .png or .webp file") }
    }
}

/// Containment and limits for services (README "Running sdrify in a service"). Every command that reads media has them.
struct ServiceFlags: ParsableArguments {
    @Flag(name: .customLong("no-sandbox"), help: "Run without the sandbox (for debugging only: see README).") var noSandbox = false
    @Option(name: .customLong("max-pixels"), parsing: .unconditional, help: ArgumentHelp("Refuse pictures larger than this many pixels (exit 3).", valueName: "N"))
    var maxPixels: Int?
    @Option(name: .customLong("max-duration"), parsing: .unconditional, help: ArgumentHelp("Refuse inputs longer than this (exit 3).", valueName: "TIME"))
    var maxDurationTime: TimeArgument?
    var maxDuration: Double? { maxDurationTime?.seconds }
    @Option(name: .customLong("max-memory"), help: ArgumentHelp("Stop (exit 1, no output) if memory use passes this (e.g. 800M, 2G).", valueName: "BYTES"))
    var maxMemory: String?
    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp("Stop (exit 124, no output) after this much wall-clock time.", valueName: "TIME"))
    var timeoutTime: TimeArgument?
    var timeout: Double? { timeoutTime?.seconds }

    func validate() throws {
        if let maxPixels, maxPixels <= 0 { throw ValidationError("--max-pixels must be more than 0") }
        if let maxDuration, !(maxDuration > 0 && maxDuration.isFinite) { throw ValidationError("--max-duration must be more than 0 seconds") }
        if let maxMemory, ServiceFlags.bytes(maxMemory) == nil { throw ValidationError("--max-memory: expected bytes like 800M or 2G, not '\(maxMemory)'") }
        if let timeout, !(timeout > 0 && timeout.isFinite) { throw ValidationError("--timeout must be more than 0 seconds") }
    }

    /// `800M`, `2G`, `1500000000`: decimal or binary suffixes K/M/G (KiB/MiB/GiB are 1024-based).
    static func bytes(_ text: String) -> Int? {
        let units: [(String, Double)] = [("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9),
                                         ("K", 1e3), ("M", 1e6), ("G", 1e9), ("B", 1), ("", 1)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let n = Double(text.dropLast(suffix.count)), n > 0, n * scale < 1e15 else { continue }
            return Int(n * scale)
        }
        return nil
    }

    /// Sets the process up for the run: limits first (the wall clock starts now), then the sandbox is asked for;
    /// it closes once the output is open (`beginOutput`), or at once for commands that write no file.
    func apply(enterNow: Bool) {
        var limits = Limits()
        limits.maxPixels = maxPixels
        limits.maxDuration = maxDuration
        limits.maxMemory = maxMemory.flatMap(ServiceFlags.bytes)
        limits.timeout = timeout
        Limits.apply(limits)
        Sandbox.requested = !noSandbox
        if enterNow { Sandbox.enter() }
    }

    /// Opens the output (unnamed until finished) and closes the sandbox behind it, before any input is read.
    static func beginOutput(path: String, overwrite: Bool, also others: [String] = []) throws {
        try OutputReservation.reserve(path: path, overwrite: overwrite)
        for other in others { try OutputReservation.reserve(path: other, overwrite: overwrite) }
        Sandbox.enter()
    }
}

/// `--background`: a colour, blur[:RADIUS], or a readable image file.
func checkBackground(_ text: String) throws {
    guard let b = Background(argument: text) else {
        throw ValidationError("--background: expected #RRGGBB, blur[:RADIUS] or an image file, not '\(text)'")
    }
    if case .image(let path, _) = b, !FileManager.default.isReadableFile(atPath: path) {
        throw ValidationError("--background: cannot read \(path)")
    }
}

/// What every command that writes a video does around the library call: warnings to stderr (and into the JSON
/// report), progress, the one decision point for signals once the output is in place, the JSON report (or the
/// error as JSON), the summary line.
struct Job {
    let json: Bool
    let quiet: Bool
    let progress: String?
    let output: (path: String, overwrite: Bool)
    let poster: String?   // a second output of the same run

    init(_ flags: EncodingFlags, output: String, overwrite: Bool, poster: String? = nil) {
        json = flags.json; quiet = flags.quiet; progress = flags.progress
        self.output = (output, overwrite)
        self.poster = poster
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
        if Batch.Item.current != nil, case .string(let input)? = FailureReport.identity.first(where: { $0.0 == "input" })?.1 { reporter.input = input }
        do {
            try ServiceFlags.beginOutput(path: output.path, overwrite: output.overwrite, also: poster.map { [$0] } ?? [])
            FailureReport.prepareStops()  // the sandbox's state is known now
            let (report, concealed, summary) = try body(warn, reporter.report)
            if concealed > 0 { warn("concealed \(concealed) decode errors") }
            // The output is in place; until `conclude`, a signal is held and undoes it (one decision point).
            SignalCleanup.checkpoint()
            if json, case .object(var fields) = report {
                fields.append(("warnings", .array(warnings.all.map { .string($0) })))
                fields.append(("sandbox", .string(Sandbox.description)))
                fields += [("status", .string("converted")), ("exit_code", .int(0))]
                // The report is part of the result: if it cannot be written, the conversion has failed (exit 4).
                guard writeAll(1, FailureReport.serialize(.object(fields))) else {
                    SignalCleanup.revokeOutput()
                    fail("stdout: cannot write the JSON report (\(String(cString: strerror(errno)))); the output was removed",
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

/// The options every command that encodes takes, checked in one place.
struct EncodingFlags: ParsableArguments {
    @Option(help: "Export preset (see `sdrify presets`).") var preset: String = ExportPreset.defaultName
    @Option(help: "Tone-mapping operator for HDR input: auto follows each scene's light; fixed curves: \(ToneMapOperator.allCases.filter { $0 != .auto }.map(\.rawValue).joined(separator: ", ")).")
    var tonemap: String = ToneMapOperator.default.rawValue
    @Flag(name: [.customShort("y"), .long], help: "Replace an existing output file.") var overwrite = false
    @Flag(help: "Print a JSON report on stdout when done (and the error object when not).") var json = false
    @Option(parsing: .unconditional, help: "Constant rate factor of the preset's encoder, x264 (H.264) or x265 (HEVC): 0–51, lower is better; default from the preset.")
    var crf: Int?
    @Option(name: [.customLong("encoder-preset"), .customLong("x264-preset")],
            help: "Speed preset of the preset's encoder, x264 (H.264) or x265 (HEVC): ultrafast … veryslow; default from the preset. --x264-preset is the old name.")
    var encoderPreset: String?
    @Option(parsing: .unconditional, help: "Thread budget shared by decoders and encoder, for running several at once (1: one thread in all; 0 = automatic).") var threads: Int = 0
    @Flag(name: [.short, .long], help: "Print nothing but the error line.") var quiet = false
    @Flag(name: .customLong("tolerate-errors"), help: "Conceal decode errors and continue (they are counted) instead of failing.")
    var tolerateErrors = false

    @Flag(name: .customLong("no-bitstream-check"),
          help: "Skip sdrify's own check of HEVC slice data (it finds damage the decoder hides; it costs CPU time in proportion to the bitrate, ~25% for 60 Mbit/s 4K). For inputs you trust.")
    var noBitstreamCheck = false
    @Option(help: ArgumentHelp("Write ffmpeg-style key=value progress blocks to a file descriptor, or - for stdout.", valueName: "FD|-"))
    var progress: String?

    var exportPreset: ExportPreset { ExportPreset.named(preset)! }
    var toneMap: ToneMapOperator { ToneMapOperator(rawValue: tonemap)! }

    func validate() throws {
        guard let exportPreset = ExportPreset.named(preset) else {
            throw ValidationError("unknown preset '\(preset)' (one of: \(ExportPreset.all.map(\.name).joined(separator: ", ")))")
        }
        guard ToneMapOperator(rawValue: tonemap) != nil else {
            throw ValidationError("unknown --tonemap '\(tonemap)' (one of: \(ToneMapOperator.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let codec = exportPreset.codec.catalog
        if let crf, !codec.crfRange.contains(crf) {
            throw ValidationError("--crf must be between \(codec.crfRange.lowerBound) and \(codec.crfRange.upperBound)")
        }
        if let encoderPreset, !codec.speedPresets.contains(encoderPreset) {
            throw ValidationError("--encoder-preset must be one of \(codec.speedPresets.joined(separator: ", ")) (\(codec.shortName))")
        }
        guard threads >= 0 else { throw ValidationError("--threads must be 0 or more") }
        // stdout carries the JSON report alone, so it stays parseable.
        if progress == "-", json { throw ValidationError("--progress - and --json both write to stdout: give --progress a file descriptor (e.g. --progress 2)") }
        if let progress, progress != "-" {
            guard let fd = Int32(progress), fd >= 0 else { throw ValidationError("--progress takes a file descriptor number or -") }
            guard fcntl(fd, F_GETFD) != -1 else { throw ValidationError("--progress: file descriptor \(fd) is not open") }
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
        if let target = fd, !writeAll(target, (input.map { "input=\($0)\n" } ?? "") + p.keyValueBlock) {  // one write per block: it reaches the reader whole
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
        let line = "\r\u{1B}[2Ksdrify: [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(percent) \(String(format: "%.0f", p.fps)) fps\(eta)"
        writeAll(2, line)
        barShown = true
    }

    /// Removes the bar so a log line starts on a clean line.
    func clearBar() {
        lock.lock(); defer { lock.unlock() }
        if barShown { writeAll(2, "\r\u{1B}[2K"); barShown = false }
    }
}

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
        service.apply(enterNow: true)
        if timedMetadata {
            let text = try TimedMetadata.lines(path: input, track: track).map { $0.serialized(pretty: false) + "\n" }.joined()
            guard writeAll(1, text) else { throw SDRifyError(.outputProblem, "stdout: cannot write the samples") }
            return
        }
        let info = try Prober.probe(path: input)
        for w in info.warnings { log("sdrify: warning: \(input): \(w)") }
        var report = info.json
        if case .object(var fields) = report { fields.append(("sandbox", .string(Sandbox.description))); report = .object(fields) }
        guard writeAll(1, (json ? report.serialized(pretty: true) : info.summary) + "\n") else {
            throw SDRifyError(.outputProblem, "stdout: cannot write the report (\(String(cString: strerror(errno))))")
        }
    }
}

struct Captions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a caption file between SRT, WebVTT, ASS, TTML, iTT and SCC (by OUT's extension).",
        discussion: """
        SCC is CEA-608 pop-on at 29.97 fps drop-frame time code. What 608 cannot hold (rows over 32 columns, more than \
        4 rows, characters outside its sets, overlapping captions, captions too close together to load) is an error \
        (exit 2) naming the first problem; --fix repairs each and says what it changed.
        """)

    @Argument(help: "Input captions (SRT, WebVTT, ASS/SSA, TTML/iTT or SCC).") var input: String
    @Argument(help: "Output captions: .srt, .vtt, .ass, .ttml, .itt or .scc.") var output: String
    @Flag(help: "Repair what the output format cannot hold, saying what changed.") var fix = false
    @Option(name: .customLong("offset"), parsing: .unconditional, help: ArgumentHelp("Time added to every caption (negative: earlier).", valueName: "TIME"))
    var offsetTime: TimeArgument?
    @Flag(name: [.customShort("y"), .long], help: "Replace an existing output file.") var overwrite = false
    @Flag(name: [.short, .long], help: "Print nothing but the error line.") var quiet = false
    @OptionGroup var service: ServiceFlags

    var offset: Double { offsetTime?.seconds ?? 0 }

    func run() throws {
        FailureReport.json = false  // it has no report to give
        service.apply(enterNow: false)
        try ServiceFlags.beginOutput(path: output, overwrite: overwrite)
        let result = try CaptionConversion.run(input: input, output: output, fix: fix, offset: offset, overwrite: overwrite)
        SignalCleanup.checkpoint()
        SignalCleanup.conclude()
        guard !quiet else { return }
        for r in result.repairs { log("sdrify: fixed: \(r)") }
        log("sdrify: wrote \(output) (\(result.cues) captions, \(result.format.rawValue))")
    }
}

struct Presets: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the export presets and their encoder settings.")

    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        if json {
            let rows = ExportPreset.all.map { p -> JSONValue in
                .object([("name", .string(p.name)),
                         ("max_long_edge", p.box.map { .int(Int64($0.long)) } ?? .null),
                         ("max_short_edge", p.box.map { .int(Int64($0.short)) } ?? .null),
                         ("video_codec", .string(p.passthrough ? "copy" : p.codec.rawValue)),
                         ("encoder", p.passthrough ? .null : .string(p.codec.catalog.encoder)),
                         ("profile", p.passthrough ? .null : .string(p.codec.catalog.profile)),
                         ("crf", p.passthrough ? .null : .int(Int64(p.crf))),
                         ("encoder_preset", p.passthrough ? .null : .string(p.encoderPreset)),
                         ("audio", .string("AAC-LC copied, or transcoded at 48 kHz, 160 kb/s stereo / 96 kb/s mono")),
                         ("default", .bool(p.name == ExportPreset.defaultName)), ("summary", .string(p.summary))])
            }
            print(JSONValue.array(rows).serialized(pretty: true))
        } else {
            for p in ExportPreset.all {
                let mark = p.name == ExportPreset.defaultName ? " (default)" : ""
                let settings = p.passthrough ? "copy" : "crf \(p.crf), \(p.codec.catalog.shortName) \(p.encoderPreset)"
                print("\(p.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(settings.padding(toLength: 22, withPad: " ", startingAt: 0)) \(p.summary)\(mark)")
            }
        }
    }
}

/// A first word that is no file but close to a command's name is a typo of it ("prob" for "probe"), not an input.
func misspelledCommand(_ word: String) -> String? {
    guard !word.isEmpty, !word.hasPrefix("-"), !word.contains("."), !word.contains("/"),
          !FileManager.default.fileExists(atPath: word) else { return nil }
    let names = SDRifyCommand.configuration.subcommands.map { $0._commandName }
    guard !names.contains(word) else { return nil }
    let typed = Array(word.lowercased())
    let closest = names.map { ($0, editDistance(typed, Array($0))) }.min { $0.1 < $1.1 }!
    return closest.1 <= max(1, closest.0.count / 3) ? closest.0 : nil
}

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions from a to b.
func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    var row = Array(0...b.count)
    for (i, ca) in a.enumerated() {
        var diagonal = row[0]
        row[0] = i + 1
        for (j, cb) in b.enumerated() {
            let above = row[j + 1]
            row[j + 1] = min(above + 1, row[j] + 1, diagonal + (ca == cb ? 0 : 1))
            diagonal = above
        }
    }
    return row[b.count]
}

SignalCleanup.install()  // before anything else, so a signal at any moment ends the run cleanly
MemoryPolicy.install()
silenceFFmpegLogging()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty {  // bare `sdrify`: how to use it, not a complaint about a missing input
    writeAll(2, SDRifyCommand.leadingHelp + "\n")
    exit(ExitStatus.usage.rawValue)
}
if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    print(SDRifyCommand.leadingHelp)
    exit(0)
}
if arguments == ["--version"] || arguments == ["-V"] || arguments == ["version"] {
    print(SDRifyVersion.report)
    exit(0)
}
if let first = arguments.first, let command = misspelledCommand(first) {
    fail("unknown command '\(first)'; did you mean '\(command)'? (see sdrify --help)", ExitStatus.usage.rawValue)
}
do {
    var command = try SDRifyCommand.parseAsRoot(arguments)
    try command.run()
} catch let error as SDRifyError {
    fail(error.message, error.status.rawValue)
} catch {
    let code = SDRifyCommand.exitCode(for: error)
    if code == .success {  // --help, --version
        print(SDRifyCommand.fullMessage(for: error))
        exit(0)
    }
    fail(SDRifyCommand.message(for: error), ExitStatus.usage.rawValue)
}
