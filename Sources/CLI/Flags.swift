import ArgumentParser
import Foundation
import SDRify
import SDRifyCaptions
import SDRifyFiles
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyPresets
import SDRifySecurity
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// Captions burned in from the command line, and how SRT/WebVTT ones look.
struct CaptionFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Burn in captions or lyrics from a file (\(CaptionFormat.names())), or input:N for the input's subtitle track N (repeatable).",
            valueName: "FILE"))
    var captions: [String] = []
    @Option(
        name: .customLong("caption-size"),
        help: ArgumentHelp("Text height: a percentage of the short edge or pixels (default 5.5%).", valueName: "SIZE"))
    var size: String?
    @Option(name: .customLong("caption-position"), help: "bottom, top or center.") var position: String?
    @Option(
        name: .customLong("caption-margin"),
        help: ArgumentHelp("Distance from the edge: a percentage of the short edge or pixels (default 5%).", valueName: "SIZE"))
    var margin: String?
    @Option(name: .customLong("caption-color"), help: ArgumentHelp("Text colour.", valueName: "#RRGGBB")) var color: String?
    @Option(
        name: .customLong("caption-outline"), parsing: .unconditional, help: ArgumentHelp("Outline width in pixels (0: none).", valueName: "PIXELS"))
    var outline: Double?
    @Option(
        name: .customLong("captions-offset"), parsing: .unconditional,
        help: ArgumentHelp("Time added to every caption (negative: earlier).", valueName: "TIME"))
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
        captions.map {
            var t = CaptionTrack(file: $0, style: style); t.offset = offset; return t
        }
    }

    func validate() throws {
        for file in captions where CaptionTrack(file: file).inputTrack == nil && !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--captions: cannot read \(file)")
        }
        if let size, !((Length(parsing: size)?.resolve(against: 100) ?? 0) > 0) {
            throw ValidationError("--caption-size: expected a percentage like 6% or pixels")
        }
        if let margin, !((Length(parsing: margin)?.resolve(against: 100) ?? -1) >= 0) {
            throw ValidationError("--caption-margin: expected a percentage like 5% or pixels")
        }
        if let position, CaptionStyle.Position(rawValue: position) == nil {
            throw ValidationError(
                "--caption-position: " + unknownChoice("caption position", position, CaptionStyle.Position.allCases.map(\.rawValue)))
        }
        if let color, RGBColor(hex: color) == nil { throw ValidationError("--caption-color must be a colour like #RRGGBB") }
        if let outline, !(outline >= 0 && outline.isFinite) { throw ValidationError("--caption-outline must be 0 or more pixels") }
    }
}

/// `--poster FILE [--poster-at TIME]`: a still of the output's own picture, written beside it from the same render.
struct PosterFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also write the output's picture at --poster-at as an image (\(ImageFileType.extensions)), from the same render.",
            valueName: "FILE")) var poster: String?
    @Option(name: CommandOptions.posterAt.long, parsing: .unconditional, help: CommandOptions.posterAt.argumentHelp) var posterAt: TimeArgument?
    @Flag(name: .customLong("gain-map"), help: ArgumentHelp(CommandOptions.gainMapHelp)) var gainMap = false

    var request: PosterRequest? { poster.map { PosterRequest(path: $0, at: posterAt.map { MediaTime(seconds: $0.seconds) }) } }

    func validate() throws {
        if posterAt != nil, poster == nil { throw ValidationError("--poster-at needs --poster FILE") }
        if gainMap, poster == nil { throw ValidationError("--gain-map is for a still: give --poster FILE.jpg") }
        if gainMap, let poster, let problem = ImageFileType.gainMapProblem(poster) { throw ValidationError("--gain-map: " + problem) }
        _ = try CommandOptions.posterAt.checked(posterAt?.seconds)
        if let poster, ImageFileType(path: poster) == nil { throw ValidationError("--poster: \(poster) is not a \(ImageFileType.extensions) file") }
    }
}

