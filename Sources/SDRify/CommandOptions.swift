import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// An option of the command line declared once, as mpv's option tables do: its long name, what its value is
/// called, its help, how the text the parser gives becomes the library's value, and the one message for a value it
/// refuses (naming the option and its range). The CLI declares its flags from these and reads every value through
/// `value`, so each command that takes an option checks it the same way, with the same words.
package struct CommandOption<Text: Sendable, Value: Sendable>: Sendable {
    package let name: String
    package let valueName: String?
    package let help: String
    private let read: @Sendable (Text) -> Value?
    private let refusal: @Sendable (Text) -> String

    init(
        _ name: String, _ valueName: String? = nil, help: String, read: @escaping @Sendable (Text) -> Value?,
        refusal: @escaping @Sendable (Text) -> String
    ) {
        self.name = name; self.valueName = valueName; self.help = help; self.read = read; self.refusal = refusal
    }

    /// The value `text` stands for, or the usage error (exit 64) that names the option and what it takes.
    package func value(_ text: Text) throws -> Value {
        guard let value = read(text) else { throw SDRifyError.usage(refusal(text)) }
        return value
    }

    /// An option not given has no value; one given is read as above.
    package func value(ifGiven text: Text?) throws -> Value? { try text.map { try value($0) } }
}

/// A time option in seconds (the CLI parses `90`, `1.5` or `[HH:]MM:SS[.mmm]`) that must be 0 or more, or more than 0.
private func time(_ name: String, _ help: String, positive: Bool) -> CommandOption<Double, MediaTime> {
    CommandOption(
        name, "TIME", help: help,
        read: { s in (positive ? s > 0 : s >= 0) && s.isFinite ? MediaTime(seconds: s) : nil },
        refusal: { _ in positive ? "--\(name) must be more than 0 seconds" : "--\(name) must be 0 or more seconds" })
}

/// A number within `range` (the message names it, and `unit` after it), made into the library's value.
private func ranged<Value: Sendable>(
    _ name: String, _ valueName: String?, help: String, _ range: ClosedRange<Double>, unit: String = "",
    _ make: @escaping @Sendable (Double) -> Value?
) -> CommandOption<Double, Value> {
    CommandOption(
        name, valueName, help: help, read: { range.contains($0) ? make($0) : nil },
        refusal: { "--\(name) must be \(range.spoken)\(unit.isEmpty ? "" : " " + unit), not \($0)" })
}

/// One of a few words.
private func choice<Value: Sendable>(_ name: String, help: String, _ choices: [(String, Value)]) -> CommandOption<String, Value> {
    let words = choices.map(\.0)
    return CommandOption(
        name, words.joined(separator: "|"), help: help, read: { text in choices.first { $0.0 == text }?.1 },
        refusal: { "--\(name) must be \(spokenList(words)), not '\($0)'" })
}

