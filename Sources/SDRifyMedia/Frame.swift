import CFFmpeg
import SDRifyProbe
import SDRifyValues

/// The planar layouts sdrify's stages work on: Y'CbCr (or grey) planes of one sample size.
package struct PlanarFormat: Equatable, Sendable {
    package var bitDepth: Int  // significant bits per sample: 8, 10, 12, 16
    package var chromaShiftX: Int  // log2 horizontal subsampling: 1 for 4:2:0 and 4:2:2
    package var chromaShiftY: Int  // log2 vertical subsampling: 1 for 4:2:0
    package var hasChroma: Bool

    package init(bitDepth: Int, chromaShiftX: Int, chromaShiftY: Int, hasChroma: Bool = true) {
        self.bitDepth = bitDepth; self.chromaShiftX = chromaShiftX; self.chromaShiftY = chromaShiftY
        self.hasChroma = hasChroma
    }

    package static let yuv420p = PlanarFormat(bitDepth: 8, chromaShiftX: 1, chromaShiftY: 1)
    package static let yuv420p10 = PlanarFormat(bitDepth: 10, chromaShiftX: 1, chromaShiftY: 1)

    /// A render's pictures of `kind`: 8-bit 4:2:0 (SDR) or 10-bit 4:2:0 (the HDR kept).
    package static func output(_ kind: HDRKind) -> PlanarFormat { kind == .sdr ? .yuv420p : .yuv420p10 }

    package var bytesPerSample: Int { bitDepth > 8 ? 2 : 1 }
    package var planeCount: Int { hasChroma ? 3 : 1 }

    /// The size of plane `i` of a `width`×`height` picture (chroma rounded up, as FFmpeg does).
    package func planeSize(_ i: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        guard i > 0 else { return (width, height) }
        return ((width + (1 << chromaShiftX) - 1) >> chromaShiftX, (height + (1 << chromaShiftY) - 1) >> chromaShiftY)
    }

    /// FFmpeg's native-endian planar format for this layout, if it has one.
    var avPixelFormat: AVPixelFormat? {
        let name: String
        switch (hasChroma, chromaShiftX, chromaShiftY) {
        case (false, _, _): name = "gray"
        case (true, 1, 1): name = "yuv420p"
        case (true, 1, 0): name = "yuv422p"
        case (true, 0, 0): name = "yuv444p"
        default: return nil
        }
        let full = bitDepth == 8 ? name : "\(name)\(bitDepth)le"
        let fmt = av_get_pix_fmt(full)
        return fmt == AV_PIX_FMT_NONE ? nil : fmt
    }

    /// The layout of an FFmpeg format when it is planar Y'CbCr/grey, little-endian, one sample per element.
    package init?(_ fmt: AVPixelFormat) {
        guard let desc = av_pix_fmt_desc_get(fmt)?.pointee else { return nil }
        let flags = desc.flags
        let planar = flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0 || desc.nb_components == 1
        guard planar, flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0,
            flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0, flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0,
            flags & UInt64(AV_PIX_FMT_FLAG_FLOAT) == 0,
            desc.nb_components == 1 || desc.nb_components >= 3
        else { return nil }
        let c0 = desc.comp.0
        guard c0.shift == 0, c0.offset == 0, c0.depth >= 8, c0.depth <= 16 else { return nil }
        // Semi-planar formats (NV12, P010) keep chroma interleaved in one plane: not ours.
        if desc.nb_components >= 3 { guard desc.comp.1.plane == 1, desc.comp.2.plane == 2 else { return nil } }
        self.init(
            bitDepth: Int(c0.depth), chromaShiftX: Int(desc.log2_chroma_w), chromaShiftY: Int(desc.log2_chroma_h),
            hasChroma: desc.nb_components >= 3)
    }
}

