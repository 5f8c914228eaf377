import SDRifyMedia

/// Interlaced pictures (camcorder 1080i, broadcast captures) made progressive, one picture per frame: the field
/// shown first is kept; a pixel of the other field stays where it agrees with its neighbours above and below
/// (still areas keep their full vertical detail) and is interpolated where it combs (lies beyond both, in the same
/// direction: something moved between the fields). Interpolation follows the local edge (edge-based line
/// averaging: of the three pairs across the missing line, the most alike is averaged), so diagonals do not
/// staircase. Any planar layout, 8 to 16 bits; chroma rows belong to fields the same way luma rows do.
final class Deinterlacer {
    private let output: Frame
    private let format: PlanarFormat

    package init(width: Int, height: Int, format: PlanarFormat) throws {
        self.format = format
        output = try Frame(width: width, height: height, format: format)
    }

    /// Whether this deinterlacer was made for pictures like `frame`.
    func accepts(_ frame: Frame, format: PlanarFormat) -> Bool {
        frame.width == output.width && frame.height == output.height && format == self.format
    }

    /// The progressive picture (this deinterlacer's one output frame, valid until the next call).
    func apply(_ frame: Frame) throws -> Frame {
        try output.makeWritable()
        let keep = frame.topFieldFirst ? 0 : 1  // parity of the rows kept
        for p in 0..<format.planeCount {
            let (w, h) = format.planeSize(p, width: frame.width, height: frame.height)
            if format.bytesPerSample == 1 {
                Deinterlacer.plane(
                    UInt8.self, from: frame.data(p), frame.stride(p), to: output.data(p), output.stride(p), w, h, keep,
                    bitDepth: format.bitDepth)
            } else {
                Deinterlacer.plane(
                    UInt16.self, from: frame.data(p), frame.stride(p), to: output.data(p), output.stride(p), w, h, keep,
                    bitDepth: format.bitDepth)
            }
        }
        output.color = frame.color
        output.pts = frame.pts
        return output
    }

    /// Comb test: the woven pixel differs from both neighbours in the same direction by more than about 10 codes
    /// (8-bit scale) each. Smaller products are detail or noise, kept.
    private static func plane<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type, from src: UnsafeMutableRawPointer, _ srcStride: Int, to dst: UnsafeMutableRawPointer, _ dstStride: Int,
        _ w: Int, _ h: Int, _ keep: Int, bitDepth: Int
    ) {
        let scale = 1 << max(bitDepth - 8, 0), combThreshold = 100 * scale * scale
        func row(_ base: UnsafeMutableRawPointer, _ stride: Int, _ y: Int) -> UnsafeMutablePointer<T> {
            (base + y * stride).assumingMemoryBound(to: T.self)
        }
        for y in 0..<h {
            let out = row(dst, dstStride, y)
            let own = row(src, srcStride, y)
            if y & 1 == keep || h < 2 {
                out.update(from: own, count: w)
                continue
            }
            // The kept field's rows above and below (at the picture's edge, the one there is, twice).
            let a = row(src, srcStride, y > 0 ? y - 1 : y + 1), b = row(src, srcStride, y < h - 1 ? y + 1 : y - 1)
            for x in 0..<w {
                let up = Int(a[x]), down = Int(b[x]), woven = Int(own[x])
                if (woven - up) * (woven - down) <= combThreshold { out[x] = own[x]; continue }
                var best = abs(up - down), sum = up + down
                if x > 0 && x < w - 1 {
                    let l = Int(a[x - 1]) - Int(b[x + 1]), r = Int(a[x + 1]) - Int(b[x - 1])
                    if abs(l) < best { best = abs(l); sum = Int(a[x - 1]) + Int(b[x + 1]) }
                    if abs(r) < best { sum = Int(a[x + 1]) + Int(b[x - 1]) }
                }
                out[x] = T((sum + 1) >> 1)
            }
        }
    }
}
