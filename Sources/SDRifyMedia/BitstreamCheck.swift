import CBitstream
import CFFmpeg

/// Damage libavcodec decodes without a word: H.264 and HEVC slice data that no longer agrees with its own syntax
/// (a flipped bit in the entropy-coded data). Each packet's slices are parsed to their end by our own checker (C,
/// Sources/CBitstream) before the decoder sees them; see sdrify_slice_check.h for what it verifies and what it
/// leaves unchecked. Other codecs report such damage themselves (AV1's and VP9's decoders).
package final class BitstreamCheck {
    private let check: OpaquePointer

    /// A check for the stream's codec, or nil when there is none to make.
    init?(stream: UnsafeMutablePointer<AVStream>) {
        let par = stream.pointee.codecpar.pointee
        let codec: sdrify_slice_check_codec
        switch par.codec_id {
        case AV_CODEC_ID_H264: codec = SDRIFY_SLICE_CHECK_H264
        case AV_CODEC_ID_HEVC: codec = SDRIFY_SLICE_CHECK_HEVC
        default: return nil
        }
        guard let c = sdrify_slice_check_new(codec) else { return nil }
        check = c
        sdrify_slice_check_configure(c, par.extradata, Int(max(0, par.extradata_size)))
    }

    deinit { sdrify_slice_check_free(check) }

    /// What is wrong with this packet's slices, or nil.
    package func problem(in packet: Packet) -> String? {
        guard let data = packet.av.pointee.data, packet.av.pointee.size > 0 else { return nil }
        var problem: UnsafePointer<CChar>? = nil
        guard sdrify_slice_check_packet(check, data, Int(packet.av.pointee.size), &problem) > 0 else { return nil }
        return problem.map { String(cString: $0) } ?? "damaged slice data"
    }

    /// At the end of the stream: whether its last picture was whole.
    package func problemAtEnd() -> String? {
        var problem: UnsafePointer<CChar>? = nil
        guard sdrify_slice_check_finish(check, &problem) > 0 else { return nil }
        return problem.map { String(cString: $0) } ?? "damaged slice data"
    }

    /// Slices parsed to their end, and those left unchecked (tools the checker does not parse).
    package var counts: (checked: Int, unchecked: Int) {
        let c = sdrify_slice_check_get_counts(check)
        return (Int(c.slices_checked), Int(c.slices_unchecked))
    }
}
