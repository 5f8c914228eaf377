import SDRifyMedia
import SDRifyValues

/// A picture smaller than the output (its source changed size mid-stream and was fitted inside the first
/// picture's output size) centred on the background, so the encoder keeps one size. 4:2:0 of the render's kind in
/// and out; an HDR render's background is black (the backdrop is drawn for SDR).
final class Letterbox {
    private let ring: FrameRing
    private let width: Int, height: Int
    private let backdrop: Backdrop
    private let range: HDRKind

    package init(width: Int, height: Int, ringSize: Int, backdrop: Backdrop, range: HDRKind = .sdr) throws {
        self.width = width; self.height = height; self.backdrop = backdrop; self.range = range
        ring = try FrameRing(size: ringSize, width: width, height: height, kind: range)
    }

    /// Limited-range black: 16 and 128 scaled to the depth.
    static func fillBlack(_ frame: Frame) {
        guard let layout = frame.format, layout.bytesPerSample == 2 else { return }
        for p in 0..<3 {
            let (w, h) = layout.planeSize(p, width: frame.width, height: frame.height)
            let v = UInt16((p == 0 ? 16 : 128) << (layout.bitDepth - 8))
            for y in 0..<h { (frame.data(p) + y * frame.stride(p)).initializeMemory(as: UInt16.self, repeating: v, count: w) }
        }
    }

    func place(_ picture: Frame) throws -> Frame {
        let out = try ring.next()
        let layout = PlanarFormat.output(range)
        // Even offsets keep the 4:2:0 chroma aligned with the luma.
        let x0 = ((width - picture.width) / 2) & ~1, y0 = ((height - picture.height) / 2) & ~1
        if range == .sdr { backdrop.fill(out, around: picture, at: (x0, y0)) } else { Letterbox.fillBlack(out) }
        let bytes = layout.bytesPerSample
        for p in 0..<3 {
            let (pw, ph) = layout.planeSize(p, width: picture.width, height: picture.height)
            let (dx, dy) = p == 0 ? (x0, y0) : (x0 / 2, y0 / 2)
            let dst = out.data(p) + dy * out.stride(p) + dx * bytes, src = picture.data(p)
            let (dstStride, srcStride) = (out.stride(p), picture.stride(p))
            for y in 0..<ph { (dst + y * dstStride).copyMemory(from: src + y * srcStride, byteCount: pw * bytes) }
        }
        out.pts = picture.pts
        return out
    }
}
