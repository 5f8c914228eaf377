import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues
import Synchronization

/// The output picture of a composition: its size, what its pictures carry (SDR, or the HDR kept: `range`), its
/// background, and how each clip's picture is fitted into it.
package struct Canvas: Sendable {
    package let width: Int
    package let height: Int
    let backdrop: Backdrop
    package let range: HDRKind

    package init(width: Int, height: Int, backdrop: Backdrop, range: HDRKind = .sdr) {
        self.width = width; self.height = height; self.backdrop = backdrop; self.range = range
    }

    /// The output size: the preset's box applied to the first sized clip's upright shape, never larger than the
    /// largest clip (long and short edge), even. Without any sized clip (colours only): the box, landscape.
    package static func size(firstShape: (width: Int, height: Int)?, largest: (long: Int, short: Int)?, box: BoundingBox?) -> (
        width: Int, height: Int
    ) {
        guard let first = firstShape, let largest else {
            let b = box ?? BoundingBox(long: 1920, short: 1080)
            return (b.long & ~1, b.short & ~1)
        }
        var limit = BoundingBox(long: largest.long, short: largest.short)
        if let box { limit = BoundingBox(long: min(box.long, limit.long), short: min(box.short, limit.short)) }
        // The first clip's shape scaled (up or down) to touch the limit.
        let long = Double(max(first.width, first.height)), short = Double(min(first.width, first.height))
        let scale = min(Double(limit.long) / long, Double(limit.short) / short)
        func even(_ x: Double, _ cap: Int) -> Int { max(2, min(2 * Int((x / 2).rounded()), cap & ~1)) }
        let landscape = first.width >= first.height
        let w = even(Double(first.width) * scale, landscape ? limit.long : limit.short)
        let h = even(Double(first.height) * scale, landscape ? limit.short : limit.long)
        return (w, h)
    }

    /// The size a clip of `display` shape is scaled to: inside the canvas touching two edges (contain) or covering
    /// it (cover; cropped afterwards). Even, at least 2.
    package func fitted(_ display: (width: Int, height: Int), _ fit: Fit) -> (width: Int, height: Int) {
        if fit == .stretch { return (width, height) }
        let sx = Double(width) / Double(display.width), sy = Double(height) / Double(display.height)
        let scale = fit == .contain ? min(sx, sy) : max(sx, sy)
        func even(_ x: Double) -> Int { max(2, 2 * Int((x / 2).rounded())) }
        var (w, h) = (even(Double(display.width) * scale), even(Double(display.height) * scale))
        if fit == .contain { (w, h) = (min(w, width), min(h, height)) } else { (w, h) = (max(w, width), max(h, height)) }
        return (w, h)
    }

    /// Fills `frame` (canvas-sized, 4:2:0 of the canvas's range) with one colour.
    func fill(_ frame: Frame, with color: RGBColor) {
        for (p, v) in Canvas.samples(of: color, in: range).enumerated() {
            let plane = Backdrop.Plane(frame, p)
            for y in 0..<plane.height { plane.fill(y, 0, plane.width, v) }
        }
    }

    /// The HDR samples of colours met so far (a fade to black or white asks for them every picture).
    private static let placed = Mutex<[String: [Int]]>([:])

    /// A colour's Y', Cb, Cr samples in pictures of `range`: BT.709's 8-bit codes, or (the HDR kept) the colour
    /// as an SDR picture of it is placed there (SDR white at 203 cd/m²), by the colour stage itself.
    static func samples(of color: RGBColor, in range: HDRKind) -> [Int] {
        let c = color.ycbcr709
        guard range != .sdr else { return [Int(c.y), Int(c.cb), Int(c.cr)] }
        let key = "\(color.r),\(color.g),\(color.b),\(range.rawValue)"
        if let known = placed.withLock({ $0[key] }) { return known }
        var samples = [64, 512, 512]  // black, should a 2x2 conversion ever fail
        if let sdr = try? StillPicture.color(color, canvas: Canvas(width: 2, height: 2, backdrop: .black(2, 2))),
            let hdr = try? FrameConverter.placingSDR(width: 2, height: 2, output: range).convert(sdr, format: .yuv420p)
        {
            samples = (0..<3).map { Int(hdr.data($0).assumingMemoryBound(to: UInt16.self)[0]) }
        }
        placed.withLock { $0[key] = samples }
        return samples
    }

    /// An SDR picture (8-bit 4:2:0 BT.709: a still, a backdrop) in the canvas's range: itself, or placed in the HDR
    /// kept as an SDR clip is (SDR white at 203 cd/m²).
    func inRange(_ sdr: Frame) throws -> Frame {
        guard range != .sdr else { return sdr }
        return try FrameConverter.placingSDR(width: sdr.width, height: sdr.height, output: range).convert(sdr, format: .yuv420p)
    }

    /// Puts a fitted picture on `frame`: centred on the background when smaller (contain), centre-cropped when
    /// larger (cover). Offsets are even so 4:2:0 chroma stays aligned with luma.
    package func place(_ picture: Frame, into frame: Frame) {
        let dx = max(0, (width - picture.width) / 2) & ~1, dy = max(0, (height - picture.height) / 2) & ~1
        backdrop.fill(frame, around: picture, at: (dx, dy))
        let sx = max(0, (picture.width - width) / 2) & ~1, sy = max(0, (picture.height - height) / 2) & ~1
        frame.copy((min(picture.width, width), min(picture.height, height)), of: picture, from: (sx, sy), to: (dx, dy))
    }
}

