import ArgumentParser
import Foundation
import SDRify
import SDRifyCaptions
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
            "Burn in captions or lyrics from an SRT, WebVTT, ASS, TTML/iTT, SCC or LRC file, or input:N for the input's subtitle track N (repeatable).",
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
            "Also write the output's picture at --poster-at as an image (.jpg, .png or .webp), from the same render.",
            valueName: "FILE")) var poster: String?
    @Option(
        name: .customLong("poster-at"), parsing: .unconditional,
        help: ArgumentHelp("When the poster is taken, in output time (default 1 s, or the middle of outputs under 2 s).", valueName: "TIME"))
    var posterAt: TimeArgument?

    var request: PosterRequest? { poster.map { PosterRequest(path: $0, at: posterAt.map { MediaTime(seconds: $0.seconds) }) } }

    func validate() throws {
        if posterAt != nil, poster == nil { throw ValidationError("--poster-at needs --poster FILE") }
        if let posterAt, !(posterAt.seconds >= 0) { throw ValidationError("--poster-at must be 0 or more seconds") }
        if let poster, ImageFileType(path: poster) == nil { throw ValidationError("--poster: \(poster) is not a .jpg, .png or .webp file") }
    }
}

/// Containment and limits for services (docs/service.md). Every command that reads media has them.
struct ServiceFlags: ParsableArguments {
    @Flag(name: .customLong("no-sandbox"), help: "Run without the sandbox (for debugging only: see docs/service.md).") var noSandbox = false
    @Option(
        name: .customLong("max-pixels"), parsing: .unconditional,
        help: ArgumentHelp("Refuse pictures larger than this many pixels (exit 3).", valueName: "N"))
    var maxPixels: Int?
    @Option(
        name: .customLong("max-duration"), parsing: .unconditional, help: ArgumentHelp("Refuse inputs longer than this (exit 3).", valueName: "TIME"))
    var maxDurationTime: TimeArgument?
    var maxDuration: Double? { maxDurationTime?.seconds }
    @Option(
        name: .customLong("max-memory"), help: ArgumentHelp("Stop (exit 1, no output) if memory use passes this (e.g. 800M, 2G).", valueName: "BYTES")
    )
    var maxMemory: String?
    @Option(
        name: .customLong("timeout"), parsing: .unconditional,
        help: ArgumentHelp("Stop (exit 124, no output) after this much wall-clock time.", valueName: "TIME"))
    var timeoutTime: TimeArgument?
    var timeout: Double? { timeoutTime?.seconds }

    func validate() throws {
        if let maxPixels, maxPixels <= 0 { throw ValidationError("--max-pixels must be more than 0") }
        if let maxDuration, !(maxDuration > 0 && maxDuration.isFinite) { throw ValidationError("--max-duration must be more than 0 seconds") }
        if let maxMemory, ServiceFlags.bytes(maxMemory) == nil {
            throw ValidationError("--max-memory: expected bytes like 800M or 2G, not '\(maxMemory)'")
        }
        if let timeout, !(timeout > 0 && timeout.isFinite) { throw ValidationError("--timeout must be more than 0 seconds") }
    }

    /// `800M`, `2G`, `1500000000`: decimal or binary suffixes K/M/G (KiB/MiB/GiB are 1024-based).
    static func bytes(_ text: String) -> Int? {
        let units: [(String, Double)] = [
            ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9),
            ("K", 1e3), ("M", 1e6), ("G", 1e9), ("B", 1), ("", 1)
        ]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let n = Double(text.dropLast(suffix.count)), n > 0, n * scale < 1e15 else { continue }
            return Int(n * scale)
        }
        return nil
    }

    /// Sets the process up for the run: limits first (the wall clock starts now), then the sandbox is asked for;
    /// it closes once the output is open (`beginOutput`), or at once, reading confined to `reads`, for commands
    /// that write no file.
    func apply(enterReading reads: [String]? = nil) {
        var limits = Limits()
        limits.maxPixels = maxPixels
        limits.maxDuration = maxDuration
        limits.maxMemory = maxMemory.flatMap(ServiceFlags.bytes)
        limits.timeout = timeout
        Limits.apply(limits)
        SignalCleanup.watch(limits)
        Sandbox.requested = !noSandbox
        if let reads { Sandbox.enter(reading: reads) }
    }

    /// Opens the output (unnamed until finished) and closes the sandbox behind it, before any input is read: from
    /// then on only `reads` (the job's files) and what the libraries need can be read.
    static func beginOutput(
        path: String, overwrite: Bool, also others: [String] = [], directory: Bool = false, reading reads: [String]
    ) throws {
        if directory {
            try OutputReservation.reserveDirectory(path: path, overwrite: overwrite)
        } else {
            try OutputReservation.reserve(path: path, overwrite: overwrite)
        }
        for other in others { try OutputReservation.reserve(path: other, overwrite: overwrite) }
        Sandbox.enter(reading: reads)
    }
}

