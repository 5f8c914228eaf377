import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyPresets
import SDRifyValues

/// One video rendition of an HLS ladder as asked for: its size, its encoder (whose `range` says whether it is SDR or
/// the HDR kept), and what its name adds to the rung's (`-hdr` beside an SDR ladder).
package struct HLSRenditionRequest {
    var rendition: Ladder.Rendition
    var settings: VideoEncoderSettings
    var suffix: String

    package init(rendition: Ladder.Rendition, settings: VideoEncoderSettings, suffix: String = "") {
        self.rendition = rendition
        self.settings = settings
        self.suffix = suffix
    }

    var name: String { rendition.name + suffix }
}

/// What `hls` wrote, per rendition (for `--json` and the master playlist).
package struct HLSRenditionResult: Sendable {
    package var name: String
    package var width: Int
    package var height: Int
    package var range: HDRKind
    var codecs: String
    var bandwidth: Int  // peak segment bit rate, with the sound's
    var averageBandwidth: Int
    var segments: Int

    package var json: JSONValue {
        .object([
            ("name", .string(name)), ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("range", .string(range.rawValue)),
            ("codecs", .string(codecs)),
            ("bandwidth", .int(Int64(bandwidth))), ("average_bandwidth", .int(Int64(averageBandwidth))), ("segments", .int(Int64(segments)))
        ])
    }
}

