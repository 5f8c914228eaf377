import SDRifyMedia

/// A picture smaller than the output (its source changed size mid-stream and was fitted inside the first
/// picture's output size) centred on the background, so the encoder keeps one size. 8-bit 4:2:0 in and out.
final class Letterbox {
    private let ring: FrameRing
    private let width: Int, height: Int
    private let backdrop: Backdrop

    package init(width: Int, height: Int, ringSize: Int, backdrop: Backdrop) throws {
        self.width = width; self.height = height; self.backdrop = backdrop
        ring = try FrameRing(size: ringSize, width: width, height: height)
    }

    func place(_ picture: Frame) throws -> Frame {
        let out = try ring.next()
        // Even offsets keep the 4:2:0 chroma aligned with the luma.
        let x0 = ((width - picture.width) / 2) & ~1, y0 = ((height - picture.height) / 2) & ~1
        backdrop.fill(out, around: picture, at: (x0, y0))
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: picture.width, height: picture.height)
            let (dx, dy) = p == 0 ? (x0, y0) : (x0 / 2, y0 / 2)
            for y in 0..<ph {
                (out.data(p) + (dy + y) * out.stride(p) + dx).copyMemory(from: picture.data(p) + y * picture.stride(p), byteCount: pw)
            }
        }
        out.pts = picture.pts
        return out
    }
}
