import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyValues

/// The background made for one frame size: what fills the frame around a picture that does not cover it. An
/// image is decoded and fitted once, here; afterwards nothing changes, so any thread may use it.
package final class Backdrop: @unchecked Sendable {
    package let background: Background
    package let width: Int, height: Int
    private let still: Frame?  // an image background at the frame's size

    package init(_ background: Background, width: Int, height: Int) throws {
        self.background = background
        self.width = width; self.height = height
        if case .image(let path, let fit) = background {
            still = try StillPicture.image(path, fit: fit, canvas: Canvas(width: width, height: height, backdrop: Backdrop.black(width, height)))
                .frame
        } else {
            still = nil
        }
    }

    private init(black width: Int, _ height: Int) {
        background = .black; self.width = width; self.height = height; still = nil
    }

    package static func black(_ width: Int, _ height: Int) -> Backdrop { Backdrop(black: width, height) }

    /// The colour behind transparent stills.
    var matte: RGBColor { background.matte }

    /// A twentieth of the short edge, when a blur gives no radius.
    var blurRadius: Double {
        if case .blur(let r) = background { return r ?? Double(min(width, height)) / 20 }
        return 0
    }

    /// Fills `frame` (the backdrop's size, 8-bit 4:2:0) outside the place where `picture` goes, its top-left at
    /// `origin` (even). A picture that covers the frame leaves nothing to fill.
    func fill(_ frame: Frame, around picture: Frame, at origin: (x: Int, y: Int)) {
        guard picture.width < width || picture.height < height else { return }
        for p in 0..<3 {
            let shift = p == 0 ? 0 : 1
            let dst = frame.plane(p)
            let hole = EffectRect(
                x: origin.x >> shift, y: origin.y >> shift,
                w: min(picture.plane(p).width, dst.width), h: min(picture.plane(p).height, dst.height))
            switch background {
            case .color(let c):
                let v = [c.ycbcr709.y, c.ycbcr709.cb, c.ycbcr709.cr][p]
                Backdrop.segments(of: dst, around: hole) { _, row, x0, x1 in (row + x0).update(repeating: v, count: x1 - x0) }
            case .image:
                let src = still!.plane(p)
                Backdrop.segments(of: dst, around: hole) { y, row, x0, x1 in
                    (row + x0).update(from: src.row(y) + x0, count: x1 - x0)
                }
            case .blur:
                let sigma = blurRadius / 2 / Double(1 << shift)  // the radius spans about two standard deviations
                Backdrop.blurredCover(of: picture.plane(p), into: dst, around: hole, sigma: sigma)
            }
        }
    }

    /// Calls `body` with each run of a row of `plane` outside `hole`: (row number, row start, first x, end x).
    private static func segments(of plane: PlaneRef, around hole: EffectRect, _ body: (Int, UnsafeMutablePointer<UInt8>, Int, Int) -> Void) {
        for y in 0..<plane.height {
            let row = plane.row(y)
            if y < hole.y || y >= hole.y + hole.h {
                body(y, row, 0, plane.width)
            } else {
                if hole.x > 0 { body(y, row, 0, min(hole.x, plane.width)) }
                if hole.x + hole.w < plane.width { body(y, row, hole.x + hole.w, plane.width) }
            }
        }
    }

    /// The picture scaled to cover the plane and blurred, drawn outside `hole`. Made cheaply at a coarse grid (area
    /// averages of about a third of sigma per cell, so the blur hides the grid), blurred there, and drawn with
    /// bilinear interpolation.
    private static func blurredCover(of src: PlaneRef, into dst: PlaneRef, around hole: EffectRect, sigma: Double) {
        let (W, H) = (dst.width, dst.height)
        guard src.width > 0, src.height > 0, W > 0, H > 0 else { return }
        let scale = max(Double(W) / Double(src.width), Double(H) / Double(src.height))  // plane pixels per picture pixel
        let cell = max(1, min(32, Int(sigma / 3)))
        let (sw, sh) = ((W + cell - 1) / cell, (H + cell - 1) / cell)
        // Each grid cell's span of picture pixels, per column and per row.
        func spans(_ n: Int, _ total: Int, _ picture: Int) -> [(Int, Int)] {
            (0..<n).map { i in
                let a = (Double(i * cell) - Double(total) / 2) / scale + Double(picture) / 2
                let b = (Double((i + 1) * cell) - Double(total) / 2) / scale + Double(picture) / 2
                let lo = min(max(Int(a.rounded(.down)), 0), picture - 1)
                return (lo, max(lo + 1, min(picture, Int(b.rounded(.up)))))
            }
        }
        let cols = spans(sw, W, src.width), rows = spans(sh, H, src.height)
        var grid = [Float](repeating: 0, count: sw * sh)
        var sums = [Int](repeating: 0, count: src.width)
        for j in 0..<sh {
            let (y0, y1) = rows[j]
            for x in 0..<src.width { sums[x] = 0 }
            for y in y0..<y1 { let r = src.row(y); for x in 0..<src.width { sums[x] += Int(r[x]) } }
            for i in 0..<sw {
                let (x0, x1) = cols[i]
                var s = 0
                for x in x0..<x1 { s += sums[x] }
                grid[j * sw + i] = Float(s) / Float((x1 - x0) * (y1 - y0))
            }
        }
        EffectKernels.gaussian(&grid, width: sw, height: sh, sigma: sigma / Double(cell))
        // Bilinear: each grid row widened to the plane's width once, then each output row a blend of two of them.
        func tap(_ v: Int, _ n: Int) -> (Int, Int, Float) {
            let u = min(max((Double(v) + 0.5) / Double(cell) - 0.5, 0), Double(n - 1))
            let i = Int(u)
            return (i, min(i + 1, n - 1), Float(u - Double(i)))
        }
        let taps = (0..<W).map { tap($0, sw) }
        var wide = [Float](repeating: 0, count: sh * W)
        wide.withUnsafeMutableBufferPointer { out in
            grid.withUnsafeBufferPointer { g in
                taps.withUnsafeBufferPointer { t in
                    for j in 0..<sh {
                        let src = g.baseAddress! + j * sw, row = out.baseAddress! + j * W
                        for x in 0..<W { let (i0, i1, fx) = t[x]; row[x] = src[i0] + (src[i1] - src[i0]) * fx }
                    }
                }
            }
        }
        wide.withUnsafeBufferPointer { g in
            segments(of: dst, around: hole) { y, row, x0, x1 in
                let (j0, j1, fy) = tap(y, sh)
                let top = g.baseAddress! + j0 * W, bottom = g.baseAddress! + j1 * W
                for x in x0..<x1 {
                    let v = top[x] + (bottom[x] - top[x]) * fy + 0.5
                    row[x] = UInt8(min(max(v, 0), 255))
                }
            }
        }
    }
}