/// A still clip's one picture at the canvas size: a photo (its EXIF orientation applied, transparency over the
/// background's colour, scaled by zimg and converted to BT.709 Y'CbCr) or a solid colour.
package enum StillPicture {
    package static func color(_ c: RGBColor, canvas: Canvas) throws -> Frame {
        let frame = try Frame(width: canvas.width, height: canvas.height, format: .output(canvas.range))
        frame.color = .output(canvas.range)
        canvas.fill(frame, with: c)
        return frame
    }

    /// The largest photo accepted as a clip (a 48-megapixel phone photo is 8064x6048).
    static let maxPixels = 64 << 20

    /// How an HDR photo (a 10-bit HLG or PQ HEIC) becomes SDR: tone mapped as a video picture is, `toneMap`
    /// measuring the photo as one scene.
    static func hdrToSDR(_ toneMap: ToneMapping) -> ImageDecoder.HDRToSDR {
        { frame, format, color in
            let converter = try FrameConverter(
                sourceFormat: format, sourceColor: color, width: frame.width, height: frame.height, outputWidth: frame.width,
                outputHeight: frame.height,
                toneCurve: ToneCurve(
                    toneMap.op, sourcePeak: HDRMetadata().sourcePeak(for: color.hdrKind), exposure: toneMap.exposure),
                scenes: toneMap.op == .auto ? SceneTracker() : nil)
            return try converter.convert(frame, format: format)
        }
    }

    /// A photo decoded for showing: upright by its EXIF (or HEIF) orientation, an HDR one tone mapped.
    package static func decode(_ path: String, toneMap: ToneMapping = .default) throws -> RGBAImage {
        try ImageDecoder.decode(path: path, maxPixels: StillPicture.maxPixels, firstOnly: true, hdr: hdrToSDR(toneMap))[0]
    }

    /// A photo (upright by its EXIF orientation, then framed: turned and cropped) fitted into the canvas.
    package static func image(_ path: String, framing: Framing = Framing(), fit: Fit, canvas: Canvas, toneMap: ToneMapping = .default) throws -> (
        frame: Frame, origin: PhotoOrigin
    ) {
        let decoded = try decode(path, toneMap: toneMap)
        let turned = framing.turn == .up ? decoded : decoded.upright(framing.turn)
        let image = framing.crop.map { turned.cropped($0) } ?? turned
        let (w, h) = (image.width, image.height)
        // Straight alpha over the background, into three aligned planes for zimg (a 4:4:4 frame's buffers).
        let bg = canvas.backdrop.matte
        let rgb = try Frame(width: w, height: h, format: PlanarFormat(bitDepth: 8, chromaShiftX: 0, chromaShiftY: 0))
        image.pixels.withUnsafeBufferPointer { px in
            for c in 0..<3 {
                let back = Int([bg.r, bg.g, bg.b][c])
                let plane = rgb.data(c).assumingMemoryBound(to: UInt8.self), stride = rgb.stride(c)
                for y in 0..<h {
                    for x in 0..<w {
                        let i = (y * w + x) * 4, a = Int(px[i + 3])
                        plane[y * stride + x] = UInt8((Int(px[i + c]) * a + back * (255 - a) + 127) / 255)
                    }
                }
            }
        }
        let size = canvas.fitted((w, h), fit)
        let fitted = try Frame(width: size.width, height: size.height, format: .yuv420p)
        var srgb = ColorDescription.sdrOutput
        srgb.range = .full
        if let p = image.primaries { srgb.primaries = p }  // a wide-gamut photo (Display P3) brought into BT.709's
        let graph = try ZimgGraph(
            from: ZimgFormat(width: w, height: h, rgb8: srgb),
            to: ZimgFormat(width: size.width, height: size.height, format: .yuv420p, color: .sdrOutput))
        try graph.process(src: rgb.planes(3).map { (UnsafeRawPointer($0.0), $0.1) }, dst: fitted.planes(3))
        let frame = try Frame(width: canvas.width, height: canvas.height, format: .output(canvas.range))
        frame.color = .output(canvas.range)
        canvas.place(try canvas.inRange(fitted), into: frame)
        return (frame, decoded.origin)
    }
}