/// Containment and limits for services (docs/service.md). Every command that reads media has them.
struct ServiceFlags: ParsableArguments {
    @Flag(name: .customLong("no-sandbox"), help: "Run without the sandbox (for debugging only: see docs/service.md).") var noSandbox = false
    @Option(name: CommandOptions.maxPixels.long, parsing: .unconditional, help: CommandOptions.maxPixels.argumentHelp) var maxPixels: Int?
    @Option(name: CommandOptions.maxDuration.long, parsing: .unconditional, help: CommandOptions.maxDuration.argumentHelp)
    var maxDuration: TimeArgument?
    @Option(name: CommandOptions.maxMemory.long, help: CommandOptions.maxMemory.argumentHelp) var maxMemory: String?
    @Option(name: CommandOptions.timeout.long, parsing: .unconditional, help: CommandOptions.timeout.argumentHelp) var timeout: TimeArgument?

    func validate() throws {
        _ = try CommandOptions.maxPixels.checked(maxPixels)
        _ = try CommandOptions.maxDuration.checked(maxDuration?.seconds)
        _ = try CommandOptions.maxMemory.checked(maxMemory)
        _ = try CommandOptions.timeout.checked(timeout?.seconds)
    }

    /// Sets the process up for the run: limits first (the wall clock starts now), then the sandbox is asked for;
    /// it closes once the output is open (`beginOutput`), or at once, reading confined to `reads`, for commands
    /// that write no file.
    func apply(enterReading reads: [String]? = nil) {
        var limits = Limits()
        limits.maxPixels = maxPixels
        limits.maxDuration = maxDuration?.seconds
        limits.maxMemory = try? CommandOptions.maxMemory.value(ifGiven: maxMemory)
        limits.timeout = timeout?.seconds
        Limits.apply(limits)
        SignalCleanup.watch(limits)
        Sandbox.requested = !noSandbox
        if let reads { Sandbox.enter(reading: reads) }
    }

    /// Opens the output (unnamed until finished) and closes the sandbox behind it, before any input is read: from
    /// then on only `reads` (the job's files) and what the libraries need can be read. An output that cannot be
    /// opened (one already there) is reported when the run reaches it, after every value has been checked.
    static func beginOutput(
        path: String, overwrite: OverwritePolicy, also others: [String] = [], directory: Bool = false, reading reads: [String]
    ) {
        if directory {
            OutputReservation.reserveDirectory(path: path, policy: overwrite)
        } else {
            OutputReservation.reserve(path: path, policy: overwrite)
        }
        for other in others { OutputReservation.reserve(path: other, policy: overwrite) }
        Sandbox.enter(reading: reads)
    }
}

/// What convert and hls do to the picture and its timing besides converting it: a turn, a mirror and a crop on top
/// of the file's orientation; a speed and slow motion; stickers, effects and burned-in captions.
struct PictureFlags: ParsableArguments {
    @Option(name: CommandOptions.rotate.long, parsing: .unconditional, help: CommandOptions.rotate.argumentHelp) var rotate: Int?
    @Option(name: CommandOptions.flip.long, help: CommandOptions.flip.argumentHelp) var flip: String?
    @Option(name: CommandOptions.crop.long, help: CommandOptions.crop.argumentHelp) var crop: String?
    @Option(name: CommandOptions.speed.long, parsing: .unconditional, help: CommandOptions.speed.argumentHelp) var speed: Double?
    @Option(name: CommandOptions.speedAudio.long, help: CommandOptions.speedAudio.argumentHelp) var speedAudio: String = "keep"
    @Option(name: CommandOptions.slowMotion.long, help: CommandOptions.slowMotion.argumentHelp) var slowMotion: String = "auto"
    @Option(help: ArgumentHelp(CommandOptions.overlaysHelp, valueName: "FILE.json")) var overlays: String?
    @Option(help: ArgumentHelp("A sticker: FILE@X,Y[,WxH][,START-END]; X, Y, W, H in pixels or percent.", valueName: "SPEC"))
    var sticker: [String] = []
    @OptionGroup var captionFlags: CaptionFlags

    func validate() throws {
        _ = try CommandOptions.rotate.checked(rotate)
        _ = try CommandOptions.flip.checked(flip)
        _ = try CommandOptions.crop.checked(crop)
        _ = try CommandOptions.speed.checked(speed)
        _ = try CommandOptions.speedAudio.checked(speedAudio)
        _ = try CommandOptions.slowMotion.checked(slowMotion)
    }

