import CFFmpeg
import Foundation
import SDRifyProbe
import SDRifyValues

/// The input's own subtitle tracks: which there are, and a text track's cues decoded by libavcodec into ASS event
/// text (with their times in seconds of the input's clock).
extension Demuxer {
    package struct SubtitleTrackInfo {
        package let index: Int
        package let codec: String
        package let language: String?
        package let isText: Bool  // text cues (mov_text, SubRip, ASS, WebVTT…); bitmaps (DVD, PGS) cannot be restyled
    }

    /// Track `i` as probe describes it (type, codec, sample entry, language, dispositions).
    package func track(_ i: Int) -> TrackInfo {
        MediaInspector.track(stream(i), index: i, main: i == videoStreamIndex || i == audioStreamIndex)
    }

    package var subtitleTracks: [SubtitleTrackInfo] {
        (0..<trackCount).compactMap { i in
            let par = stream(i).pointee.codecpar.pointee
            guard par.codec_type == AVMEDIA_TYPE_SUBTITLE else { return nil }
            let props = avcodec_descriptor_get(par.codec_id)?.pointee.props ?? 0
            return SubtitleTrackInfo(
                index: i, codec: String(cString: avcodec_get_name(par.codec_id)),
                language: MediaInspector.tag(stream(i).pointee.metadata, "language").flatMap { $0 == "und" ? nil : $0 },
                isText: props & Int32(AV_CODEC_PROP_TEXT_SUB) != 0)
        }
    }

    /// Every cue of text subtitle track `index` as (start, end, ASS dialogue text), reading the file from its start.
    package func subtitleEvents(track index: Int) throws -> [(start: Double, end: Double, text: String)] {
        let st = stream(index)
        guard let codec = avcodec_find_decoder(st.pointee.codecpar.pointee.codec_id), let ctx = avcodec_alloc_context3(codec) else {
            throw SDRifyError.unsupported("\(path): no decoder here for subtitle track \(index)")
        }
        var decoder: UnsafeMutablePointer<AVCodecContext>? = ctx
        defer { avcodec_free_context(&decoder) }
        try ffCheck(avcodec_parameters_to_context(ctx, st.pointee.codecpar), "subtitle decoder parameters")
        ctx.pointee.pkt_timebase = st.pointee.time_base
        try ffCheck(avcodec_open2(ctx, codec, nil), "\(path): subtitle decoder", status: .invalidInput)
        for i in 0..<trackCount where i != index { stream(i).pointee.discard = AVDISCARD_ALL }
        try seek(to: .zero)
        let tb = st.pointee.time_base.double
        let packet = try Packet()
        var out: [(start: Double, end: Double, text: String)] = []
        while try readPacket(into: packet) {
            guard packet.streamIndex == index, packet.av.pointee.size > 0 else { continue }
            var sub = AVSubtitle()
            var got: Int32 = 0
            guard avcodec_decode_subtitle2(ctx, &sub, &got, packet.av) >= 0, got != 0 else { continue }
            defer { avsubtitle_free(&sub) }
            let start = Double(packet.av.pointee.pts == ffNoPTS ? packet.av.pointee.dts : packet.av.pointee.pts) * tb
            let end =
                packet.av.pointee.duration > 0
                ? start + Double(packet.av.pointee.duration) * tb
                : start + Double(sub.end_display_time) / 1000
            for r in 0..<Int(sub.num_rects) {
                guard let rect = sub.rects[r], let ass = rect.pointee.ass else { continue }
                // "ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text"
                let fields = String(cString: ass).split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
                if fields.count == 9, end > start { out.append((start, end, String(fields[8]))) }
            }
        }
        return out
    }
}
