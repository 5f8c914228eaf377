import Foundation
import SDRifyCaptions
import SDRifyFiles
import SDRifyMedia
import SDRifyOutput
import SDRifyProbe
import SDRifyTimeline
import SDRifyValues

/// The Passthrough preset: the input's packets remuxed, nothing decoded (so it never reaches the render path).
/// Only for input that is already what every output is; a late start is moved to 0 as a conversion does.
enum Passthrough {
    /// Passthrough only remuxes, so the input must already be what every output is.
    static func check(_ video: VideoInfo, input: String) throws {
        var reasons: [String] = []
        if video.hdrKind != .sdr { reasons.append("it is \(video.hdrKind.rawValue.uppercased()) HDR") }
        if case .known(let o) = video.orientation, o != .up { reasons.append("it is stored turned (EXIF \(o.rawValue))") }
        if !["h264", "hevc"].contains(video.codec) { reasons.append("its codec is \(video.codec)") }
        if let order = video.fieldOrder, order != "progressive" { reasons.append("it is interlaced") }
        if video.bitDepth != 8 || !["yuv420p", "yuvj420p"].contains(video.pixelFormat) {
            reasons.append("it is \(video.pixelFormat), not 8-bit 4:2:0")
        }
        if !reasons.isEmpty {
            throw SDRifyError.unsupported(
                "\(input): Passthrough only remuxes SDR, upright, 8-bit 4:2:0 H.264/HEVC, but \(reasons.joined(separator: " and ")); use another preset"
            )
        }
    }

    static func run(
        _ timeline: Timeline, info: MediaInfo, demuxer: Demuxer, orientation: Orientation, started: Date,
        warn: WarningHandler, progress: ProgressHandler
    ) throws -> ExportResult {
        let input = timeline.input, out = timeline.output, carry = timeline.carryOver ?? CarryOverSpec()
        var softSubtitles: [(cues: [Cue], language: String?)] = try carry.subtitleFiles.map { (try CaptionFile.cues($0.file), $0.language) }
        if carry.keepSubtitles && info.tracks.contains(where: { $0.type == "subtitle" }) {
            let start = max(info.format.startTime ?? .zero, .zero)
            for track in try Demuxer(path: input).subtitleTracks {
                guard track.isText else { warn("subtitle track \(track.index) (\(track.codec)) is pictures: not kept"); continue }
                softSubtitles.append((CaptionFile.shifted(try CaptionFile.cues(ofTrack: track.index, in: input), by: -start), track.language))
            }
        }
        let output = try AtomicOutput.open(finalPath: out.path, inputPaths: [input], policy: out.overwrite)
        defer { output.discard() }
        let muxer = try Muxer(fd: output.fd, path: out.path, formatName: try CodecCatalog.muxer(forOutput: out.path))
        let tb = demuxer.videoTimeBase
        let lateStart = max(info.format.startTime ?? .zero, .zero)
        let outVideo = try muxer.addCopiedVideoStream(from: demuxer)
        let audio = try demuxer.audioStreamIndex.map { try AudioOutput(demuxer: demuxer, stream: $0, muxer: muxer, shift: lateStart, end: nil) }
        let shiftTicks = lateStart.ticks(tb)
        muxer.copyMetadata(from: demuxer, keepLocation: carry.keepLocation, policy: carry.metadata)
        let subtitles = try SoftSubtitles(softSubtitles, muxer: muxer)
        if carry.keepChapters { try muxer.copyChapters(from: demuxer, onOutput: { $0 - lateStart }, end: nil) }
        try muxer.writeHeader()
        try subtitles.write(to: muxer)

        var frames = 0
        var firstPTS: Int64? = nil, lastPTS: Int64? = nil
        let frameTicks = max(1, Int64((1 / demuxer.videoFrameRate.fps / tb.seconds).rounded()))
        let totalTime = info.format.duration?.seconds
        var lastReport = Date.distantPast
        let packet = try Packet()
        while try demuxer.readPacket(into: packet) {
            if packet.streamIndex == demuxer.videoStreamIndex {
                packet.shift(by: shiftTicks)
                if let pts = packet.pts {
                    firstPTS = firstPTS ?? pts
                    lastPTS = max(lastPTS ?? pts, pts)
                    let now = Date()
                    if now.timeIntervalSince(lastReport) >= 0.25 {
                        lastReport = now
                        progress(
                            ConversionProgress(
                                frames: frames, outTime: Double(pts - firstPTS!) * tb.seconds, totalTime: totalTime,
                                elapsed: now.timeIntervalSince(started), finished: false))
                    }
                }
                frames += 1
                try muxer.write(packet, stream: outVideo, from: tb)
            } else if let audio, audio.owns(packet) {
                try audio.handle(packet, muxer: muxer)
            }
        }
        try audio?.finish(muxer: muxer)
        try muxer.finish()
        try output.commit()

        let duration = Double((lastPTS ?? 0) - (firstPTS ?? 0) + frameTicks) * tb.seconds
        progress(
            ConversionProgress(
                frames: frames, outTime: duration, totalTime: totalTime,
                elapsed: Date().timeIntervalSince(started), finished: true))
        var result = ExportResult(
            form: .conversion, output: out.path, preset: out.preset.name, width: info.video.width, height: info.video.height,
            duration: duration, frames: frames, toneMapping: "none", decodeErrors: 0, elapsed: Date().timeIntervalSince(started))
        result.input = input
        result.codec = "copy"
        result.hdr = info.video.hdrKind
        result.orientationExif = orientation.rawValue
        return result
    }
}
