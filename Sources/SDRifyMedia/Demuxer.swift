import CFFmpeg
import Foundation
import SDRifyProbe
import SDRifySecurity
import SDRifyValues

/// One compressed packet. Owns its AVPacket.
package final class Packet {
    let av: UnsafeMutablePointer<AVPacket>

    package init() throws {
        guard let p = av_packet_alloc() else { throw SDRifyError.conversion("out of memory allocating a packet") }
        av = p
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = av
        av_packet_free(&p)
    }

    package var streamIndex: Int { Int(av.pointee.stream_index) }
    package var isKeyframe: Bool { av.pointee.flags & AV_PKT_FLAG_KEY != 0 }
}

/// Opens an input read-only and hands out its packets.
package final class Demuxer {
    let ctx: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    package let videoStreamIndex: Int
    package let audioStreamIndex: Int?
    /// The codec of the audio track FFmpeg ranks first when it cannot be decoded here (then not kept).
    package let undecodableAudio: String?
    private var videoPacketsRead = 0  // for --max-duration on streams without times
    /// For the formats whose timestamps may jump (MPEG-TS, PS): nil for the others.
    private var rebase: TimestampRebase?
    /// The input's timestamps may jump (MPEG-TS, PS): out-of-order pictures are a splice's, not damage.
    package var allowsDiscontinuities: Bool { rebase != nil }
    /// A stream that may begin anywhere: MPEG-TS/PS (a capture joined late) and raw elementary streams.
    package var mayStartMidGOP: Bool { allowsDiscontinuities || ctx.pointee.iformat.pointee.flags & AVFMT_NOTIMESTAMPS != 0 }
    /// Timestamp discontinuities re-based so far.
    package var discontinuities: Int { rebase?.count ?? 0 }

    /// Error-level messages the demuxer logged: damage it recovered from with a guess (a time scale of 0 …).
    private let errorCounter = LoggedErrorCounter()
    package var loggedErrors: Int { errorCounter.count }

    package init(path: String) throws {
        self.path = path
        var c: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        c?.pointee.opaque = UnsafeMutableRawPointer(errorCounter.pointer)  // counted from the header on
        let opened = avformat_open_input(&c, path, nil, nil)
        guard opened >= 0, let ctx = c else {
            // A HEIC or AVIF photo is no media file to libavformat: said as what it is, with what to do.
            if HEIFDecoder.isHEIF(path: path) { throw SDRifyError.photoGivenAsVideo(path, kind: "HEIF") }
            throw SDRifyError.invalidInput("\(path): not a readable media file (\(ffErrorString(opened)))")
        }
        self.ctx = ctx
        // Hostile headers: refuse absurd picture sizes (and those beyond --max-pixels), and inputs longer than
        // --max-duration, before anything reads (and allocates) a packet for them.
        do {
            for i in 0..<Int(ctx.pointee.nb_streams) {
                let par = ctx.pointee.streams[i]!.pointee.codecpar.pointee
                guard par.codec_type == AVMEDIA_TYPE_VIDEO else { continue }
                try Limits.checkPicture(width: Int(par.width), height: Int(par.height), in: path)
            }
            if ctx.pointee.duration > 0 { try Limits.checkDuration(Double(ctx.pointee.duration) / Double(AV_TIME_BASE), of: path) }
        } catch {
            var p: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&p)
            throw error
        }
        // Small probe budget: the container headers carry what we report; this must not decode the clip.
        ctx.pointee.probesize = 8 << 20
        ctx.pointee.max_analyze_duration = Int64(AV_TIME_BASE / 2)
        let found = avformat_find_stream_info(ctx, nil)
        guard found >= 0 else {
            var p: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&p)
            throw SDRifyError.invalidInput("\(path): cannot read stream information (\(ffErrorString(found)))")
        }
        let v = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        var videoIndex: Int? = v >= 0 ? Int(v) : nil
        // A cover-art picture is not a video track.
        if let i = videoIndex, ctx.pointee.streams[i]!.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { videoIndex = nil }
        guard let videoStream = videoIndex else {
            var p: UnsafeMutablePointer<AVFormatContext>? = ctx
            avformat_close_input(&p)
            throw SDRifyError.invalidInput("\(path): no video stream")
        }
        videoStreamIndex = videoStream
        // The audio track to keep is FFmpeg's pick among those this libavcodec can decode: a default track in a
        // codec it lacks gives way to the next best (or to no audio), and is named for a warning.
        var decoder: UnsafePointer<AVCodec>? = nil
        let a = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, Int32(videoStream), &decoder, 0)
        audioStreamIndex = a >= 0 ? Int(a) : nil
        let preferred = av_find_best_stream(ctx, AVMEDIA_TYPE_AUDIO, -1, Int32(videoStream), nil, 0)
        undecodableAudio = preferred >= 0 && preferred != a ? Demuxer.codecName(ctx.pointee.streams[Int(preferred)]!) : nil
        if ctx.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0 { rebase = TimestampRebase() }
    }

    /// FFmpeg's codec name, or the sample entry's four-character code when FFmpeg does not know the codec.
    static func codecName(_ stream: UnsafeMutablePointer<AVStream>) -> String {
        let par = stream.pointee.codecpar.pointee
        guard par.codec_id == AV_CODEC_ID_NONE, par.codec_tag != 0 else { return String(cString: avcodec_get_name(par.codec_id)) }
        return "'\(fourCC(par.codec_tag))'"
    }

    deinit {
        var p: UnsafeMutablePointer<AVFormatContext>? = ctx
        avformat_close_input(&p)
    }

    func stream(_ i: Int) -> UnsafeMutablePointer<AVStream> { ctx.pointee.streams[i]! }

    /// How many video samples the container's index lists (MP4/MOV: every sample of the sample table, as far as
    /// read; other formats may index keyframes only).
    package var videoIndexEntries: Int { Int(avformat_index_get_entries_count(videoStream)) }
    /// Whether a file cut short still holds any of the video samples its index lists (a fast-start file cut right
    /// after its media data's header holds none): nil where the index does not say (no index, or no file size).
    var holdsAnyVideoSample: Bool? {
        guard let pb = ctx.pointee.pb, videoIndexEntries > 0 else { return nil }
        let size = avio_size(pb)
        guard size > 0 else { return nil }
        return (0..<Int32(videoIndexEntries)).contains { i in
            avformat_index_get_entry(videoStream, i).map { $0.pointee.pos >= 0 && $0.pointee.pos + Int64($0.pointee.size) <= size } ?? false
        }
    }

    /// What the video's own pictures say of its timing (read once, by a reader of its own; nil where that cannot be
    /// cheap): the rate, the length and the last picture's duration are the pictures' where the container's word
    /// disagrees.
    package private(set) lazy var pictureTiming: PictureTiming? = PictureTiming.survey(path: path, videoStream: videoStreamIndex)

    /// What is wrong with the file's movie box (MovieStructure), read once.
    private(set) lazy var movieStructureProblem: String? = MovieStructure.problem(path: path)
    /// The video sample count an MP4/MOV sample table declares, which a damaged chunk table (stsc) can keep the
    /// demuxer from indexing ("STSC entry … is invalid", a warning only); 0 for other containers.
    package var videoSamplesDeclared: Int { isMovie ? Int(max(0, videoStream.pointee.nb_frames)) : 0 }
    /// An MP4/MOV (ISO-BMFF, QuickTime) input: libavformat's "mov,mp4,m4a,3gp,3g2,mj2".
    package var isMovie: Bool { String(cString: ctx.pointee.iformat.pointee.name).hasPrefix("mov") }
    var videoStream: UnsafeMutablePointer<AVStream> { stream(videoStreamIndex) }
    /// The video stream's temporal layers (a layered slow-motion capture), read from its parameters; nil when it has none.
    package func videoTemporalLayers() -> TemporalLayers? { TemporalLayers(stream: videoStream) }
    /// Our own slice-data check for the video stream (H.264 and HEVC; nil for other codecs).
    package func videoBitstreamCheck() -> BitstreamCheck? { BitstreamCheck(stream: videoStream) }

    /// The next packet of any stream, or nil at the end of the file. A read error other than EOF means the
    /// file is damaged (truncated mdat, broken index).
    package func readPacket(into packet: Packet) throws -> Bool {
        av_packet_unref(packet.av)
        let r = av_read_frame(ctx, packet.av)
        if r == ffEOF { return false }
        if r < 0 {
            // Truncated files surface as EOF mid-stream or I/O errors.
            throw SDRifyError.invalidInput("\(path): damaged or truncated input (\(ffErrorString(r)))")
        }
        rebase?.apply(packet.av, timeBase: TimeBase(stream(packet.streamIndex).pointee.time_base))
        // --max-duration binds inputs whose headers do not say (or understate) how long they are.
        // A raw stream's packets carry no times: their count at the frame rate stands in.
        if Limits.current.maxDuration != nil, packet.streamIndex == videoStreamIndex {
            videoPacketsRead += 1
            let seconds =
                packet.pts.map { Double($0 - videoStartTicks) * videoTimeBase.seconds }
                ?? Double(videoPacketsRead - 1) / videoFrameRate.fps
            try Limits.checkDuration(seconds, of: path, running: true)
        }
        return true
    }

    /// How many video packets the rest of the file holds, read without decoding (a raw bitstream says nothing of
    /// its length in any header). Leaves the input at its end.
    package func countVideoPackets() throws -> Int {
        let packet = try Packet()
        var count = 0
        while try readPacket(into: packet) { if packet.streamIndex == videoStreamIndex { count += 1 } }
        return count
    }

    /// How long the pictures of a stream whose timestamps may jump last once re-based (its header states the span
    /// from the first timestamp to the last, splices included): read to the end without decoding. Leaves the input
    /// at its end; nil without timestamps.
    package func rebasedVideoLength() throws -> MediaTime? {
        let packet = try Packet()
        var first: Int64? = nil, end: Int64? = nil
        while try readPacket(into: packet) {
            guard packet.streamIndex == videoStreamIndex, let pts = packet.pts else { continue }
            first = min(first ?? pts, pts)
            end = max(end ?? pts, pts + max(packet.av.pointee.duration, 0))
        }
        guard let first, let end, end > first else { return nil }
        return MediaTime(ticks: end - first, videoTimeBase)
    }

    package var trackCount: Int { Int(ctx.pointee.nb_streams) }
    /// How long the container says track `i` lasts, in its own ticks (nil where it does not say).
    package func statedDurationTicks(_ i: Int) -> Int64? {
        let d = stream(i).pointee.duration
        return d == ffNoPTS || d <= 0 ? nil : d
    }
    /// Where the container says track `i` ends, in its own ticks: its start plus its stated duration (nil where it
    /// states none). The video's start is its first picture's (`videoStartTicks`), any other track's libavformat's.
    package func statedEndTicks(_ i: Int) -> Int64? {
        guard let duration = statedDurationTicks(i) else { return nil }
        let start = stream(i).pointee.start_time
        return (i == videoStreamIndex ? videoStartTicks : (start == ffNoPTS ? 0 : start)) + duration
    }
    /// `statedEndTicks` as a time.
    package func trackEnd(_ i: Int) -> MediaTime? { statedEndTicks(i).map { MediaTime(ticks: $0, TimeBase(stream(i).pointee.time_base)) } }
    package func isDataTrack(_ i: Int) -> Bool { i >= 0 && i < trackCount && stream(i).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_DATA }
    /// The container's own ID of track `i` (MP4/MOV: tkhd's track ID).
    package func containerTrackID(_ i: Int) -> Int { Int(stream(i).pointee.id) }

    /// Every sample of the data tracks (timed metadata, telemetry), or of track `only`, in file order: its track,
    /// time and duration in seconds, and bytes. Other streams are skipped unread.
    package func dataSamples(only: Int? = nil) throws -> [(track: Int, time: MediaTime, duration: MediaTime, bytes: Data)] {
        var wanted = Set<Int>()
        for i in 0..<Int(ctx.pointee.nb_streams) {
            let isData = stream(i).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_DATA
            if isData && (only == nil || only == i) { wanted.insert(i) } else { stream(i).pointee.discard = AVDISCARD_ALL }
        }
        let packet = try Packet()
        var out: [(track: Int, time: MediaTime, duration: MediaTime, bytes: Data)] = []
        while try readPacket(into: packet) {
            let i = packet.streamIndex
            guard wanted.contains(i), let data = packet.av.pointee.data else { continue }
            let base = TimeBase(stream(i).pointee.time_base)
            let pts = packet.av.pointee.pts == ffNoPTS ? packet.av.pointee.dts : packet.av.pointee.pts
            out.append(
                (
                    i, MediaTime(ticks: pts, base), MediaTime(ticks: packet.av.pointee.duration, base),
                    Data(bytes: data, count: Int(packet.av.pointee.size))
                ))
        }
        return out
    }

    /// Reads only stream `index`: the others are skipped without being read where the container allows.
    func readOnly(streams indices: [Int]) {
        for i in 0..<Int(ctx.pointee.nb_streams) where !indices.contains(i) { ctx.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL }
    }

    /// The audio streams a conversion keeps for `choice` (AudioTrackChoice), in order; a choice the input cannot
    /// meet is a usage error that names what it has.
    package func audioStreams(for choice: AudioTrackChoice) throws -> [Int] {
        let audio = (0..<trackCount).filter { stream($0).pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        func language(_ i: Int) -> String? { MediaInspector.tag(stream(i).pointee.metadata, "language").flatMap { $0 == "und" ? nil : $0 } }
        let listed = audio.map { i in language(i).map { "\(i) (\($0))" } ?? "\(i)" }.joined(separator: ", ")
        let has = audio.isEmpty ? "the input has no audio track" : "the input's audio tracks are \(listed)"
        switch choice {
        case .automatic:
            return audioStreamIndex.map { [$0] } ?? []
        case .index(let n):
            guard audio.contains(n) else { throw SDRifyError.usage("--audio-track \(n): no such audio track (\(has))") }
            try decodable(n)
            return [n]
        case .language(let code):
            let matching = audio.filter { language($0)?.lowercased() == code.lowercased() }
            // The track marked default among them, else the first.
            let pick = matching.first { stream($0).pointee.disposition & AV_DISPOSITION_DEFAULT != 0 } ?? matching.first
            guard let pick else { throw SDRifyError.usage("--audio-track \(code): no audio track in that language (\(has))") }
            try decodable(pick)
            return [pick]
        case .all:
            for i in audio { try decodable(i) }
            return audio
        }
    }

    /// An audio track asked for by name must be one this libavcodec decodes (AAC is copied, the rest transcoded).
    private func decodable(_ i: Int) throws {
        let id = stream(i).pointee.codecpar.pointee.codec_id
        guard id == AV_CODEC_ID_AAC || avcodec_find_decoder(id) != nil else {
            throw SDRifyError.unsupported("\(path): audio track \(i) (\(Demuxer.codecName(stream(i)))) cannot be decoded here")
        }
    }

    /// The input was moved to a keyframe by `seek`: what is read from then on is not all the index lists.
    package private(set) var seeked = false

    /// Where the video sample at byte `position` of the file stands in the container's index (0: its first
    /// sample), or nil where the index does not list it (a format without a sample index, one listing keyframes
    /// only). After a seek, the samples before it were never meant to be read.
    package func videoIndexOrdinal(ofSampleAt position: Int64) -> Int? {
        guard position >= 0 else { return nil }
        let count = avformat_index_get_entries_count(videoStream)
        for i in 0..<count where avformat_index_get_entry(videoStream, i)?.pointee.pos == position { return Int(i) }
        return nil
    }

    /// Back to the start (a seek that landed after the keyframe the wanted time needs: a stream without an index,
    /// MPEG-TS/PS, or an index whose decode times the pictures contradict): read from the start, and the range's
    /// selection skips what comes before. To the first byte where the format allows it, else to the first timestamp.
    package func rewind() throws {
        rebase?.reset()
        if ctx.pointee.iformat.pointee.flags & AVFMT_NO_BYTE_SEEK != 0 {
            try ffCheck(
                avformat_seek_file(ctx, -1, Int64.min, Int64.min, Int64.min, 0), "\(path): reading from the start again",
                status: .invalidInput)
        } else {
            try ffCheck(av_seek_frame(ctx, -1, 0, AVSEEK_FLAG_BYTE), "\(path): reading from the start again", status: .invalidInput)
        }
        seeked = false
    }

    package func seek(to time: MediaTime) throws {
        if videoStream.pointee.start_time == ffNoPTS { return }  // no timestamps: a raw elementary stream
        seeked = true
        let ts = time.ticks(TimeBase(num: 1, den: AV_TIME_BASE))
        let seconds = time.seconds
        rebase?.reset()
        try ffCheck(
            avformat_seek_file(ctx, -1, Int64.min, ts, ts, 0), "\(path): seeking to \(seconds) s",
            status: .invalidInput)
    }
}
