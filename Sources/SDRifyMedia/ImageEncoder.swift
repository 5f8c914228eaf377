import CFFmpeg
import Foundation
import SDRifyProbe
import SDRifyValues

/// Still pictures written as image files (posters): an output picture (8-bit 4:2:0 BT.709 limited range) in the
/// form each file type's readers assume. PNG holds it as RGB (BT.709 matrix); JPEG as JFIF's full-range BT.601
/// Y'CbCr, converted through RGB so every reader's colours match the video's; WebP as RGB, which libwebp codes
/// itself.
package enum ImageFileType: String, CaseIterable, Sendable {
    case jpeg, png, webp

    /// The extensions a file of this type is named with, the one sdrify writes first: the one home of the image
    /// extensions every message, usage line and help text lists.
    package var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg"]
        case .png: ["png"]
        case .webp: ["webp"]
        }
    }

    /// By the file's extension; nil for any other.
    package init?(path: String) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let type = ImageFileType.allCases.first(where: { $0.fileExtensions.contains(ext) }) else { return nil }
        self = type
    }

    /// ".jpg, .png or .webp", for messages and help.
    package static let extensions = spokenList(allCases.map { "." + $0.fileExtensions[0] })
    /// ".jpg|.png|.webp", for a usage line.
    package static let usageForm = allCases.map { "." + $0.fileExtensions[0] }.joined(separator: "|")

    /// Why `path` cannot take a gain map (nil when it can): the map is written in JPEG (Ultra HDR) only.
    package static func gainMapProblem(_ path: String) -> String? {
        ImageFileType(path: path) == .jpeg ? nil : "\(path): a gain map is written in JPEG (Ultra HDR): use .jpg, or leave --gain-map out"
    }
}

