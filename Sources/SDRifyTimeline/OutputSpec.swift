import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

/// A still of the output written beside it (`--poster FILE --poster-at TIME`).
package struct PosterRequest: Sendable {
    package var path: String
    package var at: MediaTime? = nil  // output time; nil: the default time

    package init(path: String, at: MediaTime? = nil) { self.path = path; self.at = at }

    /// 1 s in, or the middle of outputs shorter than 2 s.
    package static func defaultTime(outputLength: MediaTime?) -> MediaTime {
        guard let d = outputLength, d < 2 else { return 1 }
        return d.half
    }
}

/// How a conversion's picture is sized.
package enum OutputSize: Sendable, Equatable {
    /// Inside the preset's box, whichever way round the picture is (convert, thumbnail by default).
    case preset
    /// Inside `width`×`height` as given, not turned with the picture (`thumbnail --size`, sprite tiles, sheet tiles).
    case box(width: Int, height: Int)
    /// A ladder's renditions (`hls`): rendered at the top one's size (RenderPlan.renditions).
    case ladder(Ladder)
}

/// The output: where, at what size and rate, and how it is encoded.
package struct OutputSpec: Sendable {
    package var path: String
    /// The preset as named (`--preset`, EDIT.json's "preset").
    package var namedPreset: ExportPreset
    /// What is written: the named preset with `--codec`'s codec, or (`--range hdr` without `--codec`) HEVC where its
    /// own codec does not carry HDR; its CRF and speed translated (ExportPreset.encoded(with:)).
    package var preset: ExportPreset {
        let own = namedPreset.codec
        let fallback = range == .hdr && own.catalog.hdrProfile == nil ? VideoCodec.hevc : own
        return namedPreset.encoded(with: codec ?? fallback)
    }
    package var fps: FrameRate? = nil  // nil: the first video clip's (a size preset's: at most its ceiling)
    package var keepSourceRate = false  // --fps source: the source's rate, above the ceiling too
    package var background = Background.black
    package var fit = Fit.contain
    package var imageDuration: MediaTime = 3  // for images given without one
    package var overwrite = OverwritePolicy.keep
    /// `--codec`: the preset is written with this codec instead of its own.
    package var codec: VideoCodec? = nil
    /// `--range`: SDR, or the HDR kept where the source has it.
    package var range = RangeRequest.sdr
    /// `--hdr-output`: the HDR kept also written to this file, from the same render (the output itself is SDR).
    package var hdrOutput: String? = nil
    /// `--gain-map`: stills (a poster, a thumbnail) of HDR input carry a gain map from the HDR picture.
    package var gainMap = false
    /// Whether an output keeps the HDR (`--range hdr`, `--hdr-output`): the codec must carry it.
    package var writesHDR: Bool { range == .hdr || hdrOutput != nil }
    /// Whether the render may keep the HDR (also for a gain map), so the input's HDR metadata is read first.
    package var mayRenderHDR: Bool { writesHDR || gainMap }

    /// What the render carries, given its first HDR source's kind (nil: none is HDR): the HDR kept when an output
    /// keeps it, or a gain map has HDR to keep (an SDR output or still beside it is tone mapped from it once); else SDR.
    package func renderKind(firstHDRSource: HDRKind?) -> HDRKind {
        if writesHDR { return RangeRequest.hdr.kind(firstHDRSource: firstHDRSource) }
        if gainMap, let kind = firstHDRSource { return kind }
        return .sdr
    }
    package var crf: Int? = nil
    package var encoderSpeed: String? = nil
    package var maxBitRate: BitRate? = nil  // --max-bitrate
    package var loudness: Double? = nil  // --loudness: the sound's integrated loudness (LUFS), true peak held at −1 dBTP
    package static let loudnessTargets: ClosedRange<Double> = -70...0
    package var threads = 0
    package var toneMap = ToneMapping.default
    package var tolerateErrors = false
    package var checkBitstream = true  // H.264 and HEVC slice data checked by our own parser (BitstreamCheck)
    package var poster: PosterRequest? = nil
    /// Play a phone's slow-motion recordings as its gallery does (`--slow-motion auto`, `"slow_motion"`); false keeps
    /// the file's own timing.
    package var flattenSlowMotion = true
    /// The path is a video file (its extension names the container); false for outputs whose sinks check their own
    /// paths (an HLS directory, images).
    package var isVideoFile = true
    /// The size a conversion's picture is rendered at (the preset's box unless asked otherwise).
    package var size = OutputSize.preset

    package init(path: String, preset: ExportPreset) { self.path = path; self.namedPreset = preset }

    /// The words that choose `flattenSlowMotion` (`--slow-motion`, `"slow_motion"`): the one list both read.
    package static let slowMotionChoices: [(word: String, flattens: Bool)] = [("auto", true), ("off", false)]

    /// The encoder's settings against the codec table: nil when they fit, else which setting ("crf" or
    /// "encoder-preset") and what is wrong with it.
    package func encodingProblem() -> (setting: String, message: String)? {
        if codec != nil, preset.passthrough { return ("codec", "does not apply to Passthrough, which copies the streams as they are") }
        if !preset.passthrough, let missing = CodecCatalog.unavailable(preset.codec) { return ("codec", missing) }
        if writesHDR {
            if preset.passthrough { return ("range", "does not apply to Passthrough, which copies the streams as they are") }
            var kept = self
            kept.range = .hdr
            if let problem = CodecCatalog.rangeProblem(kept.preset.codec, kind: .hlg) { return ("codec", problem) }
        }
        let codec = preset.codec.catalog
        if let crf, !codec.crfRange.contains(crf) {
            return ("crf", "must be between \(codec.crfRange.lowerBound) and \(codec.crfRange.upperBound)")
        }
        if let encoderSpeed, !codec.speedPresets.contains(encoderSpeed) {
            return ("encoder-preset", "must be one of \(codec.speedPresets.joined(separator: ", ")) (\(codec.shortName)), not '\(encoderSpeed)'")
        }
        return nil
    }

    /// How its inputs are decoded.
    package var decodeSettings: DecodeSettings {
        var s = DecodeSettings()
        s.tolerateErrors = tolerateErrors; s.checkBitstream = checkBitstream; s.threads = threads
        return s
    }

    /// The encoder's settings, with its share of the thread budget, for pictures of `range` (with the static HDR
    /// metadata `hdr` to carry).
    package func encoderSettings(threads: Int, range: HDRKind = .sdr, hdr: HDRMetadata = HDRMetadata()) -> VideoEncoderSettings {
        VideoEncoderSettings(
            codec: preset.codec, crf: crf ?? preset.crf, speed: encoderSpeed ?? preset.encoderSpeed, threads: threads, maxBitRate: maxBitRate,
            range: range, hdr: hdr)
    }
}

extension OutputSpec {
    /// `--fps` into the output: a rate, or the source's own.
    package mutating func choose(_ choice: RateChoice?) {
        switch choice {
        case .rate(let r)?: fps = r
        case .source?: keepSourceRate = true
        case nil: break
        }
    }
}