/// The options several commands take, and those whose range is the library's.
package enum CommandOptions {
    // The part of the input, and when a still is taken.
    package static let start = time("start", "Start the output this far into the input (frame-accurate).", positive: false)
    package static let duration = time("duration", "Make the output this long.", positive: true)
    package static let posterAt = time(
        "poster-at", "When the poster is taken, in output time (default 1 s, or the middle of outputs under 2 s).", positive: false)
    package static let at = time("at", "The picture at this time (default 1 s, or the middle of a video under 2 s).", positive: false)
    package static let imageDuration = time("image-duration", "How long each image is shown (default 3 s).", positive: true)

    // The picture's timing.
    package static let fps = CommandOption<String, RateChoice>(
        "fps",
        help:
            "Constant output frame rate (30, 29.97, 30000/1001): each output time shows the source picture nearest to it; default: the source's own picture times (a variable rate stays variable; compose: the first video clip's rate), at most 60 with a size preset (120 and 240 fps keep every 2nd or 4th picture); source: the source's own, above 60 too.",
        read: { RateChoice(parsing: $0) }, refusal: { _ in "--fps must be a rate \(FrameRate.valid.spoken) (30, 29.97 or 30000/1001) or source" })
    package static let speed = ranged(
        "speed", "X", help: "Play this many times as fast (\(Speed.valid.spoken)): pictures retimed, sound time-stretched with its pitch kept.",
        Speed.valid
    ) { Speed($0) }
    package static let speedAudio = choice(
        "speed-audio", help: "The sound of a retimed output: keep (time-stretched, pitch kept) or mute.", [("keep", true), ("mute", false)])
    package static let slowMotion = choice(
        "slow-motion",
        help:
            "A phone's slow-motion recording: auto plays it as the phone's gallery does (real speed outside its slowed parts); off keeps the file's own timing.",
        OutputSpec.slowMotionChoices.map { ($0.word, $0.flattens) })

    // The picture's framing.
    package static let rotate = CommandOption<Int, Int>(
        "rotate", "90|180|270", help: "Turn the picture this many degrees clockwise on top of the file's own orientation (a clip filmed lying flat).",
        read: { [0, 90, 180, 270].contains($0) ? $0 : nil }, refusal: { "--rotate must be 90, 180 or 270 (degrees clockwise), not \($0)" })
    package static let flip = CommandOption<String, Orientation.Flip>(
        "flip", "h|v", help: "Mirror the picture after any --rotate: h (left and right swap) or v (top and bottom).",
        read: { Orientation.Flip(rawValue: $0) }, refusal: { "--flip must be h or v, not '\($0)'" })
    package static let crop = CommandOption<String, CropRect>(
        "crop", "X,Y,W,H", help: "Keep only this part of the picture as it shows (after any --rotate and --flip), in pixels.",
        read: { CropRect(argument: $0) },
        refusal: { "--crop: expected X,Y,W,H in whole pixels (X and Y 0 or more, W and H 2 or more), not '\($0)'" })
    package static let background = CommandOption<String, Background>(
        "background", "#RRGGBB|blur|FILE",
        help: "Behind a letterboxed picture, and the picture of an audio-only input: a colour, blur[:RADIUS] or an image file.",
        read: { text in
            guard let b = Background(argument: text) else { return nil }
            if case .image(let path, _) = b, !FileManager.default.isReadableFile(atPath: path) { return nil }
            return b
        },
        refusal: { text in
            if case .image(let path, _)? = Background(argument: text) { return "--background: cannot read \(path)" }
            return "--background: expected #RRGGBB, blur[:RADIUS] or an image file, not '\(text)'"
        })
    package static let fit = CommandOption<String, Fit>(
        "fit", help: "contain: whole picture on the background; cover: fill, centre cropped; stretch: fill, shape lost.",
        read: { Fit(rawValue: $0) }, refusal: { "--fit: " + unknownChoice("fit", $0, Fit.allCases.map(\.rawValue)) })
    package static let toneMap = CommandOption<String, ToneMapOperator>(
        "tonemap",
        help:
            "Tone-mapping operator for HDR input: auto follows each scene's light; fixed curves: \(ToneMapOperator.allCases.filter { $0 != .auto }.map(\.rawValue).joined(separator: ", ")).",
        read: { ToneMapOperator(rawValue: $0) },
        refusal: { "--tonemap: " + unknownChoice("tone-map operator", $0, ToneMapOperator.allCases.map(\.rawValue)) })
    package static let exposure = ranged(
        "exposure", "EV",
        help:
            "Make HDR input this many stops brighter or darker (\(ToneMapping.exposures.spoken)) than the scene's own exposure, before its tone curve.",
        ToneMapping.exposures, unit: "stops"
    ) { $0 }

    // What is kept of the input.
    package static let audioTrack = CommandOption<String, AudioTrackChoice>(
        "audio-track", "N|LANG|all",
        help: "Which audio to keep: a track's index (as probe lists it), a language (eng, fra…) or all (each with its language).",
        read: { AudioTrackChoice(argument: $0) },
        refusal: { "--audio-track: expected a track number, a language code (eng, fra…) or all, not '\($0)'" })
    /// `hls`: the one track that is the audio rendition.
    package static let audioRendition = CommandOption<String, AudioTrackChoice>(
        "audio-track", "N|LANG", help: "Which audio track is the audio rendition: a track's index (as probe lists it) or a language.",
        read: { $0.lowercased() == "all" ? nil : AudioTrackChoice(argument: $0) },
        refusal: { "--audio-track: expected a track number or a language code (eng, fra…), not '\($0)'" })
    package static let metadata = CommandOption<String, MetadataPolicy>(
        "metadata", "minimal|keep",
        help:
            "minimal: the creation time (and location with --keep-location); keep: every tag people rely on (make, model, software, location, Apple and Android keys).",
        read: { MetadataPolicy(rawValue: $0) }, refusal: { "--metadata must be minimal or keep, not '\($0)'" })

    // The sound.
    package static let loudness = ranged(
        "loudness", "LUFS",
        help: "Bring the sound to this integrated loudness (EBU R128; -16, -14, -23), true peak held at -1 dBTP by a limiter.",
        OutputSpec.loudnessTargets, unit: "LUFS"
    ) { $0 }
    package static let musicVolume = CommandOption<Double, Double>(
        "music-volume", help: "Linear gain of the music (1 = as recorded).", read: { $0 >= 0 && $0.isFinite ? $0 : nil },
        refusal: { _ in "--music-volume must be 0 or more" })

    // The encoder and the render.
    package static let maxBitRate = CommandOption<String, BitRate>(
        "max-bitrate", "RATE",
        help:
            "Cap the video's bit rate (the encoder's VBV, with CRF below it): 4M, 2500k. hls: one for all renditions, or one per rung in ladder order (repeat it).",
        read: { BitRate(argument: $0) }, refusal: { "--max-bitrate: expected a rate from 50k to 1000M (4M, 2500k), not '\($0)'" })
    package static let threads = CommandOption<Int, Int>(
        "threads",
        help: "Thread budget shared by decoders and encoder, for running several at once (1: one thread in all; 0 = automatic).",
        read: { $0 >= 0 ? $0 : nil }, refusal: { _ in "--threads must be 0 or more" })
    package static let jobs = CommandOption<Int, Int>(
        "jobs", "N", help: "Convert this many files side by side (they share the --threads budget).",
        read: { (1...maxJobs).contains($0) ? $0 : nil }, refusal: { _ in "--jobs must be from 1 to \(maxJobs)" })
    /// The most files a batch converts side by side.
    package static let maxJobs = 64

    // hls.
    package static let segment = ranged(
        "segment", "SECONDS", help: "Segment length (\(HLSSpec.segmentLengths.spoken) seconds).", HLSSpec.segmentLengths, unit: "seconds"
    ) { MediaTime(seconds: $0) }
    package static let ladder = CommandOption<String, Ladder>(
        "ladder", "RUNGS", help: "The renditions' short edges, largest first (default 1080,720,480,360).",
        read: { try? Ladder.parse($0).get() },
        refusal: { text in
            let entry: String
            if case .failure(let e) = Ladder.parse(text) { entry = e.entry } else { entry = text }
            return "--ladder: '\(entry)' is not a rung (a short edge from \(Ladder.validRungs.lowerBound) to \(Ladder.validRungs.upperBound) pixels)"
        })
    package static let codec = choice(
        "codec", help: "The video codec: h264 (x264, High), hevc (x265, Main, hvc1) or av1 (SVT-AV1, Main, av01; MP4 only); default: the preset's.",
        VideoCodec.allCases.map { ($0.rawValue, $0) })

    package static let range = choice(
        "range",
        help:
            "sdr: every source tone mapped to BT.709 SDR (default); hdr: the HDR kept (10-bit BT.2020, PQ or HLG as the source has it; "
            + "HEVC Main 10 unless --codec av1).",
        RangeRequest.allCases.map { ($0.rawValue, $0) })

    package static let ranges = CommandOption<String, [RangeRequest]>(
        "ranges", "LIST",
        help: "The ladders made from one decode: sdr (default), hdr (the HDR kept: HEVC Main 10 unless --codec av1), or sdr,hdr (both).",
        read: { HLSSpec.ranges($0) }, refusal: { "--ranges must be sdr, hdr or sdr,hdr, not '\($0)'" })

    /// `--overlays`' help, for every command that takes it.
    package static let overlaysHelp =
        "Effects, stickers, titles, caption files and a background described in a JSON file, on the output's clock (see docs/compose.md)."

    /// `--gain-map`'s help, for every command that takes it.
    package static let gainMapHelp =
        "HDR input: the still (a .jpg) also carries a gain map from the HDR picture (Ultra HDR, ISO 21496-1): HDR screens show it bright."

    // Limits for services.
    package static let maxPixels = CommandOption<Int, Int>(
        "max-pixels", "N", help: "Refuse pictures larger than this many pixels (exit 3).", read: { $0 > 0 ? $0 : nil },
        refusal: { _ in "--max-pixels must be more than 0" })
    package static let maxDuration = time("max-duration", "Refuse inputs longer than this (exit 3).", positive: true)
    package static let timeout = time("timeout", "Stop (exit 124, no output) after this much wall-clock time.", positive: true)
    package static let maxMemory = CommandOption<String, Int>(
        "max-memory", "BYTES", help: "Stop (exit 1, no output) if memory use passes this (e.g. 800M, 2G).", read: { bytes($0) },
        refusal: { "--max-memory: expected bytes like 800M or 2G, not '\($0)'" })

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
}