/// A video picture. Owns one AVFrame (reference-counted buffers); stages outside Media/ see only planes,
/// strides, the layout, the colour description and the timestamp.
package final class Frame: @unchecked Sendable {
    let av: UnsafeMutablePointer<AVFrame>

    init(owning frame: UnsafeMutablePointer<AVFrame>) { av = frame }

    /// An empty frame for the decoder to fill.
    package init() throws {
        guard let f = av_frame_alloc() else { throw SDRifyError.conversion("out of memory allocating a frame") }
        av = f
    }

    /// A new frame with its own 64-byte-aligned buffers (zimg needs 32; AVX-512 paths 64).
    package init(width: Int, height: Int, format: PlanarFormat) throws {
        guard let fmt = format.avPixelFormat else { throw SDRifyError.unsupported("no planar pixel format for \(format)") }
        guard let f = av_frame_alloc() else { throw SDRifyError.conversion("out of memory allocating a frame") }
        av = f
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = fmt.rawValue
        try ffCheck(av_frame_get_buffer(f, 64), "allocating a \(width)x\(height) frame")
    }

    deinit {
        var p: UnsafeMutablePointer<AVFrame>? = av
        av_frame_free(&p)
    }

    /// A second frame on the same picture buffers (no copy); whoever writes to either first copies (makeWritable).
    package func reference() throws -> Frame {
        guard let f = av_frame_clone(av) else { throw SDRifyError.conversion("out of memory referencing a frame") }
        return Frame(owning: f)
    }

    package var width: Int { Int(av.pointee.width) }
    package var height: Int { Int(av.pointee.height) }

    /// nil when the decoder produced a layout the stages cannot read directly (semi-planar, RGB, …).
    package var format: PlanarFormat? { PlanarFormat(AVPixelFormat(rawValue: av.pointee.format)) }

    /// Significant bits per sample of the first component (0 when the format is unknown).
    var bitDepth: Int {
        av_pix_fmt_desc_get(AVPixelFormat(rawValue: av.pointee.format)).map { Int($0.pointee.comp.0.depth) } ?? 0
    }

    package var pixelFormatName: String {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: av.pointee.format)).map { String(cString: $0) } ?? "none"
    }

    package func data(_ plane: Int) -> UnsafeMutableRawPointer {
        withUnsafeMutablePointer(to: &av.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { UnsafeMutableRawPointer($0[plane]!) }
        }
    }

    /// A `size` region of `picture` (the same layout), its top-left at `source`, copied into this frame with its
    /// top-left at `origin` (all even, so chroma lines up).
    package func copy(
        _ size: (width: Int, height: Int), of picture: Frame, from source: (x: Int, y: Int) = (0, 0), to origin: (x: Int, y: Int) = (0, 0)
    ) {
        let layout = format ?? .yuv420p, bytes = layout.bytesPerSample
        for p in 0..<layout.planeCount {
            let (w, h) = layout.planeSize(p, width: size.width, height: size.height)
            let (sx, sy, dx, dy) =
                p == 0
                ? (source.x, source.y, origin.x, origin.y)
                : (source.x >> layout.chromaShiftX, source.y >> layout.chromaShiftY, origin.x >> layout.chromaShiftX, origin.y >> layout.chromaShiftY)
            for y in 0..<h {
                (data(p) + (dy + y) * stride(p) + dx * bytes).copyMemory(
                    from: picture.data(p) + (sy + y) * picture.stride(p) + sx * bytes, byteCount: w * bytes)
            }
        }
    }

    /// Each plane's samples, row after row without padding (for tools that hand a picture to another program).
    package func planeBytes(_ format: PlanarFormat) -> [[UInt8]] {
        (0..<format.planeCount).map { p in
            let (w, h) = format.planeSize(p, width: width, height: height)
            let row = w * format.bytesPerSample
            var bytes = [UInt8](repeating: 0, count: row * h)
            bytes.withUnsafeMutableBytes { out in
                for y in 0..<h { out.baseAddress!.advanced(by: y * row).copyMemory(from: data(p) + y * stride(p), byteCount: row) }
            }
            return bytes
        }
    }

    package func stride(_ plane: Int) -> Int {
        withUnsafeMutablePointer(to: &av.pointee.linesize) { tuple in
            tuple.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[plane]) }
        }
    }

    /// How long the picture shows, in the stream's time base (nil when the container does not say).
    package var duration: Int64? {
        get { av.pointee.pkt_duration > 0 ? av.pointee.pkt_duration : nil }
        set { av.pointee.pkt_duration = newValue ?? 0 }
    }

    /// Presentation timestamp in the stream's time base (best effort for decoded frames).
    package var pts: Int64? {
        get { av.pointee.pts == ffNoPTS ? nil : av.pointee.pts }
        set { av.pointee.pts = newValue ?? ffNoPTS }
    }

    package var color: ColorDescription {
        get {
            ColorMapping.description(
                primaries: av.pointee.color_primaries, transfer: av.pointee.color_trc,
                matrix: av.pointee.colorspace, range: av.pointee.color_range,
                chroma: av.pointee.chroma_location)
        }
        set { ColorMapping.apply(newValue, to: av) }
    }

    /// Whether the picture holds two interlaced fields, and which one is shown first.
    package var isInterlaced: Bool { av.pointee.interlaced_frame != 0 }
    package var topFieldFirst: Bool { av.pointee.top_field_first != 0 }

    /// Whether the decoder flagged this picture as damaged (concealed errors).
    package var isCorrupt: Bool { av.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || av.pointee.decode_error_flags != 0 }

    /// Frame-level display matrix (H.264/HEVC display orientation SEI), if any.
    package var displayMatrix: DisplayMatrix? {
        guard let sd = av_frame_get_side_data(av, AV_FRAME_DATA_DISPLAYMATRIX), sd.pointee.size >= 36 else { return nil }
        return DisplayMatrix(
            fixedPoint: Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(sd.pointee.data)
                        .assumingMemoryBound(to: Int32.self), count: 9)))
    }

    /// Dynamic HDR metadata on this frame: Dolby Vision level 1 (read from the raw RPU) or HDR10+ (ST 2094-40,
    /// which libavcodec parses; its maxSCL and average maxRGB are in units of 0.1 cd/m² over 100000).
    package var dynamicHDR: DynamicHDRMetadata? {
        if let sd = av_frame_get_side_data(av, AV_FRAME_DATA_DOVI_RPU_BUFFER), let data = sd.pointee.data,
            let l1 = DolbyVisionLevel1.read(rpu: Array(UnsafeBufferPointer(start: data, count: Int(sd.pointee.size))))
        {
            return DynamicHDRMetadata(source: .dolbyVision, peak: l1.maxLuminance, average: l1.averageLuminance)
        }
        if let sd = av_frame_get_side_data(av, AV_FRAME_DATA_DYNAMIC_HDR_PLUS), sd.pointee.size >= MemoryLayout<AVDynamicHDRPlus>.size {
            let plus = UnsafeRawPointer(sd.pointee.data).assumingMemoryBound(to: AVDynamicHDRPlus.self).pointee
            guard plus.num_windows >= 1 else { return nil }
            let w = plus.params.0
            func nits(_ q: AVRational) -> Double { q.den > 0 ? Double(q.num) / Double(q.den) * 10000 : 0 }
            return DynamicHDRMetadata(
                source: .hdr10Plus, peak: max(nits(w.maxscl.0), nits(w.maxscl.1), nits(w.maxscl.2)),
                average: nits(w.average_maxrgb))
        }
        return nil
    }

    /// HDR metadata carried in SEI on this frame.
    package var hdrMetadata: HDRMetadata {
        var md = HDRMetadata()
        if let sd = av_frame_get_side_data(av, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA) {
            md.masteringDisplay = MediaInspector.mastering(
                UnsafeRawPointer(sd.pointee.data)
                    .assumingMemoryBound(to: AVMasteringDisplayMetadata.self).pointee)
        }
        if let sd = av_frame_get_side_data(av, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL) {
            let c = UnsafeRawPointer(sd.pointee.data).assumingMemoryBound(to: AVContentLightMetadata.self).pointee
            md.contentLightLevel = ContentLightLevel(maxCLL: Int(c.MaxCLL), maxFALL: Int(c.MaxFALL))
        }
        return md
    }
}