/// An HLS ladder written from one render: the render's picture (decoded, oriented, tone mapped once, at the top
/// rendition's size) is scaled for each lower rendition and encoded by one encoder per rendition; every encoder
/// gets an IDR picture at the same segment boundaries, so the renditions switch cleanly. Fragmented MP4 (CMAF)
/// segments, the sound as its own AAC rendition, media playlists and the master playlist with bit rates measured
/// from the written segments; all in one directory that appears when complete. A render that keeps the HDR feeds
/// its HDR renditions as it is and its SDR ones through `toSDR` (tone mapped once per picture); the master playlist
/// says each variant's VIDEO-RANGE.
package final class HLSSink: MediaSink {
    private let directory: AtomicDirectory
    private let requests: [HLSRenditionRequest]
    private let segmentLength: MediaTime
    private let carryOver: InputCarryOver?
    /// One rendition being written: its scaler (none for the top one), encoder, muxer and segments, and each
    /// picture's duration by timestamp while it is in the encoder (x264 and x265 do not carry it to their packets).
    private final class Rendition {
        let size: Ladder.Rendition
        let name: String
        let range: HDRKind
        let encoder: VideoEncoder
        let scaler: PictureScaler?
        let muxer: Muxer
        let segments: HLSSegments
        var durations: [Int64: Int64] = [:]
        init(request: HLSRenditionRequest, encoder: VideoEncoder, scaler: PictureScaler?, muxer: Muxer, segments: HLSSegments) {
            size = request.rendition; name = request.name; range = request.settings.range
            self.encoder = encoder; self.scaler = scaler; self.muxer = muxer; self.segments = segments
        }
    }
    private var renditions: [Rendition] = []
    private var sound: (input: InputSound, muxer: Muxer, segments: HLSSegments, channels: Int)? = nil
    private var timeBase = TimeBase(num: 1, den: 1)
    private var rate = FrameRate(num: 30, den: 1)
    private var nextBoundary = MediaTime.zero
    private let packet: Packet
    package let audioBlock = 1024
    package private(set) var results: [HLSRenditionResult] = []

    private let toSDR: ((Frame) throws -> Frame)?

    package init(
        directory: AtomicDirectory, renditions: [HLSRenditionRequest], segmentLength: MediaTime, carryOver: InputCarryOver?,
        toSDR: ((Frame) throws -> Frame)? = nil
    ) throws {
        self.directory = directory
        self.toSDR = toSDR
        requests = renditions
        self.segmentLength = segmentLength
        self.carryOver = carryOver
        packet = try Packet()
    }

    package var errorsConcealed: Int { sound?.input.dropped ?? 0 }

    package func begin(_ format: RenderFormat) throws {
        timeBase = format.timeBase
        rate = format.rate
        // Every rendition's clock starts this late (Muxer.segmentedStart): past any encoder's reordering (at most
        // 16 pictures) and AAC priming.
        let start = max(MediaTime(1), format.rate.time(ofFrame: 16))
        for request in requests {
            let r = request.rendition
            let segments = try HLSSegments(name: request.name, directory: directory)
            let muxer = try segments.muxer(startingAt: start)
            let encoder = try VideoEncoder(
                width: r.width, height: r.height, timeBase: format.timeBase, frameRate: format.rate, settings: request.settings,
                globalHeader: true)
            _ = try muxer.addStream(from: encoder)
            try muxer.writeHeader()
            let scaler =
                r.width == format.width && r.height == format.height
                ? nil
                : try PictureScaler(
                    fromWidth: format.width, fromHeight: format.height, toWidth: r.width, toHeight: r.height, kind: request.settings.range)
            renditions.append(Rendition(request: request, encoder: encoder, scaler: scaler, muxer: muxer, segments: segments))
        }
        if let carry = carryOver, carry.keepSound {
            // The default audio track, as the audio rendition (copied when AAC, else AAC-LC), on the pictures' clock.
            let input = try Demuxer(path: carry.path)
            // A sound that ends before the range starts has no segment to give: no audio rendition (as a file's
            // track is left out), rather than a playlist that lists nothing.
            if let stream = try input.audioStreams(for: carry.audio).first, input.trackEnd(stream).map({ $0 > carry.clock.start }) ?? true {
                let segments = try HLSSegments(name: "audio", directory: directory, every: segmentLength)
                let muxer = try segments.muxer(startingAt: start)
                let clock = carry.clock
                if let sound = try InputSound(
                    demuxer: input, streams: [stream], muxer: muxer, shift: clock.origin, end: clock.end,
                    seek: clock.seekTarget(videoStart: carry.videoStart), tolerateErrors: carry.tolerateErrors, map: clock.map,
                    stages: Array(carry.loudness.prefix(1)))
                {
                    try muxer.writeHeader()
                    self.sound = (sound, muxer, segments, muxer.channels(ofStream: 0))
                }
            }
        }
    }

    package func write(picture: Frame) throws {
        guard let pts = picture.pts else { return }
        let time = MediaTime(ticks: pts, timeBase)
        // The first picture at or after each boundary starts a segment in every rendition.
        var keyframe = false
        if time >= nextBoundary {
            keyframe = true
            while nextBoundary <= time { nextBoundary = nextBoundary + segmentLength }
        }
        // The SDR renditions' picture, when the render keeps the HDR: made once for all of them.
        var sdr: Frame? = nil
        for r in renditions {
            if keyframe { r.segments.cuts.insert(time) }
            r.durations[pts] = picture.duration ?? 1
            var source = picture
            if r.range == .sdr, let toSDR {
                if sdr == nil { sdr = try toSDR(picture) }
                source = sdr!
            }
            try r.encoder.send(try r.scaler?.scale(source) ?? source, keyframe: keyframe)
            try drain(r)
        }
        if let sound { try sound.input.write(upTo: time + MediaTime(ticks: picture.duration ?? 0, timeBase), muxer: sound.muxer) }
    }

    private func drain(_ r: Rendition) throws {
        while try r.encoder.receive(into: packet) {
            if let pts = packet.pts, let d = r.durations.removeValue(forKey: pts) { packet.setDuration(d) }
            try r.muxer.write(packet, stream: 0, from: r.encoder.timeBase)
        }
    }

    package func finish() throws {
        for r in renditions {
            try r.encoder.send(nil)
            try drain(r)
            try r.muxer.finish()
            try r.segments.finish()
        }
        if let sound {
            try sound.input.write(upTo: nil, muxer: sound.muxer)
            try sound.muxer.finish()
            try sound.segments.finish()
        }
        try writePlaylists()
    }

    private func writePlaylists() throws {
        let audio = sound.flatMap { s in
            s.segments.segments.isEmpty ? nil : (s.segments, s.segments.bitRates, s.muxer.codecString(ofStream: 0) ?? "mp4a.40.2", s.channels)
        }
        var master = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let audio {
            try directory.write("audio.m3u8", Array(audio.0.playlist.utf8))
            master.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"Audio\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"\(audio.3)\",URI=\"audio.m3u8\"")
        }
        for r in renditions {
            try directory.write("\(r.segments.name).m3u8", Array(r.segments.playlist.utf8))
            let video = r.segments.bitRates
            let peak = Int((video.peak + (audio?.1.peak ?? 0)).rounded(.up))
            let average = Int((video.average + (audio?.1.average ?? 0)).rounded(.up))
            let codecs = ([r.muxer.codecString(ofStream: 0) ?? r.encoder.codec.catalog.encoder] + (audio.map { [$0.2] } ?? [])).joined(separator: ",")
            var attributes = [
                "BANDWIDTH=\(peak)", "AVERAGE-BANDWIDTH=\(average)", "CODECS=\"\(codecs)\"",
                "RESOLUTION=\(r.size.width)x\(r.size.height)", String(format: "FRAME-RATE=%.3f", rate.fps),
                "VIDEO-RANGE=\(r.range == .sdr ? "SDR" : r.range == .pq ? "PQ" : "HLG")"
            ]
            if audio != nil { attributes.append("AUDIO=\"audio\"") }
            attributes.append("CLOSED-CAPTIONS=NONE")
            master.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            master.append("\(r.segments.name).m3u8")
            results.append(
                HLSRenditionResult(
                    name: r.segments.name, width: r.size.width, height: r.size.height, range: r.range, codecs: codecs, bandwidth: peak,
                    averageBandwidth: average, segments: r.segments.segments.count))
        }
        try directory.write("master.m3u8", Array((master.joined(separator: "\n") + "\n").utf8))
    }

    package func commit() throws { try directory.commit() }
}
