import CFFmpeg
import SDRifyValues

/// Decoded pictures in layouts the stages do not read (RGB and palettes: GIF, QuickTime Animation, PNG, x264rgb;
/// packed or semi-planar Y'CbCr: UYVY, NV12) become planar Y'CbCr of the same size with swscale, once per picture:
/// RGB → 4:4:4 with the BT.709 matrix in limited range (primaries and transfer as tagged); Y'CbCr is only
/// repacked, with its subsampling and colour kept. 8-bit stays 8-bit, anything deeper becomes 16-bit.
package final class PlanarRepacker {
    private let sws: OpaquePointer
    private let output: Frame
    private let fromRGB: Bool
    private let sourceFormat: Int32

    /// For pictures shaped like `frame` (the first one of the stream); nil if swscale cannot read its layout.
    package init?(like frame: Frame) throws {
        sourceFormat = frame.av.pointee.format
        let source = AVPixelFormat(rawValue: sourceFormat)
        guard let desc = av_pix_fmt_desc_get(source)?.pointee, sws_isSupportedInput(source) > 0 else { return nil }
        let flags = desc.flags
        fromRGB = flags & UInt64(AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL) != 0
        let depth = desc.comp.0.depth <= 8 ? 8 : 16
        let grey = !fromRGB && desc.nb_components <= 2
        var layout =
            fromRGB || grey
            ? PlanarFormat(bitDepth: depth, chromaShiftX: 0, chromaShiftY: 0, hasChroma: !grey)
            : PlanarFormat(bitDepth: depth, chromaShiftX: Int(desc.log2_chroma_w), chromaShiftY: Int(desc.log2_chroma_h))
        if layout.avPixelFormat == nil { layout = PlanarFormat(bitDepth: depth, chromaShiftX: 0, chromaShiftY: 0) }
        guard let target = layout.avPixelFormat, sws_isSupportedOutput(target) > 0 else { return nil }
        output = try Frame(width: frame.width, height: frame.height, format: layout)
        // Same size, so no filtering; accurate rounding for the matrix.
        guard
            let ctx = sws_getContext(
                Int32(frame.width), Int32(frame.height), source, Int32(frame.width),
                Int32(frame.height), target, SWS_POINT | SWS_ACCURATE_RND, nil, nil, nil)
        else {
            return nil
        }
        sws = ctx
        let color = frame.color
        let fullRange = fromRGB || color.range == .full
        let matrix = sws_getCoefficients(SWS_CS_ITU709)
        // RGB in full range → BT.709 Y'CbCr in limited range; Y'CbCr keeps its range (the matrix is not applied).
        sws_setColorspaceDetails(ctx, matrix, fullRange ? 1 : 0, matrix, fromRGB ? 0 : (fullRange ? 1 : 0), 0, 1 << 16, 1 << 16)
    }

    deinit { sws_freeContext(sws) }

    /// Whether `frame` has the size and layout this repacker was made for.
    package func accepts(_ frame: Frame) -> Bool {
        frame.width == output.width && frame.height == output.height && frame.av.pointee.format == sourceFormat
    }

    /// The picture repacked into this repacker's one output frame (valid until the next call).
    package func repack(_ frame: Frame) throws -> Frame {
        guard accepts(frame) else {
            throw SDRifyError.unsupported("the picture size or pixel format changed mid-stream")
        }
        let src = planeArrays(frame.av), dst = planeArrays(output.av)
        let rows = sws_scale(sws, src.data.map { UnsafePointer($0) }, src.linesize, 0, Int32(frame.height), dst.data, dst.linesize)
        guard rows == Int32(frame.height) else { throw SDRifyError.conversion("repacking a \(frame.pixelFormatName) picture") }
        var color = frame.color
        if fromRGB { color.matrix = .bt709; color.range = .limited }
        output.color = color
        output.pts = frame.pts
        output.av.pointee.interlaced_frame = frame.av.pointee.interlaced_frame  // the deinterlacer comes next
        output.av.pointee.top_field_first = frame.av.pointee.top_field_first
        return output
    }
}
