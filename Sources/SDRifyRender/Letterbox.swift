import SDRifyMedia
import SDRifyValues

/// A picture smaller than the output (its source changed size mid-stream and was fitted inside the first
/// picture's output size) centred on the background, so the encoder keeps one size. 4:2:0 of the render's kind in
/// and out.
final class Letterbox {
    private let ring: FrameRing
    private let width: Int, height: Int
    private let backdrop: Backdrop
    private let range: HDRKind

    package init(width: Int, height: Int, ringSize: Int, backdrop: Backdrop, range: HDRKind = .sdr) throws {
        self.width = width; self.height = height; self.backdrop = backdrop; self.range = range
        ring = try FrameRing(size: ringSize, width: width, height: height, kind: range)
    }

    func place(_ picture: Frame) throws -> Frame {
        let out = try ring.next()
        let layout = PlanarFormat.output(range)
        // Even offsets keep the 4:2:0 chroma aligned with the luma.
        let x0 = ((width - picture.width) / 2) & ~1, y0 = ((height - picture.height) / 2) & ~1
        backdrop.fill(out, around: picture, at: (x0, y0))
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
