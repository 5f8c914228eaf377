import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyValues

/// The background made for one frame size and range: what fills the frame around a picture that does not cover it.
/// An image is decoded and fitted once, here (and placed in the HDR kept as an SDR picture is); afterwards nothing
/// changes, so any thread may use it. Works on 8-bit pictures and on the HDR kept's 16-bit words alike.
package final class Backdrop: @unchecked Sendable {
    package let background: Background
    package let width: Int, height: Int
    let range: HDRKind
    private let still: Frame?  // an image background at the frame's size, in the range
    private let colour: [Int]  // a colour background's Y', Cb, Cr samples in the range

    package init(_ background: Background, width: Int, height: Int, range: HDRKind = .sdr) throws {
        self.background = background
        self.width = width; self.height = height; self.range = range
        if case .image(let path, let fit) = background {
            let canvas = Canvas(width: width, height: height, backdrop: Backdrop.black(width, height), range: range)
            still = try StillPicture.image(path, fit: fit, canvas: canvas).frame
        } else {
            still = nil
        }
        if case .color(let c) = background { colour = Canvas.samples(of: c, in: range) } else { colour = [] }
    }

    private init(black width: Int, _ height: Int) {
        background = .black; self.width = width; self.height = height; still = nil; range = .sdr; colour = []
    }

    package static func black(_ width: Int, _ height: Int) -> Backdrop { Backdrop(black: width, height) }

    /// The colour behind transparent stills.
    var matte: RGBColor { background.matte }

    /// A twentieth of the short edge, when a blur gives no radius.
    var blurRadius: Double {
        if case .blur(let r) = background { return r ?? Double(min(width, height)) / 20 }
        return 0
    }

    /// One plane of a 4:2:0 picture: its samples (8- or 16-bit) and their byte stride.
    struct Plane {
        let data: UnsafeMutableRawPointer, stride: Int, width: Int, height: Int, wide: Bool
        init(_ frame: Frame, _ p: Int) {
            let layout = frame.format ?? .yuv420p
            (width, height) = layout.planeSize(p, width: frame.width, height: frame.height)
            data = frame.data(p); stride = frame.stride(p); wide = layout.bytesPerSample == 2
        }
        func get(_ x: Int, _ y: Int) -> Int {
            wide
                ? Int(data.load(fromByteOffset: y * stride + 2 * x, as: UInt16.self)) : Int(data.load(fromByteOffset: y * stride + x, as: UInt8.self))
        }
        /// Samples [x0, x1) of row y set by `value(x)`.
        func set(_ y: Int, _ x0: Int, _ x1: Int, _ value: (Int) -> Int) {
            let row = data + y * stride
            if wide {
                let r = row.assumingMemoryBound(to: UInt16.self)
                for x in x0..<x1 { r[x] = UInt16(truncatingIfNeeded: value(x)) }
            } else {
                let r = row.assumingMemoryBound(to: UInt8.self)
                for x in x0..<x1 { r[x] = UInt8(truncatingIfNeeded: value(x)) }
            }
        }
        /// Samples [x0, x1) of row y set to `v`.
        func fill(_ y: Int, _ x0: Int, _ x1: Int, _ v: Int) {
            let row = data + y * stride
            if wide {
                (row.assumingMemoryBound(to: UInt16.self) + x0).update(repeating: UInt16(truncatingIfNeeded: v), count: x1 - x0)
            } else {
                (row.assumingMemoryBound(to: UInt8.self) + x0).update(repeating: UInt8(truncatingIfNeeded: v), count: x1 - x0)
            }
        }
        /// Samples [x0, x1) of row y copied from `source`'s row y.
        func copy(_ y: Int, _ x0: Int, _ x1: Int, from source: Plane) {
            let n = wide ? 2 : 1
            (data + y * stride + x0 * n).copyMemory(from: source.data + y * source.stride + x0 * n, byteCount: (x1 - x0) * n)
        }
    }

    /// Fills `frame` (the backdrop's size, 4:2:0 of its range) outside the place where `picture` goes, its top-left at
    /// `origin` (even). A picture that covers the frame leaves nothing to fill.
    func fill(_ frame: Frame, around picture: Frame, at origin: (x: Int, y: Int)) {
        guard picture.width < width || picture.height < height else { return }
        for p in 0..<3 {
            let shift = p == 0 ? 0 : 1
            let dst = Plane(frame, p), src = Plane(picture, p)
            let hole = EffectRect(x: origin.x >> shift, y: origin.y >> shift, w: min(src.width, dst.width), h: min(src.height, dst.height))
            switch background {
            case .color:
                let v = colour[p]
                Backdrop.segments(of: dst, around: hole) { y, x0, x1 in dst.fill(y, x0, x1, v) }
            case .image:
                let image = Plane(still!, p)
                Backdrop.segments(of: dst, around: hole) { y, x0, x1 in dst.copy(y, x0, x1, from: image) }
            case .blur:
                let sigma = blurRadius / 2 / Double(1 << shift)  // the radius spans about two standard deviations
                Backdrop.blurredCover(of: src, into: dst, around: hole, sigma: sigma)
            }
        }
    }

    /// Calls `body` with each run of a row of `plane` outside `hole`: (row number, first x, end x).
    private static func segments(of plane: Plane, around hole: EffectRect, _ body: (Int, Int, Int) -> Void) {
        for y in 0..<plane.height {
            if y < hole.y || y >= hole.y + hole.h {
                body(y, 0, plane.width)
            } else {
                if hole.x > 0 { body(y, 0, min(hole.x, plane.width)) }
                if hole.x + hole.w < plane.width { body(y, hole.x + hole.w, plane.width) }
            }
        }
    }

    /// The picture scaled to cover the plane and blurred, drawn outside `hole`. Made cheaply at a coarse grid (area
    /// averages of about a third of sigma per cell, so the blur hides the grid), blurred there, and drawn with
    /// bilinear interpolation.
    private static func blurredCover(of src: Plane, into dst: Plane, around hole: EffectRect, sigma: Double) {
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
            for y in y0..<y1 { for x in 0..<src.width { sums[x] += src.get(x, y) } }
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
            let most = Float(dst.wide ? 65535 : 255)
            segments(of: dst, around: hole) { y, x0, x1 in
                let (j0, j1, fy) = tap(y, sh)
                let top = g.baseAddress! + j0 * W, bottom = g.baseAddress! + j1 * W
                dst.set(y, x0, x1) { x in Int(min(max(top[x] + (bottom[x] - top[x]) * fy + 0.5, 0), most)) }
            }
        }
    }
}
