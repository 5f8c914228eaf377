import ArgumentParser
import Foundation
import SDRifyTimeline
import SDRifyValues
import SDRifyLayers
import SDRify

struct Compose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join clips, photos and colours into one upright SDR H.264/AAC video, with transitions and music.",
        discussion: """
            CLIP is a video, an image (shown --image-duration seconds) or color:#RRGGBB[:SECONDS]. Or describe the edit in a \
            JSON file with --timeline (see docs/compose.md); its values win over the options.
            """)

    @Argument(help: ArgumentHelp("Clips in order.", valueName: "CLIP")) var clips: [String] = []
    @Option(help: ArgumentHelp("An edit description (JSON) instead of CLIP arguments.", valueName: "EDIT.json")) var timeline: String?
    @Option(name: [.short, .long], help: "Output file (.mp4, .m4v or .mov).") var output: String
    @Option(help: "Output frame rate (30, 29.97, 30000/1001); default: the first video clip's.") var fps: String?
    @Option(
        help: ArgumentHelp(
            "Between every two clips: \(TransitionKind.allCases.map(\.rawValue).joined(separator: ", ")) (crossfade = fade); SECONDS default 0.5.",
            valueName: "TYPE[:SECONDS]")) var transition: String = "none"
    @Option(help: "contain: whole picture on the background; cover: fill, centre cropped; stretch: fill, shape lost.") var fit: String = Fit.contain
        .rawValue
    @Option(
        help: ArgumentHelp(
            "Behind contained clips: a colour, blur[:RADIUS] (the clip itself, blurred) or an image file (covering the frame).",
            valueName: "#RRGGBB|blur|FILE")) var background: String = "#000000"
    @Option(
        name: .customLong("image-duration"), parsing: .unconditional,
        help: ArgumentHelp("How long each image is shown (default 3 s).", valueName: "TIME"))
    var imageTime: TimeArgument?
    var imageDuration: Double { imageTime?.seconds ?? 3 }
    @Option(help: "Music mixed under the clips' own sound, looped or cut to the video.") var music: String?
    @Option(name: .customLong("music-volume"), parsing: .unconditional, help: "Linear gain of the music (1 = as recorded).") var musicVolume: Double =
        1
    @Option(help: ArgumentHelp("Stickers and captions (JSON) on the output's clock.", valueName: "FILE.json")) var overlays: String?
    @OptionGroup var captionFlags: CaptionFlags
    @OptionGroup var presetFlag: PresetFlag
    @OptionGroup var encoding: EncodingFlags
    @OptionGroup var sound: LoudnessFlag
    @OptionGroup var posterFlags: PosterFlags
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        try encoding.checkOneBitRate()
        if timeline != nil && !clips.isEmpty { throw ValidationError("give CLIP arguments or --timeline, not both") }
        if timeline == nil && clips.isEmpty { throw ValidationError("no clips: give CLIP arguments or --timeline EDIT.json") }
        if let fps, FrameRate(parsing: fps) == nil { throw ValidationError("--fps must be a rate from 1 to 240 (30, 29.97 or 30000/1001)") }
        if Transition(spec: transition) == nil {
            let name = String(transition.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
            guard TransitionKind(name: name) != nil else {
                throw ValidationError("--transition: " + unknownChoice("transition", name, TransitionKind.allCases.map(\.rawValue)))
            }
            throw ValidationError("--transition: '\(transition)': expected TYPE[:SECONDS] with SECONDS more than 0")
        }
        if Fit(rawValue: fit) == nil { throw ValidationError("--fit: " + unknownChoice("fit", fit, Fit.allCases.map(\.rawValue))) }
        try checkBackground(background)
        guard imageDuration > 0, imageDuration.isFinite else { throw ValidationError("--image-duration must be more than 0 seconds") }
        guard musicVolume >= 0, musicVolume.isFinite else { throw ValidationError("--music-volume must be 0 or more") }
        if let music, !FileManager.default.isReadableFile(atPath: music) { throw ValidationError("--music: cannot read \(music)") }
    }

    /// `color:#RRGGBB[:SECONDS]` or a file.
    static func clip(_ arg: String) throws -> TimelineClip {
        guard arg.hasPrefix("color:") else { return TimelineClip(source: .video(arg)) }
        let parts = arg.dropFirst("color:".count).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let color = RGBColor(hex: parts[0]) else { throw ValidationError("\(arg): expected color:#RRGGBB[:SECONDS]") }
        var clip = TimelineClip(source: .color(color))
        if parts.count == 2 {
            guard let s = Double(parts[1]), s > 0, s.isFinite else { throw ValidationError("\(arg): the seconds must be more than 0") }
            clip.duration = MediaTime(seconds: s)
        }
        return clip
    }

    func run() throws {
        FailureReport.identity = [("output", .string(output))]
        service.apply()
        var spec = OutputSpec(path: output, preset: presetFlag.exportPreset)
        spec.fps = fps.flatMap { FrameRate(parsing: $0) }
        spec.background = Background(argument: background)!
        spec.fit = Fit(rawValue: fit)!
        spec.imageDuration = MediaTime(seconds: imageDuration)
        spec.overwrite = encoding.overwrite
        spec.crf = encoding.crf
        spec.maxBitRate = encoding.bitRateCap
        spec.loudness = sound.loudness
        spec.encoderPreset = encoding.encoderPreset
        spec.threads = encoding.threads
        spec.toneMap = encoding.toneMap
        spec.tolerateErrors = encoding.tolerateErrors
        spec.checkBitstream = !encoding.noBitstreamCheck
        spec.poster = posterFlags.request
        let between = Transition(spec: transition)!
        var edit: Timeline
        var name: (Int) -> String = { "clip \($0 + 1)" }
        if let timeline {
            edit = try Timeline.load(jsonFile: timeline, base: spec, transition: between)
            name = { "\(timeline): $.clips[\($0)]" }
        } else {
            var list = try clips.map(Compose.clip)
            for i in list.indices.dropLast() { list[i].transition = between }
            edit = Timeline(output: spec, clips: list)
        }
        if edit.music == nil, let music {
            var track = MusicTrack(path: music)
            track.volume = musicVolume
            edit.music = track
        }
        if let overlays, edit.overlays.isEmpty { edit.overlays = try OverlaySpec.load(jsonFile: overlays) }
        edit.overlays.captions += captionFlags.tracks
        let described = edit
        try Job(
            encoding, output: described.output.path, overwrite: described.output.overwrite, poster: described.output.poster?.path,
            reads: described.filesRead
        ).run {
            warn, report in
            let result = try Composer.run(described, clipName: name, warn: warn, progress: report)
            return (
                result.json, result.decodeErrors,
                "sdrify: wrote \(result.output) (\(result.width)x\(result.height), \(counted(result.frames, "frame")), \(counted(result.clips.count, "clip")))"
            )
        }
    }
}
