/// Makes planes upright: the pixel side of the eight orientations (flip, rotate 180°, transpose and its
/// relatives) done by one address walk. A destination pixel (X, Y) reads the source at
/// `origin + X·stepX + Y·stepY`, where the steps are ±1 sample or ±1 row; the transposing cases walk the
/// source down columns, so they go in square tiles that stay in L1 cache.
package struct PlaneTransform: Sendable {
    let orientation: Orientation

    package init(_ orientation: Orientation) { self.orientation = orientation }

    /// Writes the upright version of a `width`×`height` coded plane into `dst` (sized to the upright plane).
    /// `T` is the sample type: UInt8 for 8-bit, UInt16 for 10/12/16-bit.
    package func apply<T: FixedWidthInteger>(
        _: T.Type, src: UnsafeRawPointer, srcStride: Int, width: Int, height: Int,
        dst: UnsafeMutableRawPointer, dstStride: Int
    ) {
        // Its callers are in other targets, where this generic would run unspecialised (through the value
        // witnesses, 3 % of a 4K conversion): the two sample sizes are specialised here.
        if T.self == UInt16.self {
            walk(UInt16.self, src: src, srcStride: srcStride, width: width, height: height, dst: dst, dstStride: dstStride)
        } else {
            precondition(T.self == UInt8.self, "8-bit or 16-bit samples")
            walk(UInt8.self, src: src, srcStride: srcStride, width: width, height: height, dst: dst, dstStride: dstStride)
        }
    }

    private func walk<T>(
        _: T.Type, src: UnsafeRawPointer, srcStride: Int, width: Int, height: Int,
        dst: UnsafeMutableRawPointer, dstStride: Int
    ) {
        let p = orientation.pattern
        let size = MemoryLayout<T>.stride
        // Translation in index space (last pixel is W−1, H−1) of the fixed transform.
        let fixed = orientation.fixedTransform(width: width - 1, height: height - 1)
        let (tx, ty) = (Int(fixed.tx), Int(fixed.ty))
        // Inverse of an orthogonal ±1 matrix is its transpose.
        let x0 = -(p.a * tx + p.b * ty), y0 = -(p.c * tx + p.d * ty)
        let stepX = p.a * size + p.c * srcStride  // bytes per destination column
        let stepY = p.b * size + p.d * srcStride  // bytes per destination row
        let origin = src + x0 * size + y0 * srcStride
        let (outW, outH) = orientation.uprightSize(width: width, height: height)

        if !orientation.swapsDimensions {
            for y in 0..<outH {
                let s = origin + y * stepY
                let d = dst + y * dstStride
                if stepX == size {
                    d.copyMemory(from: s, byteCount: outW * size)
                } else {
                    let sp = (s - (outW - 1) * size).assumingMemoryBound(to: T.self)  // reversed row
                    let dp = d.assumingMemoryBound(to: T.self)
                    for x in 0..<outW { dp[x] = sp[outW - 1 - x] }
                }
            }
            return
        }
        let tile = 32
        for ty0 in stride(from: 0, to: outH, by: tile) {
            let yEnd = min(ty0 + tile, outH)
            for tx0 in stride(from: 0, to: outW, by: tile) {
                let xEnd = min(tx0 + tile, outW)
                for y in ty0..<yEnd {
                    let dp = (dst + y * dstStride).assumingMemoryBound(to: T.self)
                    let rowOrigin = origin + y * stepY
                    var s = rowOrigin + tx0 * stepX
                    for x in tx0..<xEnd {
                        dp[x] = s.load(as: T.self)
                        s += stepX
                    }
                }
            }
        }
    }
}
