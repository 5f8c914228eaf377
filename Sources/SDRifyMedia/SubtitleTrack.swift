import CFFmpeg
import Foundation
import SDRifyValues

/// A soft subtitle track written into MP4/MOV as `mov_text` (tx3g) with its language: each cue encoded by
/// libavcodec's mov_text encoder from its ASS form (italics, bold, underline and colour kept as tx3g styles).
package final class SubtitleTrack {
    private let encoder: UnsafeMutablePointer<AVCodecContext>
    let stream: Int
    static let timeBase = AVRational(num: 1, den: 1000)

    /// `header`: the ASS script head the encoder reads its default style from.
    package init(muxer: Muxer, language: String?, header: String) throws {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT), let ctx = avcodec_alloc_context3(codec) else {
            throw SDRifyError.unsupported("this libavcodec has no mov_text encoder")
        }
        encoder = ctx
        ctx.pointee.time_base = SubtitleTrack.timeBase
        let bytes = Array(header.utf8)
        guard let buffer = av_mallocz(bytes.count + 1)?.assumingMemoryBound(to: UInt8.self) else { throw SDRifyError.conversion("out of memory") }
        buffer.update(from: bytes, count: bytes.count)
        ctx.pointee.subtitle_header = buffer
        ctx.pointee.subtitle_header_size = Int32(bytes.count)
        try ffCheck(avcodec_open2(ctx, codec, nil), "mov_text encoder")
        stream = try muxer.addStream(subtitles: ctx, language: language)
    }

    deinit {
        var c: UnsafeMutablePointer<AVCodecContext>? = encoder
        avcodec_free_context(&c)
    }

    /// Encodes every event (seconds, ASS dialogue text) and hands it to the muxer (after its header is written).
    package func write(_ events: [(start: Double, end: Double, text: String)], to muxer: Muxer) throws {
        let packet = try Packet()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for cue in events where cue.end > cue.start {
            let text = cue.text
            var sub = AVSubtitle()
            sub.format = 1
            sub.end_display_time = UInt32(((cue.end - cue.start) * 1000).rounded())
            guard let rect = av_mallocz(MemoryLayout<AVSubtitleRect>.size)?.assumingMemoryBound(to: AVSubtitleRect.self),
                let rects = av_mallocz(MemoryLayout<UnsafeMutablePointer<AVSubtitleRect>?>.size)?
                    .assumingMemoryBound(to: UnsafeMutablePointer<AVSubtitleRect>?.self)
            else { throw SDRifyError.conversion("out of memory") }
            rect.pointee.type = SUBTITLE_ASS
            rect.pointee.ass = av_strdup("0,0,Default,,0,0,0,,\(text)")
            rects[0] = rect
            sub.rects = rects
            sub.num_rects = 1
            let n = buffer.withUnsafeMutableBufferPointer { avcodec_encode_subtitle(encoder, $0.baseAddress, Int32($0.count), &sub) }
            avsubtitle_free(&sub)
            guard n > 0 else { throw SDRifyError.conversion("encoding a subtitle at \(cue.start) s (\(ffErrorString(n)))") }
            av_packet_unref(packet.av)
            try ffCheck(av_new_packet(packet.av, n), "subtitle packet")
            packet.av.pointee.data.update(from: buffer, count: Int(n))
            packet.av.pointee.pts = Int64((cue.start * 1000).rounded())
            packet.av.pointee.dts = packet.av.pointee.pts
            packet.av.pointee.duration = max(1, Int64(((cue.end - cue.start) * 1000).rounded()))
            try muxer.write(packet, stream: stream, from: SubtitleTrack.timeBase)
        }
    }
}
