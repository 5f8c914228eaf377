import CFFmpeg
import SDRifySecurity
import SDRifyValues

/// One decoded sticker picture: straight (not premultiplied) 8-bit RGBA, and how long it shows in an animation.
package struct RGBAImage: Sendable {
    package let width: Int
    package let height: Int
    package let pixels: [UInt8]  // width × height × 4, row-major, R G B A
    package let duration: Double  // seconds (animations); 0 for a still
    /// The primaries its R'G'B' is in when they are not BT.709/sRGB's (a Display P3 HEIC), so a photo shown as video
    /// is converted into BT.709's gamut; nil: BT.709/sRGB.
    package var primaries: ColorPrimaries? = nil
    /// What the photo was before it was made upright and SDR, for reports.
    package var origin = PhotoOrigin()

    package init(width: Int, height: Int, pixels: [UInt8], duration: Double, primaries: ColorPrimaries? = nil) {
        self.width = width; self.height = height; self.pixels = pixels; self.duration = duration; self.primaries = primaries
    }

    /// The part `rect` of the picture (checked to lie inside it: Framing.check; what lies outside is left out).
    package func cropped(_ rect: CropRect) -> RGBAImage {
        let x = min(rect.x, width - 1), y = min(rect.y, height - 1)
        let w = max(1, min(rect.width, width - x)), h = max(1, min(rect.height, height - y))
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for row in 0..<h {
            let from = ((y + row) * width + x) * 4, to = row * w * 4
            out[to..<to + w * 4] = pixels[from..<from + w * 4]
        }
        return RGBAImage(width: w, height: h, pixels: out, duration: duration, primaries: primaries)
    }

    /// The picture made upright (a photo's EXIF orientation, which FFmpeg gives as a display matrix).
    package func upright(_ o: Orientation) -> RGBAImage {
        let (uw, uh) = o.uprightSize(width: width, height: height)
        var out = [UInt8](repeating: 0, count: uw * uh * 4)
        for y in 0..<uh {
            for x in 0..<uw {
                let s = o.codedPixel(ofUpright: x, y, width: width, height: height)
                let from = (s.y * width + s.x) * 4, to = (y * uw + x) * 4
                out[to..<to + 4] = pixels[from..<from + 4]
            }
        }
        var turned = RGBAImage(width: uw, height: uh, pixels: out, duration: duration, primaries: primaries)
        turned.origin = origin
        return turned
    }
}

/// A decoded photo's own orientation (EXIF, HEIF `irot`/`imir`), already applied, and its HDR kind before any tone
/// mapping.
package struct PhotoOrigin: Sendable {
    package var orientation = Orientation.up
    package var hdr = HDRKind.sdr
}