    /// Into a conversion (layer files are read here: a bad one fails before any output exists).
    func apply(to conversion: inout Timeline) throws {
        if let overlays { conversion.overlays = try OverlaySpec.load(jsonFile: overlays) }
        conversion.overlays.stickers += try sticker.map { try OverlaySpec.sticker(shorthand: $0) }
        conversion.overlays.captions += captionFlags.tracks
        conversion.clips[0].speed = try CommandOptions.speed.value(ifGiven: speed) ?? .normal
        conversion.carryOver?.retimedSound = try CommandOptions.speedAudio.value(speedAudio)
        conversion.output.flattenSlowMotion = try CommandOptions.slowMotion.value(slowMotion)
        conversion.clips[0].framing = Framing(
            turn: Orientation(rotate: try CommandOptions.rotate.value(ifGiven: rotate) ?? 0, flip: try CommandOptions.flip.value(ifGiven: flip))
                ?? .up,
            crop: try CommandOptions.crop.value(ifGiven: crop))
    }
}

/// What may become of an output already there (`OverwritePolicy`, docs/convert.md "An existing output"): every
/// command that writes a file takes these two.
struct OverwriteFlags: ParsableArguments {
    @Flag(name: [.customShort("y"), .long], help: "Replace an existing output that sdrify made (an earlier run's); never anything else.")
    var overwrite = false
    @Flag(
        name: .customLong("overwrite-original"),
        help: "Replace an existing output whatever made it, an original too (a directory only if it holds nothing but files).")
    var overwriteOriginal = false

    var policy: OverwritePolicy { OverwritePolicy(overwrite: overwrite, overwriteOriginal: overwriteOriginal) }
}

/// `-q`, `--quiet`: every command that reports as it goes takes it.
struct QuietFlag: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print nothing but the error line.") var quiet = false
}

/// The options every command that renders the picture takes (convert, compose, hls, thumbnail, sheet, sprites),
/// checked in one place.
struct RenderFlags: ParsableArguments {
    @Option(name: CommandOptions.toneMap.long, help: CommandOptions.toneMap.argumentHelp) var tonemap: String = ToneMapOperator.default.rawValue
    @OptionGroup var replacing: OverwriteFlags
    @Flag(help: "Print a JSON report on stdout when done (and the error object when not).") var json = false
    @Option(name: CommandOptions.threads.long, parsing: .unconditional, help: CommandOptions.threads.argumentHelp) var threads: Int = 0
    @OptionGroup var quieting: QuietFlag
    var quiet: Bool { quieting.quiet }
    @Flag(name: .customLong("tolerate-errors"), help: "Conceal decode errors and continue (they are counted) instead of failing.")
    var tolerateErrors = false
    @Flag(
        name: .customLong("no-bitstream-check"),
        help:
            "Skip sdrify's own check of H.264 and HEVC slice data (it finds damage the decoder hides; it costs CPU time in proportion to the bitrate, ~25% for 60 Mbit/s 4K). For inputs you trust."
    )
    var noBitstreamCheck = false
    @Option(help: ArgumentHelp("Write ffmpeg-style key=value progress blocks to a file descriptor, or - for stdout.", valueName: "FD|-"))
    var progress: String?

    @Option(name: CommandOptions.exposure.long, parsing: .unconditional, help: CommandOptions.exposure.argumentHelp) var exposure: Double?

    var toneMap: ToneMapping {
        ToneMapping((try? CommandOptions.toneMap.value(tonemap)) ?? .default, exposure: (try? CommandOptions.exposure.value(ifGiven: exposure)) ?? 0)
    }

    func validate() throws {
        _ = try CommandOptions.toneMap.checked(tonemap)
        _ = try CommandOptions.exposure.checked(exposure)
        _ = try CommandOptions.threads.checked(threads)
        // stdout carries the JSON report alone, so it stays parseable.
        if progress == "-", json {
            throw ValidationError("--progress - and --json both write to stdout: give --progress a file descriptor (e.g. --progress 2)")
        }
        if let progress, progress != "-" {
            guard let fd = Int32(progress), fd >= 0 else { throw ValidationError("--progress takes a file descriptor number or -") }
            guard fcntl(fd, F_GETFD) != -1 else { throw ValidationError("--progress: file descriptor \(fd) is not open") }
        }
    }