/// What convert and hls do to the picture and its timing besides converting it: a turn, a mirror and a crop on top
/// of the file's orientation; a speed and slow motion; stickers, effects and burned-in captions.
struct PictureFlags: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Turn the picture this many degrees clockwise on top of the file's own orientation (a clip filmed lying flat).", valueName: "90|180|270"))
    var rotate: Int?
    @Option(help: ArgumentHelp("Mirror the picture after any --rotate: h (left and right swap) or v (top and bottom).", valueName: "h|v"))
    var flip: String?
    @Option(help: ArgumentHelp("Keep only this part of the picture as it shows (after any --rotate and --flip), in pixels.", valueName: "X,Y,W,H"))
    var crop: String?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Play this many times as fast (0.25 to 4): pictures retimed, sound time-stretched with its pitch kept.", valueName: "X"))
    var speed: Double?
    @Option(
        name: .customLong("speed-audio"),
        help: ArgumentHelp("The sound of a retimed output: keep (time-stretched, pitch kept) or mute.", valueName: "keep|mute"))
    var speedAudio: String = "keep"
    @Option(
        name: .customLong("slow-motion"),
        help: ArgumentHelp(
            "A phone's slow-motion recording: auto plays it as the phone's gallery does (real speed outside its slowed parts); off keeps the file's own timing.",
            valueName: "auto|off"))
    var slowMotion: String = "auto"
    @Option(
        help: ArgumentHelp(
            "Effects, stickers, titles, caption files and a background described in a JSON file (see docs/compose.md).", valueName: "FILE.json"))
    var overlays: String?
    @Option(help: ArgumentHelp("A sticker: FILE@X,Y[,WxH][,START-END]; X, Y, W, H in pixels or percent.", valueName: "SPEC"))
    var sticker: [String] = []
    @OptionGroup var captionFlags: CaptionFlags

    func validate() throws {
        if let rotate, ![0, 90, 180, 270].contains(rotate) {
            throw ValidationError("--rotate must be 90, 180 or 270 (degrees clockwise), not \(rotate)")
        }
        if let flip, Orientation.Flip(rawValue: flip) == nil { throw ValidationError("--flip must be h or v, not '\(flip)'") }
        if let crop, CropRect(argument: crop) == nil {
            throw ValidationError("--crop: expected X,Y,W,H in whole pixels (X and Y 0 or more, W and H 2 or more), not '\(crop)'")
        }
        if let speed, Speed(speed) == nil { throw ValidationError("--speed must be from 0.25 to 4, not \(speed)") }
        if !["keep", "mute"].contains(speedAudio) { throw ValidationError("--speed-audio must be keep or mute, not '\(speedAudio)'") }
        if !["auto", "off"].contains(slowMotion) { throw ValidationError("--slow-motion must be auto or off, not '\(slowMotion)'") }
    }

    /// Into a conversion's options (layer files are read here: a bad one fails before any output exists).
    func apply(to options: inout ConvertOptions) throws {
        if let overlays { options.overlays = try OverlaySpec.load(jsonFile: overlays) }
        options.overlays.stickers += try sticker.map { try OverlaySpec.sticker(shorthand: $0) }
        options.overlays.captions += captionFlags.tracks
        options.speed = speed.flatMap { Speed($0) } ?? .normal
        options.retimedSound = speedAudio == "keep"
        options.flattenSlowMotion = slowMotion == "auto"
        options.framing = Framing(
            turn: Orientation(rotate: rotate ?? 0, flip: flip.flatMap(Orientation.Flip.init(rawValue:))) ?? .up,
            crop: crop.flatMap(CropRect.init(argument:)))
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

/// The options every command that renders the picture takes (convert, compose, hls, thumbnail, sheet, sprites),
/// checked in one place.
struct RenderFlags: ParsableArguments {
    @Option(
        help:
            "Tone-mapping operator for HDR input: auto follows each scene's light; fixed curves: \(ToneMapOperator.allCases.filter { $0 != .auto }.map(\.rawValue).joined(separator: ", "))."
    )
    var tonemap: String = ToneMapOperator.default.rawValue
    @Flag(name: [.customShort("y"), .long], help: "Replace an existing output.") var overwrite = false
    @Flag(help: "Print a JSON report on stdout when done (and the error object when not).") var json = false
    @Option(
        parsing: .unconditional,
        help: "Thread budget shared by decoders and encoder, for running several at once (1: one thread in all; 0 = automatic).") var threads: Int = 0
    @Flag(name: [.short, .long], help: "Print nothing but the error line.") var quiet = false
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

    var toneMap: ToneMapOperator { ToneMapOperator(rawValue: tonemap)! }

    func validate() throws {
        guard ToneMapOperator(rawValue: tonemap) != nil else {
            throw ValidationError("--tonemap: " + unknownChoice("tone-map operator", tonemap, ToneMapOperator.allCases.map(\.rawValue)))
        }
        guard threads >= 0 else { throw ValidationError("--threads must be 0 or more") }
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
    func options(input: String, output: String, preset: ExportPreset = ExportPreset.named(ExportPreset.defaultName)!) -> ConvertOptions {
        var o = ConvertOptions(input: input, output: output, preset: preset)
        o.overwrite = overwrite
        o.threads = threads
        o.toneMap = toneMap
        o.tolerateErrors = tolerateErrors
        o.checkBitstream = !noBitstreamCheck
        return o
    }
}

/// `--loudness LUFS`: the output's sound brought to an integrated loudness (EBU R128), true peak held at −1 dBTP.
struct LoudnessFlag: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Bring the sound to this integrated loudness (EBU R128; -16, -14, -23), true peak held at -1 dBTP by a limiter.",
            valueName: "LUFS"))
    var loudness: Double?

    func validate() throws {
        if let loudness, !ConvertOptions.loudnessTargets.contains(loudness) {
            throw ValidationError("--loudness must be from -70 to 0 LUFS, not \(loudness)")
        }
    }
}

