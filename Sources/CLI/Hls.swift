import ArgumentParser
import Foundation
import SDRifyPresets
import SDRifyMedia
import SDRify
import SDRifyTimeline
import SDRifyValues

struct Hls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hls",
        abstract: "Make an HLS ladder (fMP4/CMAF segments, master and media playlists) from one decode.",
        usage:
            "sdrify hls IN OUTDIR [--ladder 1080,720,480,360] [--segment SECONDS] [--codec h264|hevc|av1] [--loudness LUFS] [--max-bitrate RATE]... [options]",
        discussion: """
            Each rung is a rendition's short edge (1080: 1920x1080 landscape, 1080x1920 portrait); rungs above the source \
            are dropped, at least one rendition is made. The picture is decoded, turned upright and tone mapped once and \
            scaled for each rendition; every rendition has an IDR picture at each segment boundary. OUTDIR appears when \
            complete (an existing one is replaced only with -y, and only if it holds nothing but files).
            """)

    @Argument(help: "The input video.") var input: String
    @Argument(help: ArgumentHelp("The directory to make.", valueName: "OUTDIR")) var directory: String
    @Option(name: CommandOptions.ladder.long, help: CommandOptions.ladder.argumentHelp) var ladder: String?
    @Option(name: CommandOptions.segment.long, parsing: .unconditional, help: CommandOptions.segment.argumentHelp) var segment: Double = 4
    @Option(name: CommandOptions.ranges.long, help: CommandOptions.ranges.argumentHelp) var ranges: String?
    @OptionGroup var encoding: EncodingFlags
    @OptionGroup var sound: LoudnessFlag
    @OptionGroup var picture: PictureFlags
    @Option(name: CommandOptions.fps.long, help: CommandOptions.fps.argumentHelp) var fps: String?
    @Option(name: CommandOptions.start.long, parsing: .unconditional, help: CommandOptions.start.argumentHelp) var start: TimeArgument?
    @Option(name: CommandOptions.duration.long, parsing: .unconditional, help: CommandOptions.duration.argumentHelp) var duration: TimeArgument?
    @Option(name: CommandOptions.audioRendition.long, help: CommandOptions.audioRendition.argumentHelp) var audioTrack: String?
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        _ = try CommandOptions.ladder.checked(ladder)
        _ = try CommandOptions.segment.checked(segment)
        _ = try CommandOptions.ranges.checked(ranges)
        _ = try CommandOptions.fps.checked(fps)
        _ = try CommandOptions.start.checked(start?.seconds)
        _ = try CommandOptions.duration.checked(duration?.seconds)
        _ = try CommandOptions.audioRendition.checked(audioTrack)
    }

    func run() throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(directory))]
        service.apply()
        // HEVC ladders keep the HEVC preset's settings; other codecs take the default preset's, translated.
        let preset = ExportPreset.named(
            try CommandOptions.codec.value(ifGiven: encoding.codec) == .hevc ? "HEVC1920x1080" : ExportPreset.defaultName)!
        var spec = HLSSpec()
        spec.ladder = try CommandOptions.ladder.value(ifGiven: ladder) ?? .standard
        spec.segmentLength = try CommandOptions.segment.value(segment)
        spec.maxBitRates = encoding.bitRateCaps
        spec.ranges = try CommandOptions.ranges.value(ifGiven: ranges) ?? [.sdr]
        var output = OutputSpec(path: directory, preset: preset)
        encoding.apply(to: &output)
        if spec.ranges.contains(.hdr) { output.range = .hdr }  // the render carries the HDR; the SDR rungs are tone mapped from it
        output.maxBitRate = nil  // the caps are the ladder's
        output.choose(try CommandOptions.fps.value(ifGiven: fps))
        output.loudness = sound.loudness
        var keep = CarryOverSpec()
        keep.audioTrack = try CommandOptions.audioRendition.value(ifGiven: audioTrack) ?? .automatic
        var conversion = Timeline.conversion(of: try StreamInput.readable(input), into: output, keeping: keep)
        conversion.clips[0].from = try CommandOptions.start.value(ifGiven: start?.seconds)
        conversion.clips[0].duration = try CommandOptions.duration.value(ifGiven: duration?.seconds)
        try picture.apply(to: &conversion)
        let request = ExportRequest(conversion, into: .hls(spec))
        try Job(encoding, output: directory, overwrite: encoding.overwrite, directory: true, reads: request.filesRead).run { warn, report in
            let result = try Export.run(request, warn: warn, progress: report)
            let sizes = result.renditions.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
            return (result.json, result.decodeErrors, "sdrify: wrote \(directory) (\(sizes))")
        }
    }
}
