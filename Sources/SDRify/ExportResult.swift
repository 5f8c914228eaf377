import Foundation
import SDRifyMedia
import SDRifyOutput
import SDRifyRender
import SDRifyValues

/// What a finished export reports, for every command; its JSON says what each command's report has always said.
package struct ExportResult: Sendable {
    /// Which report it is: a conversion's (convert; hls and the stills with their own fields), a composition's,
    /// or a survey's (`probe --scene-stats`).
    package enum Form: Sendable { case conversion, composition, survey }

    var form: Form
    package var output: String
    /// The export preset's name; nil where the destination sizes the output (hls, the stills).
    var preset: String?
    /// The video codec written ("h264", "hevc", "av1"; "copy" for Passthrough); nil with `preset`.
    var codec: String? = nil
    package var width: Int
    package var height: Int
    package var duration: Double  // seconds of video written
    package var frames: Int
    var toneMapping: String
    /// `--exposure`: the stops added before the tone curve, where one was applied (0: none asked, or SDR input).
    var exposure = 0.0
    /// What `auto` did (scenes, levels, exposure), when a conversion tone mapped.
    package var toneMappingDetail: JSONValue? = nil
    package var decodeErrors: Int  // concealed with --tolerate-errors
    var elapsed: Double  // seconds
    /// The poster written, and the output time it shows.
    var poster: PosterResult? = nil
    /// `--loudness`: the target, the gain, and the sound's loudness before and after.
    var loudness: LoudnessOutcome? = nil

    // A conversion's input.
    package var input = ""
    package var hdr = HDRKind.sdr
    /// What the video's pictures carry (`--range`: sdr, or pq/hlg kept), nil where no video file is written.
    var range: HDRKind? = nil
    var orientationExif = 1
    /// How the input was retimed: its speed, and whether a slow-motion recording was flattened.
    package var speed = Speed.normal
    var slowMotionFlattened = false
    /// A conversion's output rate: the source's, what was asked, or a size preset's ceiling (`RateDecision`).
    var rateDecision: JSONValue? = nil
    /// H.264 slices and HEVC slice segments our own check parsed to their end, and those it left unchecked (BitstreamCheck).
    var slicesChecked: (checked: Int, unchecked: Int)? = nil

    // A composition's clips.
    var frameRate = FrameRate(num: 30, den: 1)
    package var hasAudio = false
    package var clips: [ClipReport] = []
    /// Most clips open at once (never more than two).
    var mostClipsOpen = 0

    /// What the destination adds, after `input` and `output` (a field here says it instead of the conversion's).
    var destinationFields: [(String, JSONValue)] = []
    /// `hls`: the renditions made.
    package var renditions: [HLSRenditionResult] = []

    package var json: JSONValue {
        switch form {
        case .survey:
            return .object([
                ("input", .string(input)), ("hdr", .string(hdr.rawValue)), ("frames", .int(Int64(frames))),
                ("duration", .double(duration)), ("tone_mapping", toneMappingDetail ?? .null)
            ])
        case .composition: return compositionJSON
        case .conversion:
            var fields = conversionFields
            fields.removeAll { entry in destinationFields.contains { $0.0 == entry.0 } }
            fields.insert(contentsOf: destinationFields, at: 2)
            return .object(fields)
        }
    }

    private var conversionFields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("input", .string(input)), ("output", .string(output))]
        if let preset { fields.append(("preset", .string(preset))) }
        if let codec { fields.append(("codec", .string(codec))) }
        if let range { fields.append(("range", .string(range.rawValue))) }
        fields += [
            ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("duration", .double(duration)),
            ("frames", .int(Int64(frames))), ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])), ("tonemap", .string(toneMapping))
        ]
        if exposure != 0 { fields.append(("exposure_ev", .double(exposure))) }
        if let toneMappingDetail { fields.append(("tone_mapping", toneMappingDetail)) }
        fields.append(("speed", .double(speed.value)))
        fields.append(("slow_motion", .string(slowMotionFlattened ? "flattened" : "file timing")))
        if let rateDecision { fields.append(("frame_rate", rateDecision)) }
        if let loudness { fields.append(("loudness", loudness.json)) }
        fields.append(("decode_errors", .int(Int64(decodeErrors))))
        if let slicesChecked {
            fields.append(
                (
                    "bitstream_check",
                    .object([
                        ("slices_checked", .int(Int64(slicesChecked.checked))),
                        ("slices_unchecked", .int(Int64(slicesChecked.unchecked)))
                    ])
                ))
        }
        if let poster { fields.append(("poster", poster.json)) }
        fields.append(("elapsed_s", .double((elapsed * 1000).rounded() / 1000)))
        return fields
    }

    private var compositionJSON: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("output", .string(output)), ("preset", .string(preset ?? "")), ("codec", codec.map(JSONValue.string) ?? .null),
            ("range", .string((range ?? .sdr).rawValue)), ("width", .int(Int64(width))), ("height", .int(Int64(height))),
            ("frame_rate", .string(frameRate.description)), ("fps", .double(frameRate.fps)),
            ("duration", .double(duration)), ("frames", .int(Int64(frames))), ("audio", .bool(hasAudio)),
            ("tonemap", .string(toneMapping))
        ]
        if exposure != 0 { fields.append(("exposure_ev", .double(exposure))) }
        fields += [
            ("clips", .array(clips.map(\.json))), ("decode_errors", .int(Int64(decodeErrors))),
            ("max_clips_open", .int(Int64(mostClipsOpen)))
        ]
        if let poster { fields.append(("poster", poster.json)) }
        if let loudness { fields.append(("loudness", loudness.json)) }
        fields.append(("elapsed_s", .double((elapsed * 1000).rounded() / 1000)))
        return .object(fields)
    }
}
