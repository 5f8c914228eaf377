import Foundation
import SDRifyCaptions
import SDRifyFiles
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// H.264/HEVC + AAC in MP4/MOV, written through an AtomicOutput (in place only once finished). Its sound is the
/// render's mix, or with `carryOver` the input's own.
package final class EncodingSink: MediaSink {
    private let output: AtomicOutput
    private let muxer: Muxer
    private let settings: VideoEncoderSettings
    private let carryOver: InputCarryOver?
    private var encoder: VideoEncoder? = nil
    private var aac: AACEncoder? = nil
    private var sound: InputSound? = nil
    private var subtitles: SoftSubtitles? = nil
    private var videoStream = 0, audioStream = 0
    private var timeBase = TimeBase(num: 1, den: 1)
    private let packet: Packet
    /// Each picture's duration by timestamp while it is in the encoder: x264 and x265 do not carry it to their
    /// packets, and the muxer ends the track by the last one's.
    private var durations: [Int64: Int64] = [:]
    private var dataTracks: [DataTrack] = []  // the input's timed metadata (--metadata keep), added once the muxer is done
    /// A composition's `--loudness`: the mix's gain and limiter, before the AAC encoder.
    private let mixStage: LoudnessNormalizer?
    package let audioBlock = 1024

    /// Creates the output file now (so an output problem shows before any work); `inputs` may not be it.
    package init(
        path: String, inputs: [String], overwrite: OverwritePolicy, settings: VideoEncoderSettings, carryOver: InputCarryOver? = nil,
        mixStage: LoudnessNormalizer? = nil
    ) throws {
        self.mixStage = mixStage
        output = try AtomicOutput.open(finalPath: path, inputPaths: inputs, policy: overwrite)
        muxer = try Muxer(fd: output.fd, path: path, formatName: try CodecCatalog.muxer(forOutput: path, codec: settings.codec))
        self.settings = settings
        self.carryOver = carryOver
        packet = try Packet()
    }

    deinit { output.discard() }

    package var errorsConcealed: Int { sound?.dropped ?? 0 }

    package func begin(_ format: RenderFormat) throws {
        timeBase = format.timeBase
        let encoder = try VideoEncoder(
            width: format.width, height: format.height, timeBase: format.timeBase,
            frameRate: format.rate, settings: settings, globalHeader: muxer.needsGlobalHeader)
        self.encoder = encoder
        videoStream = try muxer.addStream(from: encoder)
        if format.sound {
            let aac = try AACEncoder(globalHeader: muxer.needsGlobalHeader)
            precondition(aac.frameSize == audioBlock, "AAC frames are 1024 samples")
            self.aac = aac
            audioStream = try muxer.addStream(audio: aac)
        }
        if let carry = carryOver {
            let clock = carry.clock
            // One more demuxer of the input: its header gives the metadata and chapters, its packets the sound.
            let input = try Demuxer(path: carry.path)
            sound = try InputSound(
                demuxer: input, streams: carry.keepSound ? try input.audioStreams(for: carry.audio) : [], muxer: muxer, shift: clock.origin,
                end: clock.end,
                seek: clock.seekTarget(videoStart: carry.videoStart), tolerateErrors: carry.tolerateErrors, map: clock.map,
                stages: carry.loudness)
            muxer.copyMetadata(from: input, keepLocation: carry.keepLocation, policy: carry.metadata)
            subtitles = try SoftSubtitles(carry.subtitles, muxer: muxer)
            if carry.keepChapters { try muxer.copyChapters(from: input, onOutput: clock.output, end: clock.length) }
            if carry.metadata == .keep {
                dataTracks = try DataTrack.read(from: carry.path, demuxer: try Demuxer(path: carry.path), clock: clock, length: clock.length)
            }
        }
        try muxer.writeHeader()
        try subtitles?.write(to: muxer)
    }

    private func drainVideo() throws {
        guard let encoder else { return }
        while try encoder.receive(into: packet) {
            if let pts = packet.pts, let d = durations.removeValue(forKey: pts) { packet.setDuration(d) }
            try muxer.write(packet, stream: videoStream, from: encoder.timeBase)
        }
    }

    package func write(picture: Frame) throws {
        if let pts = picture.pts { durations[pts] = picture.duration ?? 1 }
        try encoder?.send(picture)
        try drainVideo()
        // The input's sound follows the pictures up to where this one ends.
        if let sound, let pts = picture.pts {
            try sound.write(upTo: MediaTime(ticks: pts + (picture.duration ?? 0), timeBase), muxer: muxer)
        }
    }

    package func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        guard let aac else { return }
        if let mixStage {
            try mixStage.process([left, right], count: count) { planes, n in
                try aac.feed(planes, count: n) { [muxer, audioStream] in try muxer.write($0, stream: audioStream, from: aac.timeBase) }
            }
            return
        }
        try aac.encode(left: left, right: right, count: count) { [muxer, audioStream] in try muxer.write($0, stream: audioStream, from: aac.timeBase)
        }
    }

    package func finish() throws {
        try encoder?.send(nil)
        try drainVideo()
        try sound?.write(upTo: nil, muxer: muxer)
        if let aac {
            let write: (Packet) throws -> Void = { [muxer, audioStream] in try muxer.write($0, stream: audioStream, from: aac.timeBase) }
            if let mixStage {
                try mixStage.finish { planes, n in try aac.feed(planes, count: n, write: write) }
                try aac.finishFeeding(write: write)
            } else {
                try aac.finish(write: write)
            }
        }
        try muxer.finish()
        if !dataTracks.isEmpty { try MovieAppender.add(dataTracks, fd: muxer.fd, path: output.finalPath) }
    }

    package func commit() throws { try output.commit() }
}