extension Frame {
    /// Ensures the buffers are ours alone before we write into them again (the encoder may still hold a
    /// reference to the previous picture); reallocates only when they are shared.
    package func makeWritable() throws {
        try ffCheck(av_frame_make_writable(av), "preparing a frame buffer")
    }

    /// (pointer, stride) of each plane, for zimg.
    package func planes(_ count: Int) -> [(UnsafeMutableRawPointer, Int)] { (0..<count).map { (data($0), stride($0)) } }
}

/// A fixed ring of a render's output pictures (8-bit 4:2:0 BT.709; of `kind` HDR, 10-bit BT.2020), handed out in
/// turn; each is made writable (reallocated only if the encoder still holds it) before it is reused.
package final class FrameRing: @unchecked Sendable {
    private let frames: [Frame]
    private var index = 0

    package init(size: Int, width: Int, height: Int, kind: HDRKind = .sdr) throws {
        frames = try (0..<max(1, size)).map { _ in
            let f = try Frame(width: width, height: height, format: .output(kind))
            f.color = .output(kind)
            return f
        }
    }

    package func next() throws -> Frame {
        let f = frames[index]
        index = (index + 1) % frames.count
        try f.makeWritable()
        return f
    }
}

extension Packet {
    /// A new packet that takes over this one's contents (this one is left empty for the next read).
    func moved() throws -> Packet {
        let p = try Packet()
        av_packet_move_ref(p.av, av)
        return p
    }
}