package enum ImageEncoder {
    /// An output picture as the packed 8-bit R'G'B' every image file is made from (a gain map's base: the map is
    /// computed against exactly these values).
    package static func rgb(_ picture: Frame) throws -> [UInt8] {
        let (w, h) = (picture.width, picture.height)
        let rgb = try convert(picture.av, to: AV_PIX_FMT_RGB24, fromMatrix: SWS_CS_ITU709, fullRange: false)
        defer { var p: UnsafeMutablePointer<AVFrame>? = rgb; av_frame_free(&p) }
        let stride = Int(rgb.pointee.linesize.0)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h { (dst.baseAddress! + y * w * 3).update(from: rgb.pointee.data.0! + y * stride, count: w * 3) }
        }
        return out
    }

    /// The encoded file's bytes.
    package static func encode(_ picture: Frame, as type: ImageFileType) throws -> [UInt8] {
        // Through RGB (exact BT.709 limited-range → RGB), then into the file type's own pixel form.
        let rgb = try convert(picture.av, to: AV_PIX_FMT_RGB24, fromMatrix: SWS_CS_ITU709, fullRange: false)
        defer { var p: UnsafeMutablePointer<AVFrame>? = rgb; av_frame_free(&p) }
        let (encoderName, pixels): (String, UnsafeMutablePointer<AVFrame>)
        switch type {
        case .png: (encoderName, pixels) = ("png", rgb)
        case .jpeg: (encoderName, pixels) = ("mjpeg", try convert(rgb, to: AV_PIX_FMT_YUVJ420P, fromMatrix: SWS_CS_ITU601, fullRange: true))
        case .webp: (encoderName, pixels) = ("libwebp", try convert(rgb, to: AV_PIX_FMT_BGRA, fromMatrix: SWS_CS_ITU709, fullRange: true))
        }
        defer { if pixels != rgb { var p: UnsafeMutablePointer<AVFrame>? = pixels; av_frame_free(&p) } }
        return try encode(pixels, with: encoderName, as: type)
    }

    /// Packed 8-bit R, G, B samples (a gain map's base, or its stored values) as a JPEG of full-resolution chroma
    /// (4:4:4: each channel's values kept apart as well as JPEG keeps them: a viewer multiplies base and map as it
    /// decodes them), at the posters' quality.
    package static func jpeg(rgb: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        precondition(rgb.count == width * height * 3)
        guard let frame = av_frame_alloc() else { throw SDRifyError.conversion("out of memory") }
        defer { var p: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&p) }
        frame.pointee.width = Int32(width); frame.pointee.height = Int32(height); frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        try ffCheck(av_frame_get_buffer(frame, 64), "allocating a \(width)x\(height) picture")
        let stride = Int(frame.pointee.linesize.0)
        rgb.withUnsafeBufferPointer { src in
            for y in 0..<height { (frame.pointee.data.0! + y * stride).update(from: src.baseAddress! + y * width * 3, count: width * 3) }
        }
        let yuv = try convert(frame, to: AV_PIX_FMT_YUVJ444P, fromMatrix: SWS_CS_ITU601, fullRange: true)
        defer { var p: UnsafeMutablePointer<AVFrame>? = yuv; av_frame_free(&p) }
        return try encode(yuv, with: "mjpeg", as: .jpeg)
    }

    /// One picture, already in the pixel form of `type`, through libavcodec's `encoderName`.
    private static func encode(_ pixels: UnsafeMutablePointer<AVFrame>, with encoderName: String, as type: ImageFileType) throws -> [UInt8] {
        let (w, h) = (Int(pixels.pointee.width), Int(pixels.pointee.height))
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw SDRifyError.unsupported("this libavcodec has no \(encoderName) encoder for \(type.rawValue) files")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw SDRifyError.conversion("out of memory") }
        defer { var p: UnsafeMutablePointer<AVCodecContext>? = ctx; avcodec_free_context(&p) }
        ctx.pointee.width = Int32(w)
        ctx.pointee.height = Int32(h)
        ctx.pointee.pix_fmt = AVPixelFormat(rawValue: pixels.pointee.format)
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        var opts: OpaquePointer? = nil
        defer { av_dict_free(&opts) }
        switch type {
        case .jpeg:
            // High quality (qscale 2, as `ffmpeg -q:v 2`): the poster should look like the video, not like a JPEG.
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = 2 * FF_QP2LAMBDA
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
            pixels.pointee.quality = ctx.pointee.global_quality
        case .webp:
            av_dict_set(&opts, "quality", "90", 0)
        case .png:
            break
        }
        try ffCheck(avcodec_open2(ctx, codec, &opts), "opening the \(encoderName) encoder")
        try ffCheck(avcodec_send_frame(ctx, pixels), "encoding the \(type.rawValue) picture")
        try ffCheck(avcodec_send_frame(ctx, nil), "encoding the \(type.rawValue) picture")
        let packet = try Packet()
        var bytes: [UInt8] = []
        while avcodec_receive_packet(ctx, packet.av) >= 0 {
            bytes += UnsafeBufferPointer(start: packet.av.pointee.data, count: Int(packet.av.pointee.size))
            av_packet_unref(packet.av)
        }
        guard !bytes.isEmpty else { throw SDRifyError.conversion("the \(encoderName) encoder gave no picture") }
        return OutputMark.stamped(bytes)  // what -y may replace
    }

    /// `source` in pixel format `format`: Y'CbCr ↔ RGB with `matrix` on the Y'CbCr side, limited or full range.
    private static func convert(
        _ source: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat, fromMatrix matrix: Int32,
        fullRange: Bool
    ) throws -> UnsafeMutablePointer<AVFrame> {
        let (w, h) = (source.pointee.width, source.pointee.height)
        let from = AVPixelFormat(rawValue: source.pointee.format)
        let flags = SWS_BICUBIC
        guard let sws = sws_getContext(w, h, from, w, h, format, flags, nil, nil, nil) else {
            throw SDRifyError.conversion("cannot convert the picture for the image file")
        }
        defer { sws_freeContext(sws) }
        let coefficients = sws_getCoefficients(matrix)
        let fromRGB = from == AV_PIX_FMT_RGB24
        // The Y'CbCr side's range: limited for the output picture (source), full for JPEG (destination).
        sws_setColorspaceDetails(
            sws, coefficients, fromRGB ? 1 : (fullRange ? 1 : 0), coefficients, fromRGB ? (fullRange ? 1 : 0) : 1,
            0, 1 << 16, 1 << 16)
        guard let out = av_frame_alloc() else { throw SDRifyError.conversion("out of memory") }
        out.pointee.width = w; out.pointee.height = h; out.pointee.format = format.rawValue
        do {
            try ffCheck(av_frame_get_buffer(out, 64), "allocating a \(w)x\(h) picture")
            let src = planeArrays(source), dst = planeArrays(out)
            guard sws_scale(sws, src.data.map { UnsafePointer($0) }, src.linesize, 0, h, dst.data, dst.linesize) == h else {
                throw SDRifyError.conversion("cannot convert the picture for the image file")
            }
        } catch {
            var p: UnsafeMutablePointer<AVFrame>? = out
            av_frame_free(&p)
            throw error
        }
        return out
    }
}
