import ArgumentParser
import Foundation
import SDRify
import SDRifyFiles
import SDRifyLayers
import SDRifyOutput
import SDRifyTimeline
import SDRifyValues

struct Compose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join clips, photos and colours into one upright SDR H.264/AAC video, with transitions and music.",
        discussion: """
            CLIP is a video, an image (shown --image-duration seconds) or color:#RRGGBB[:SECONDS]. Or describe the edit in a \
            JSON file with --timeline (see docs/compose.md); its values win over the options.
            """)

    @Argument(help: ArgumentHelp("Clips in order.", valueName: "CLIP")) var clips: [String] = []
    @Option(help: ArgumentHelp("An edit description (JSON) instead of CLIP arguments.", valueName: "EDIT.json")) var timeline: String?
    @Option(name: [.customShort("o"), .customLong("output")], help: "Output file (.mp4, .m4v or .mov).") var outputOption: String?
    @Option(name: CommandOptions.fps.long, help: CommandOptions.fps.argumentHelp) var fps: String?
    @Option(
        help: ArgumentHelp(
            "Between every two clips: \(TransitionKind.allCases.map(\.rawValue).joined(separator: ", ")) (crossfade = fade); SECONDS is 0.5 when left out.",
            valueName: "TYPE[:SECONDS]")) var transition: String = "none"
    @Option(name: CommandOptions.fit.long, help: CommandOptions.fit.argumentHelp) var fit: String = Fit.contain.rawValue
    @Option(name: CommandOptions.range.long, help: CommandOptions.range.argumentHelp) var dynamicRange: String?
    @Option(name: CommandOptions.background.long, help: CommandOptions.background.argumentHelp) var background: String = "#000000"
    @Option(name: CommandOptions.imageDuration.long, parsing: .unconditional, help: CommandOptions.imageDuration.argumentHelp)
    var imageTime: TimeArgument?
    @Option(help: "Music mixed under the clips' own sound, looped or cut to the video.") var music: String?
    @Option(name: CommandOptions.musicVolume.long, parsing: .unconditional, help: CommandOptions.musicVolume.argumentHelp)
    var musicVolume: Double = 1
    @Option(help: ArgumentHelp(CommandOptions.overlaysHelp, valueName: "FILE.json")) var overlays: String?
    @OptionGroup var captionFlags: CaptionFlags
    @OptionGroup var presetFlag: PresetFlag
    @OptionGroup var encoding: EncodingFlags
    @OptionGroup var sound: LoudnessFlag
    @OptionGroup var posterFlags: PosterFlags
    @OptionGroup var service: ServiceFlags

    /// The output, named by -o: never the last CLIP (a glob's last file would be replaced).
    var output: String { outputOption ?? "" }

    func validate() throws {
        if outputOption == nil {
            // A last CLIP named like a movie that is not there yet (or is sdrify's) was most likely meant as the output.
            if let last = clips.last, clips.count > 1, ["mp4", "m4v", "mov"].contains(URL(fileURLWithPath: last).pathExtension.lowercased()),
                !FileManager.default.fileExists(atPath: last) || ExistingOutput.madeBySdrify(file: last)
            {
                throw ValidationError("no output: did you mean -o \(last)? (compose takes its output with -o OUT)")
            }
            throw ValidationError("no output: give -o OUT (compose takes its output with -o, never as the last CLIP)")
        }
        try encoding.checkOneBitRate()
        if timeline != nil && !clips.isEmpty { throw ValidationError("give CLIP arguments or --timeline, not both") }
        if timeline == nil && clips.isEmpty { throw ValidationError("no clips: give CLIP arguments or --timeline EDIT.json") }
        _ = try CommandOptions.fps.checked(fps)
        if Transition(spec: transition) == nil {
            let name = String(transition.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
            guard TransitionKind(name: name) != nil else {
                throw ValidationError("--transition: " + unknownChoice("transition", name, TransitionKind.allCases.map(\.rawValue)))
            }
            throw ValidationError("--transition: '\(transition)': expected TYPE[:SECONDS] with SECONDS more than 0")
        }
        _ = try CommandOptions.fit.checked(fit)
        _ = try CommandOptions.range.checked(dynamicRange)
        _ = try CommandOptions.background.checked(background)
        _ = try CommandOptions.imageDuration.checked(imageTime?.seconds)
        _ = try CommandOptions.musicVolume.checked(musicVolume)
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
        spec.choose(try CommandOptions.fps.value(ifGiven: fps))
        spec.background = try CommandOptions.background.value(background)
        spec.fit = try CommandOptions.fit.value(fit)
        spec.imageDuration = try CommandOptions.imageDuration.value(ifGiven: imageTime?.seconds) ?? 3
        encoding.apply(to: &spec)
        spec.loudness = sound.loudness
        spec.poster = posterFlags.request
        spec.range = try CommandOptions.range.value(ifGiven: dynamicRange) ?? .sdr
        spec.gainMap = posterFlags.gainMap
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
            track.volume = try CommandOptions.musicVolume.value(musicVolume)
            edit.music = track
        }
        if let overlays, edit.overlays.isEmpty { edit.overlays = try OverlaySpec.load(jsonFile: overlays) }
        edit.overlays.captions += captionFlags.tracks
        let described = edit
        try Job(
            encoding, output: described.output.path, overwrite: described.output.overwrite, also: [described.output.poster?.path].compactMap { $0 },
            reads: described.filesRead
        ).run {
            warn, report in
            let result = try Export.run(ExportRequest(described), clipName: name, warn: warn, progress: report)
            return (
                result.json, result.decodeErrors,
                "sdrify: wrote \(result.output) (\(result.width)x\(result.height), \(counted(result.frames, "frame")), \(counted(result.clips.count, "clip")))"
            )
        }
    }
}