/// `--preset`: the export preset of a command that writes one video (convert, compose; hls sizes by its ladder).
struct PresetFlag: ParsableArguments {
    @Option(help: "Export preset (see `sdrify presets`).") var preset: String = ExportPreset.defaultName

    var exportPreset: ExportPreset { ExportPreset.named(preset)! }

    func validate() throws {
        guard ExportPreset.named(preset) != nil else {
            throw ValidationError(unknownChoice("preset", preset, ExportPreset.all.map(\.name)))
        }
    }
}

/// The options every command that encodes video takes: the render's, and the encoder's.
struct EncodingFlags: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: "Constant rate factor of the preset's encoder, x264 (H.264) or x265 (HEVC): 0–51, lower is better; default from the preset.")
    var crf: Int?
    @Option(
        name: [.customLong("encoder-preset"), .customLong("x264-preset")],
        help:
            "Speed preset of the preset's encoder, x264 (H.264) or x265 (HEVC): ultrafast … veryslow; default from the preset. --x264-preset is the old name."
    )
    var encoderPreset: String?
    @Option(
        name: .customLong("max-bitrate"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Cap the video's bit rate (the encoder's VBV, with CRF below it): 4M, 2500k. hls: one for all renditions, or one per rung in ladder order (repeat it).",
            valueName: "RATE"))
    var maxBitRate: [String] = []
    @OptionGroup var render: RenderFlags

    var bitRateCaps: [BitRate] { maxBitRate.compactMap { BitRate(argument: $0) } }
    var bitRateCap: BitRate? { bitRateCaps.first }
    var toneMap: ToneMapOperator { render.toneMap }
    var overwrite: Bool { render.overwrite }
    var json: Bool { render.json }
    var quiet: Bool { render.quiet }
    var threads: Int { render.threads }
    var tolerateErrors: Bool { render.tolerateErrors }
    var noBitstreamCheck: Bool { render.noBitstreamCheck }
    var progress: String? { render.progress }

    /// convert and compose write one video: one cap.
    func checkOneBitRate() throws {
        if maxBitRate.count > 1 { throw ValidationError("--max-bitrate is given once here (one video), not \(maxBitRate.count) times") }
    }

    func validate() throws {
        // The codec table's ranges, checked by the library (the flags only name the setting; H.264's and HEVC's are
        // the same).
        var output = OutputSpec(path: "", preset: ExportPreset.named(ExportPreset.defaultName)!)
        output.crf = crf; output.encoderPreset = encoderPreset
        if let problem = output.encodingProblem() { throw ValidationError("--\(problem.setting) \(problem.message)") }
        for maxBitRate in maxBitRate where BitRate(argument: maxBitRate) == nil {
            throw ValidationError("--max-bitrate: expected a rate from 50k to 1000M (4M, 2500k), not '\(maxBitRate)'")
        }
    }
}
