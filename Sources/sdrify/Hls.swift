import ArgumentParser
import Foundation
import SDRifyPresets
import SDRifyMedia
import SDRify
import SDRifyValues

struct Hls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hls",
        abstract: "Make an HLS ladder (fMP4/CMAF segments, master and media playlists) from one decode.",
        usage:
            "sdrify hls IN OUTDIR [--ladder 1080,720,480,360] [--segment SECONDS] [--codec h264|hevc] [--loudness LUFS] [--max-bitrate RATE]... [options]",
        discussion: """
            Each rung is a rendition's short edge (1080: 1920x1080 landscape, 1080x1920 portrait); rungs above the source \
            are dropped, at least one rendition is made. The picture is decoded, turned upright and tone mapped once and \
            scaled for each rendition; every rendition has an IDR picture at each segment boundary. OUTDIR appears when \
            complete (an existing one is replaced only with -y, and only if it holds nothing but files).
            """)

    @Argument(help: "The input video.") var input: String
    @Argument(help: ArgumentHelp("The directory to make.", valueName: "OUTDIR")) var directory: String
    @Option(help: ArgumentHelp("The renditions' short edges, largest first (default 1080,720,480,360).", valueName: "RUNGS"))
    var ladder: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Segment length (1 to 30 seconds, default 4).", valueName: "SECONDS"))
    var segment: Double = 4
    @Option(help: ArgumentHelp("The video codec: h264 (x264, High) or hevc (x265, Main, hvc1).", valueName: "h264|hevc")) var codec: String = "h264"
    @OptionGroup var encoding: EncodingFlags
    @OptionGroup var sound: LoudnessFlag
    @OptionGroup var picture: PictureFlags
    @Option(
        help:
            "Constant output frame rate (30, 29.97, 30000/1001); default: the source's own picture times."
    )
    var fps: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Start this far into the input.", valueName: "TIME")) var start: TimeArgument?
    @Option(parsing: .unconditional, help: ArgumentHelp("Make the output this long.", valueName: "TIME")) var duration: TimeArgument?
    @Option(
        name: .customLong("audio-track"),
        help: ArgumentHelp("Which audio track is the audio rendition: a track's index (as probe lists it) or a language.", valueName: "N|LANG"))
    var audioTrack: String?
    @OptionGroup var service: ServiceFlags

    var parsedLadder: Ladder { ladder.flatMap { try? Ladder.parse($0).get() } ?? .standard }
    var videoCodec: VideoCodec { codec == "hevc" ? .hevc : .h264 }

    func validate() throws {
        if let ladder, case .failure(let e) = Ladder.parse(ladder) {
            throw ValidationError(
                "--ladder: '\(e.entry)' is not a rung (a short edge from \(Ladder.validRungs.lowerBound) to \(Ladder.validRungs.upperBound) pixels)")
        }
        guard HLSOptions.segmentLengths.contains(segment) else {
            throw ValidationError("--segment must be from 1 to 30 seconds, not \(segment)")
        }
        guard ["h264", "hevc"].contains(codec) else { throw ValidationError("--codec must be h264 or hevc, not '\(codec)'") }
        if let fps, FrameRate(parsing: fps) == nil { throw ValidationError("--fps must be a rate from 1 to 240 (30, 29.97 or 30000/1001)") }
        if let start, !(start.seconds >= 0) { throw ValidationError("--start must be 0 or more seconds") }
        if let duration, !(duration.seconds > 0) { throw ValidationError("--duration must be more than 0 seconds") }
        if let audioTrack, AudioTrackChoice(argument: audioTrack) == nil || audioTrack.lowercased() == "all" {
            throw ValidationError("--audio-track: expected a track number or a language code (eng, fra…), not '\(audioTrack)'")
        }
    }

    func run() throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(directory))]
        service.apply()
        let preset = ExportPreset.named(videoCodec == .hevc ? "HEVC1920x1080" : ExportPreset.defaultName)!
        var options = HLSOptions(input: try StreamInput.readable(input), directory: directory, preset: preset)
        options.ladder = parsedLadder
        options.segmentLength = MediaTime(seconds: segment)
        options.maxBitRates = encoding.bitRateCaps
        var c = options.conversion
        c.overwrite = encoding.overwrite
        c.crf = encoding.crf
        c.encoderPreset = encoding.encoderPreset
        c.start = start.map { MediaTime(seconds: $0.seconds) }
        c.duration = duration.map { MediaTime(seconds: $0.seconds) }
        c.threads = encoding.threads
        c.toneMap = encoding.toneMap
        c.tolerateErrors = encoding.tolerateErrors
        c.checkBitstream = !encoding.noBitstreamCheck
        c.fps = fps.flatMap { FrameRate(parsing: $0) }
        c.audioTrack = audioTrack.flatMap(AudioTrackChoice.init(argument:)) ?? .automatic
        c.loudness = sound.loudness
        try picture.apply(to: &c)
        options.conversion = c
        try Job(encoding, output: directory, overwrite: encoding.overwrite, directory: true, reads: c.filesRead).run { warn, report in
            let result = try HLSPackager.run(options, warn: warn, progress: report)
            let sizes = result.renditions.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
            return (result.json, result.conversion.decodeErrors, "sdrify: wrote \(directory) (\(sizes))")
        }
    }
}