/// Decodes a still or animated image (PNG, JPEG, GIF, APNG, WebP…) with libavformat/libavcodec into RGBA
/// frames, once, up front; a HEIF still (HEIC, AVIF) by our own item reader (HEIFDecoder).
package enum ImageDecoder {
    static let maxFrames = 1000
    static let maxPixels = 4096 * 4096

    /// Turns a decoded HDR picture (PQ, HLG) into 8-bit 4:2:0 BT.709 of the same size: tone mapping lives above
    /// this folder, so the callers that show photos as video pass it.
    package typealias HDRToSDR = (_ frame: Frame, _ format: PlanarFormat, _ color: ColorDescription) throws -> Frame

    /// `maxPixels`: stickers are small; a picture shown as a clip may be a 48-megapixel photo. `hdr`: how an HDR
    /// photo becomes SDR (nil: its signal converted as it is).
    package static func decode(path: String, maxPixels: Int = ImageDecoder.maxPixels, firstOnly: Bool = false, hdr: HDRToSDR? = nil) throws
        -> [RGBAImage]
    {
        if HEIFDecoder.isHEIF(path: path) { return [try heif(path: path, maxPixels: maxPixels, hdr: hdr)] }
        var c: UnsafeMutablePointer<AVFormatContext>? = nil
        guard avformat_open_input(&c, path, nil, nil) >= 0, let ctx = c else {
            throw SDRifyError.invalidInput("\(path): cannot read this image")
        }
        defer { var p: UnsafeMutablePointer<AVFormatContext>? = ctx; avformat_close_input(&p) }
        guard avformat_find_stream_info(ctx, nil) >= 0 else { throw SDRifyError.invalidInput("\(path): cannot read this image") }
        let index = av_find_best_stream(ctx, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0 else { throw SDRifyError.invalidInput("\(path): not an image") }
        let stream = ctx.pointee.streams[Int(index)]!
        let par = stream.pointee.codecpar!
        try Limits.checkPicture(width: Int(par.pointee.width), height: Int(par.pointee.height), in: path)
        guard par.pointee.width > 0, par.pointee.height > 0 else { throw SDRifyError.invalidInput("\(path): damaged image (no picture size)") }
        guard Int(par.pointee.width) * Int(par.pointee.height) <= maxPixels else {
            throw SDRifyError.unsupported("\(path): image size \(par.pointee.width)x\(par.pointee.height) is larger than sdrify takes here")
        }
        guard let codec = avcodec_find_decoder(par.pointee.codec_id), let d = avcodec_alloc_context3(codec) else {
            throw SDRifyError.unsupported("\(path): no decoder for this image")
        }
        var dec: UnsafeMutablePointer<AVCodecContext>? = d
        defer { avcodec_free_context(&dec) }
        guard avcodec_parameters_to_context(d, par) >= 0, avcodec_open2(d, codec, nil) >= 0 else {
            throw SDRifyError.invalidInput("\(path): cannot decode this image")
        }
        let tb = stream.pointee.time_base
        var images: [RGBAImage] = []
        var lastPTS: Int64? = nil
        let packet = try Packet()
        let frame = try Frame()

        func receiveAll() throws {
            while true {
                let r = avcodec_receive_frame(d, frame.av)
                if r == ffEAGAIN || r == ffEOF { return }
                guard r >= 0 else { throw SDRifyError.invalidInput("\(path): damaged image (\(ffErrorString(r)))") }
                let pts = frame.av.pointee.best_effort_timestamp
                let duration = frame.av.pointee.pkt_duration > 0 ? Double(frame.av.pointee.pkt_duration) * tb.double : 0.1
                if let last = lastPTS, pts != ffNoPTS, pts > last, let previous = images.popLast() {
                    // The display time of the previous frame is the gap to this one.
                    images.append(
                        RGBAImage(
                            width: previous.width, height: previous.height, pixels: previous.pixels,
                            duration: Double(pts - last) * tb.double))
                }
                if pts != ffNoPTS { lastPTS = pts }
                var image = try rgba(frame.av, duration: duration, path: path)
                if let matrix = frame.displayMatrix, let o = Orientation(matrix: matrix), o != .up {
                    image = image.upright(o)
                    image.origin.orientation = o
                }
                images.append(image)
                av_frame_unref(frame.av)
                if firstOnly { return }
                guard images.count <= maxFrames else { throw SDRifyError.invalidInput("\(path): more than \(maxFrames) frames") }
            }
        }
        while (images.isEmpty || !firstOnly), av_read_frame(ctx, packet.av) >= 0 {
            if packet.streamIndex == Int(index) {
                if avcodec_send_packet(d, packet.av) < 0 { throw SDRifyError.invalidInput("\(path): damaged image") }
                try receiveAll()
            }
            av_packet_unref(packet.av)
        }
        avcodec_send_packet(d, nil)
        try receiveAll()
        guard !images.isEmpty else { throw SDRifyError.invalidInput("\(path): no picture in this image") }
        if images.count == 1 {
            var still = RGBAImage(
                width: images[0].width, height: images[0].height, pixels: images[0].pixels, duration: 0, primaries: images[0].primaries)
            still.origin = images[0].origin
            images[0] = still
        }
        return images
    }

    /// A HEIF photo's primary picture, upright by its own turns and mirrors.
    static func heif(path: String, maxPixels: Int, hdr: HDRToSDR?) throws -> RGBAImage {
        let picture = try HEIFDecoder.decode(path: path, maxPixels: maxPixels)
        var frame = picture.frame, color = picture.color
        if color.hdrKind != .sdr, let hdr {
            frame = try hdr(frame, picture.format, color)
            color = .sdrOutput
        }
        var image = try rgba(frame.av, duration: 0, path: path, color: color)
        if ![.bt709, .unspecified].contains(color.primaries) { image.primaries = color.primaries }
        image.origin = PhotoOrigin(orientation: picture.orientation, hdr: picture.color.hdrKind)
        return picture.orientation == .up ? image : image.upright(picture.orientation)
    }

    /// `color`: the picture's matrix and range, when the frame's own tags are not the whole story (HEIF's `nclx`).
    static func rgba(_ f: UnsafeMutablePointer<AVFrame>, duration: Double, path: String, color: ColorDescription? = nil) throws -> RGBAImage {
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        guard
            let sws = sws_getContext(
                Int32(w), Int32(h), AVPixelFormat(rawValue: f.pointee.format), Int32(w), Int32(h),
                AV_PIX_FMT_RGBA, SWS_POINT, nil, nil, nil)
        else {
            throw SDRifyError.unsupported("\(path): unsupported image pixel format")
        }
        defer { sws_freeContext(sws) }
        if let color {
            // The matrix (H.273 codes are swscale's; unspecified reads as BT.601, as JPEG and HEIC viewers do) and range.
            let matrix = [1, 4, 5, 6, 7, 9, 10].contains(Int(color.matrix.rawValue)) ? Int32(color.matrix.rawValue) : SWS_CS_DEFAULT
            let full: Int32 = color.range == .full ? 1 : 0
            _ = sws_setColorspaceDetails(sws, sws_getCoefficients(matrix), full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        }
        // swscale's SIMD paths write past the end of a row: convert into FFmpeg's padded buffers, then copy out.
        guard let rgba = av_frame_alloc() else { throw SDRifyError.conversion("out of memory decoding \(path)") }
        defer { var p: UnsafeMutablePointer<AVFrame>? = rgba; av_frame_free(&p) }
        rgba.pointee.width = Int32(w); rgba.pointee.height = Int32(h); rgba.pointee.format = AV_PIX_FMT_RGBA.rawValue
        try ffCheck(av_frame_get_buffer(rgba, 64), "\(path): allocating a \(w)x\(h) picture")
        let src = planeArrays(f), dst = planeArrays(rgba)
        guard sws_scale(sws, src.data.map { UnsafePointer($0) }, src.linesize, 0, Int32(h), dst.data, dst.linesize) == Int32(h) else {
            throw SDRifyError.invalidInput("\(path): cannot convert the picture")
        }
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeMutableBytes { out in
            for y in 0..<h {
                (out.baseAddress! + y * w * 4).copyMemory(from: dst.data[0]! + y * Int(dst.linesize[0]), byteCount: w * 4)
            }
        }
        return RGBAImage(width: w, height: h, pixels: pixels, duration: duration)
    }
}

/// Where sticker pictures are loaded.
package enum StickerImages {
    package static func load(_ path: String) throws -> [RGBAImage] { try ImageDecoder.decode(path: path) }
}
