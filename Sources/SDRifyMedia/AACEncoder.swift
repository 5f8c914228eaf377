import CFFmpeg
import SDRifyValues

/// AAC-LC at 48 kHz (FFmpeg's native encoder), stereo at 160 kb/s or mono at 96 kb/s, fed planar float samples
/// in whole 1024-sample frames (the last one shorter); timestamps count samples from `startPTS`.
package final class AACEncoder {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: Packet
    var nextPTS: Int64 = 0
    package let frameSize: Int
    package static let sampleRate: Int32 = 48000

    package init(channels: Int32 = 2, globalHeader: Bool) throws {
        guard let enc = avcodec_find_encoder(AV_CODEC_ID_AAC), let e = avcodec_alloc_context3(enc) else {
            throw SDRifyError.conversion("no AAC encoder in this libavcodec")
        }
        ctx = e
        av_channel_layout_default(&e.pointee.ch_layout, channels)
        e.pointee.sample_rate = AACEncoder.sampleRate
        e.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        e.pointee.bit_rate = channels == 1 ? 96_000 : 160_000
        e.pointee.time_base = AVRational(num: 1, den: AACEncoder.sampleRate)
        e.pointee.profile = FF_PROFILE_AAC_LOW
        if globalHeader { e.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try ffCheck(avcodec_open2(e, enc, nil), "opening the AAC encoder")
        frameSize = e.pointee.frame_size > 0 ? Int(e.pointee.frame_size) : 1024
        guard let f = av_frame_alloc() else { throw SDRifyError.conversion("out of memory") }
        frame = f
        f.pointee.nb_samples = Int32(frameSize)
        f.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        f.pointee.sample_rate = e.pointee.sample_rate
        try ffCheck(av_channel_layout_copy(&f.pointee.ch_layout, &e.pointee.ch_layout), "audio layout")
        try ffCheck(av_frame_get_buffer(f, 0), "audio buffer")
        packet = try Packet()
    }

    deinit {
        var e: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&e)
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    package var timeBase: TimeBase { TimeBase(ctx.pointee.time_base) }

    /// Encodes `count` (≤ frameSize; less only for the last frame) samples that `fill` writes into the frame's
    /// channel planes; each packet goes to `write`.
    package func encode(count: Int, fill: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>) -> Void, write: (Packet) throws -> Void) throws {
        frame.pointee.nb_samples = Int32(frameSize)
        try ffCheck(av_frame_make_writable(frame), "audio buffer")  // a new buffer only if the encoder kept the old one
        frame.pointee.nb_samples = Int32(count)
        fill(frame.pointee.extended_data)
        frame.pointee.pts = nextPTS
        nextPTS += Int64(count)
        try ffCheck(avcodec_send_frame(ctx, frame), "encoding audio")
        try drain(write)
    }

    /// Stereo from two planes.
    package func encode(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int, write: (Packet) throws -> Void) throws {
        try encode(
            count: count,
            fill: { planes in
                planes.withMemoryRebound(to: UnsafeMutablePointer<Float>?.self, capacity: 2) {
                    $0[0]!.update(from: left, count: count)
                    $0[1]!.update(from: right, count: count)
                }
            }, write: write)
    }

    /// Samples in any number (a stage hands on 1 ms blocks): encoded in whole frames as they fill, the rest at
    /// `finishFeeding`.
    package func feed(_ planes: [UnsafePointer<Float>], count: Int, write: (Packet) throws -> Void) throws {
        if pending.isEmpty { pending = Array(repeating: [], count: planes.count) }
        for c in planes.indices { pending[c] += UnsafeBufferPointer(start: planes[c], count: count) }
        while pending[0].count >= frameSize { try encodePending(frameSize, write: write) }
    }

    /// The last samples fed (a short frame), then the encoder's tail.
    package func finishFeeding(write: (Packet) throws -> Void) throws {
        if let first = pending.first, !first.isEmpty { try encodePending(first.count, write: write) }
        try finish(write: write)
    }

    private var pending: [[Float]] = []

    private func encodePending(_ n: Int, write: (Packet) throws -> Void) throws {
        try encode(
            count: n,
            fill: { planes in
                planes.withMemoryRebound(to: UnsafeMutablePointer<Float>?.self, capacity: pending.count) { out in
                    for c in pending.indices { pending[c].withUnsafeBufferPointer { out[c]!.update(from: $0.baseAddress!, count: n) } }
                }
            }, write: write)
        for c in pending.indices { pending[c].removeFirst(n) }
    }

    package func finish(write: (Packet) throws -> Void) throws {
        let r = avcodec_send_frame(ctx, nil)
        if r != ffEOF { try ffCheck(r, "encoding audio") }
        try drain(write)
    }

    private func drain(_ write: (Packet) throws -> Void) throws {
        while true {
            av_packet_unref(packet.av)
            let r = avcodec_receive_packet(ctx, packet.av)
            if r == ffEAGAIN || r == ffEOF { return }
            try ffCheck(r, "encoding audio")
            try write(packet)
        }
    }
}
