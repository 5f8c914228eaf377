import ArgumentParser
import Foundation
import SDRify

struct Compose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join clips, photos and colours into one upright SDR H.264/AAC video, with transitions and music.",
        discussion: """
        CLIP is a video, an image (shown --image-duration seconds) or color:#RRGGBB[:SECONDS]. Or describe the edit in a \
        JSON file with --timeline (see README); its values win over the options.
        """)

    @Argument(help: ArgumentHelp("Clips in order.", valueName: "CLIP")) var clips: [String] = []
    @Option(help: ArgumentHelp("An edit description (JSON) instead of CLIP arguments.", valueName: "EDIT.json")) var timeline: String?
    @Option(help: "Output file (.mp4, .m4v or .mov).") var output: String
    @Option(help: "Export preset: a bounding box for the first clip's upright shape (see `sdrify presets`).") var preset: String = ExportPreset.defaultName
    @Option(help: "Output frame rate (30, 29.97, 30000/1001); default: the first video clip's.") var fps: String?
    @Option(help: ArgumentHelp("Between every two clips: \(TransitionKind.allCases.map(\.rawValue).joined(separator: ", ")) (crossfade = fade); SECONDS default 0.5.",
                               valueName: "TYPE[:SECONDS]")) var transition: String = "none"
    @Option(help: "contain: whole picture on the background; cover: fill, centre cropped.") var fit: String = Fit.contain.rawValue
    @Option(help: ArgumentHelp("Background of contained clips.", valueName: "#RRGGBB")) var background: String = "#000000"
    @Option(name: .customLong("image-duration"), help: "Seconds each image is shown.") var imageDuration: Double = 3
    @Option(help: "Music mixed under the clips' own sound, looped or cut to the video.") var music: String?
    @Option(name: .customLong("music-volume"), help: "Linear gain of the music (1 = as recorded).") var musicVolume: Double = 1
    @Option(help: "Tone-mapping operator for HDR clips (auto follows each scene's light).") var tonemap: String = ToneMapOperator.default.rawValue
    @Flag(help: "Replace an existing output file.") var overwrite = false
    @Flag(help: "Print a JSON report on stdout when done.") var json = false
    @Option(help: "x264 constant rate factor (0–51); default from the preset.") var crf: Int?
    @Option(name: .customLong("x264-preset"), help: "x264/x265 speed preset; default from the preset.") var x264Preset: String?
    @Option(help: ArgumentHelp("Stickers and captions (JSON) on the output's clock.", valueName: "FILE.json")) var overlays: String?
    @Option(help: "Thread budget shared by decoders and encoder (0 = automatic).") var threads: Int = 0
    @Flag(help: "Print nothing but the error line.") var quiet = false
    @Flag(name: .customLong("tolerate-errors"), help: "Conceal decode errors and continue (they are counted) instead of failing.")
    var tolerateErrors = false
    @Option(help: ArgumentHelp("Write ffmpeg-style key=value progress blocks to a file descriptor, or - for stdout.", valueName: "FD|-"))
    var progress: String?

    func validate() throws {
        try EncodeOptions.validate(preset: preset, tonemap: tonemap, crf: crf, x264Preset: x264Preset, threads: threads, progress: progress)
        if timeline != nil && !clips.isEmpty { throw ValidationError("give CLIP arguments or --timeline, not both") }
        if timeline == nil && clips.isEmpty { throw ValidationError("no clips: give CLIP arguments or --timeline EDIT.json") }
        if let fps, FrameRate(parsing: fps) == nil { throw ValidationError("--fps must be a rate from 1 to 240 (30, 29.97 or 30000/1001)") }
        if Transition(spec: transition) == nil {
            throw ValidationError("--transition: expected TYPE[:SECONDS] with TYPE one of \(TransitionKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if Fit(rawValue: fit) == nil { throw ValidationError("--fit must be contain or cover") }
        if RGBColor(hex: background) == nil { throw ValidationError("--background must be a colour like #RRGGBB") }
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
            clip.duration = s
        }
        return clip
    }

    func run() throws {
        var spec = OutputSpec(path: output, preset: ExportPreset.named(preset)!)
        spec.fps = fps.flatMap { FrameRate(parsing: $0) }
        spec.background = RGBColor(hex: background)!
        spec.fit = Fit(rawValue: fit)!
        spec.imageDuration = imageDuration
        spec.overwrite = overwrite
        spec.crf = crf
        spec.encoderPreset = x264Preset
        spec.threads = threads
        spec.toneMap = ToneMapOperator(rawValue: tonemap)!
        spec.tolerateErrors = tolerateErrors
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
        let described = edit
        try Job(json: json, quiet: quiet, progress: progress, identity: [("output", .string(output))]).run { warn, report in
            let result = try Composer.run(described, clipName: name, warn: warn, progress: report)
            return (result.json, result.decodeErrors,
                    "sdrify: wrote \(result.output) (\(result.width)x\(result.height), \(result.frames) frames, \(result.clips.count) clips)")
        }
    }
}