    /// The conversion these flags ask for, of `input` into `output`.
    func conversion(input: String, output: String, preset: ExportPreset = ExportPreset.named(ExportPreset.defaultName)!) -> Timeline {
        var o = OutputSpec(path: output, preset: preset)
        o.overwrite = replacing.policy
        o.threads = threads
        o.toneMap = toneMap
        o.tolerateErrors = tolerateErrors
        o.checkBitstream = !noBitstreamCheck
        return Timeline.conversion(of: input, into: o)
    }
}

/// `--loudness LUFS`: the output's sound brought to an integrated loudness (EBU R128), true peak held at −1 dBTP.
struct LoudnessFlag: ParsableArguments {
    @Option(name: CommandOptions.loudness.long, parsing: .unconditional, help: CommandOptions.loudness.argumentHelp) var loudness: Double?

    func validate() throws {
        _ = try CommandOptions.loudness.checked(loudness)
    }
}

/// `--preset`: the export preset of a command that writes one video (convert, compose; hls sizes by its ladder).
struct PresetFlag: ParsableArguments {
    @Option(help: "Export preset (see `sdrify presets`).") var preset: String = ExportPreset.defaultName

    var exportPreset: ExportPreset { ExportPreset.named(preset)! }

    func validate() throws {
        guard ExportPreset.named(preset) != nil else {
            throw ValidationError("--preset: " + unknownChoice("preset", preset, ExportPreset.all.map(\.name)))
        }
    }
}

/// The options every command that encodes video takes: the render's, and the encoder's.
struct EncodingFlags: ParsableArguments {
    @Option(name: CommandOptions.codec.long, help: CommandOptions.codec.argumentHelp) var codec: String?
    @Option(
        parsing: .unconditional,
        help:
            "Constant rate factor of the encoder, x264 (H.264) or x265 (HEVC): 0–51, SVT-AV1: 1–63, lower is better; default from the preset.")
    var crf: Int?
    @Option(
        name: [.customLong("encoder-preset"), .customLong("x264-preset")],
        help:
            "Speed preset of the encoder, x264 (H.264) or x265 (HEVC): ultrafast … veryslow, SVT-AV1: 13 (fastest) … 0; default from the preset. --x264-preset is the old name."
    )
    var encoderSpeed: String?
    @Option(name: CommandOptions.maxBitRate.long, parsing: .unconditionalSingleValue, help: CommandOptions.maxBitRate.argumentHelp)
    var maxBitRate: [String] = []
    @OptionGroup var render: RenderFlags

    var bitRateCaps: [BitRate] { maxBitRate.compactMap { try? CommandOptions.maxBitRate.value($0) } }
    var bitRateCap: BitRate? { bitRateCaps.first }
    var toneMap: ToneMapping { render.toneMap }
    var overwrite: OverwritePolicy { render.replacing.policy }
    var json: Bool { render.json }
    var quiet: Bool { render.quiet }
    var threads: Int { render.threads }
    var tolerateErrors: Bool { render.tolerateErrors }
    var noBitstreamCheck: Bool { render.noBitstreamCheck }
    var progress: String? { render.progress }

    /// The render's and the encoder's settings into `output` (the bit-rate cap: the first, for one video).
    func apply(to output: inout OutputSpec) {
        output.overwrite = overwrite
        output.codec = try? CommandOptions.codec.value(ifGiven: codec)
        output.crf = crf
        output.encoderSpeed = encoderSpeed
        output.maxBitRate = bitRateCap
        output.threads = threads
        output.toneMap = toneMap
        output.tolerateErrors = tolerateErrors
        output.checkBitstream = !noBitstreamCheck
    }

    /// convert and compose write one video: one cap.
    func checkOneBitRate() throws {
        if maxBitRate.count > 1 { throw ValidationError("--max-bitrate is given once here (one video), not \(maxBitRate.count) times") }
    }

    func validate() throws {
        // The codec table's ranges, checked by the library (the flags only name the setting; H.264's and HEVC's are
        // the same).
        var output = OutputSpec(path: "", preset: ExportPreset.named(ExportPreset.defaultName)!)
        output.codec = try CommandOptions.codec.value(ifGiven: codec)
        output.crf = crf; output.encoderSpeed = encoderSpeed
        if let problem = output.encodingProblem() { throw ValidationError("--\(problem.setting) \(problem.message)") }
        for cap in maxBitRate { _ = try CommandOptions.maxBitRate.checked(cap) }
    }
}
