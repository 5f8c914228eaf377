/// The pointillize effect: dots on a grid of `size` pixels, each moved off its cell's centre by up to `jitter` of
/// half a cell (the same for every picture, so the dots hold still), each the mean colour of the picture under it,
/// on a background colour. Dots are `size` across: without jitter they touch and the background shows in the
/// corners between them; with it they overlap here and part there. Edges are anti-aliased over a pixel.
enum Pointillism {
    struct Dot { var x: Double, y: Double }  // centre, in luma pixels (the plane's own: times the plane's scale)

    /// The dots of `r` (in luma pixels); the grid starts at the region's corner and covers it, partial cells too.
    static func dots(in r: EffectRect, size: Double, jitter: Double) -> (dots: [Dot], radius: Double) {
        let s = max(size, 2), columns = Int((Double(r.w) / s).rounded(.up)), rows = Int((Double(r.h) / s).rounded(.up))
        var dots: [Dot] = []
        dots.reserveCapacity(columns * rows)
        for j in 0..<rows {
            for i in 0..<columns {
                let (u, v) = offsets(i, j)
                dots.append(Dot(x: Double(r.x) + (Double(i) + 0.5 + 0.5 * jitter * u) * s, y: Double(r.y) + (Double(j) + 0.5 + 0.5 * jitter * v) * s))
            }
        }
        return (dots, s / 2)
    }

    /// Two numbers in −1…1 fixed by the cell (a 64-bit mix of its column and row): where its dot strays.
    static func offsets(_ i: Int, _ j: Int) -> (Double, Double) {
        var z = UInt64(truncatingIfNeeded: i) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: j) &* 0xC2B2_AE3D_27D4_EB4F
        z = (z ^ (z >> 31)) &* 0xBF58_476D_1CE4_E5B9
        z ^= z >> 29
        func unit(_ bits: UInt64) -> Double { Double(bits & 0xFFFF) / 32767.5 - 1 }
        return (unit(z), unit(z >> 16))
    }

    /// One plane: every dot's mean is taken from the picture as it was, then the region is filled with `background`
    /// and the dots are painted over it in grid order. `scale`: the plane's size against luma (chroma 0.5). A dot is
    /// done a row at a time: the samples whose centres lie within its radius are summed, the span inside it half a
    /// sample from its edge is filled, and the samples across the edge are blended by how much of them it covers.
    static func paint<S>(_ plane: PlaneRef<S>, _ r: EffectRect, dots: (dots: [Dot], radius: Double), scale: Double, background: S) {
        guard r.w > 0, r.h > 0 else { return }
        let radius = max(dots.radius * scale, 0.5)
        let inner = max(radius - 0.5, 0), outer = radius + 0.5
        var means = [Float](repeating: Float(background), count: dots.dots.count)
        for (n, dot) in dots.dots.enumerated() {
            let (cx, cy) = (dot.x * scale, dot.y * scale)
            var sum = 0, count = 0
            for y in rows(r, cy, radius) {
                let span = rowSpan(r, cx, radius, dy: Double(y) + 0.5 - cy), row = plane.row(y)
                for x in span { sum += Int(row[x]) }
                count += span.count
            }
            if count > 0 {
                means[n] = Float(sum) / Float(count)
            } else {  // a dot smaller than a sample: the sample under its centre
                let x = min(max(Int(cx), r.x), r.x + r.w - 1), y = min(max(Int(cy), r.y), r.y + r.h - 1)
                means[n] = Float(plane.row(y)[x])
            }
        }
        for y in r.y..<(r.y + r.h) { (plane.row(y) + r.x).update(repeating: background, count: r.w) }
        for (n, dot) in dots.dots.enumerated() {
            let mean = means[n], code = S(truncatingIfNeeded: Int(mean.rounded()))
            let (cx, cy) = (dot.x * scale, dot.y * scale)
            for y in rows(r, cy, outer) {
                let row = plane.row(y), dy = Double(y) + 0.5 - cy
                let span = rowSpan(r, cx, outer, dy: dy), full = rowSpan(r, cx, inner, dy: dy)
                if !full.isEmpty { (row + full.lowerBound).update(repeating: code, count: full.count) }
                // The edge samples: left of the filled span and right of it (all of the row's span when none is).
                let left = full.isEmpty ? span : span.lowerBound..<full.lowerBound
                let right = full.isEmpty ? span.upperBound..<span.upperBound : full.upperBound..<span.upperBound
                for x in left { blend(row, x, cx, dy, outer, mean) }
                for x in right { blend(row, x, cx, dy, outer, mean) }
            }
        }
    }

    /// A sample across a dot's edge: `mean` over what is there by the share of the sample the dot covers.
    @inline(__always) private static func blend<S: FixedWidthInteger & UnsignedInteger>(
        _ row: UnsafeMutablePointer<S>, _ x: Int, _ cx: Double, _ dy: Double, _ outer: Double, _ mean: Float
    ) {
        let dx = Double(x) + 0.5 - cx
        let cover = Float(min(max(outer - (dx * dx + dy * dy).squareRoot(), 0), 1))
        row[x] = S(truncatingIfNeeded: Int((Float(row[x]) + (mean - Float(row[x])) * cover).rounded()))
    }

    /// The rows of `r` whose centres lie within `reach` of `cy`.
    private static func rows(_ r: EffectRect, _ cy: Double, _ reach: Double) -> Range<Int> {
        let y0 = max(r.y, Int((cy - reach - 0.5).rounded(.up))), y1 = min(r.y + r.h, Int((cy + reach - 0.5).rounded(.down)) + 1)
        return y0..<max(y0, y1)
    }

    /// The samples of a row of `r`, `dy` from the centre's row, whose centres lie within `reach` of (cx, ·).
    private static func rowSpan(_ r: EffectRect, _ cx: Double, _ reach: Double, dy: Double) -> Range<Int> {
        let half2 = reach * reach - dy * dy
        guard half2 >= 0 else { return r.x..<r.x }
        let half = half2.squareRoot()
        let x0 = max(r.x, Int((cx - half - 0.5).rounded(.up))), x1 = min(r.x + r.w, Int((cx + half - 0.5).rounded(.down)) + 1)
        return x0 < x1 ? x0..<x1 : r.x..<r.x
    }
}
