import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// A picture in a picture while it shows: its video (a clip source at the pip's base size: upright, tone mapped or
/// kept as any clip), moved as a sticker is, drawn with rounded corners inside its border. Opened when it starts
/// showing and closed when it ends, so only the pips showing at once are open.
final class PictureInPictureSource {
    let pip: RenderPlan.PlacedPictureInPicture
    let source: ClipSource
    private let motion: StickerMotion
    private let base: (width: Int, height: Int)
    private var scaler: (size: (width: Int, height: Int), scaler: PictureScaler)? = nil
    private var mask: (size: (width: Int, height: Int), mask: PictureInPictureMask)? = nil
    private let border: [Int]  // the border's Y', Cb, Cr samples in the range
    private let range: HDRKind

    init(
        _ pip: RenderPlan.PlacedPictureInPicture, canvas: Canvas,
        open: (RenderPlan.PlacedPictureInPicture, (width: Int, height: Int)) throws -> ClipSource
    ) throws {
        self.pip = pip
        motion = StickerMotion(
            spec: pip.spec.placement, natural: (Double(pip.shape.width), Double(pip.shape.height)), frameWidth: canvas.width,
            frameHeight: canvas.height)
        func even(_ v: Double) -> Int { max(2, 2 * Int((v / 2).rounded())) }
        base = (even(motion.baseWidth), even(motion.baseHeight))
        border = Canvas.samples(of: pip.spec.borderColor, in: canvas.range)
        range = canvas.range
        source = try open(pip, base)
    }

    /// Draws it over `frame` for output frame `n` (`time`: since its clip's first picture; `own`: since it started).
    func draw(over frame: Frame, time: Double, own: MediaTime) throws {
        guard let state = motion.state(at: time) else { return }
        var picture = try source.picture(at: own)
        func even(_ v: Double) -> Int { max(2, 2 * Int((v / 2).rounded())) }
        let size = (even(state.width), even(state.height))
        if size != base {  // a scale keyframe: the picture resized
            if scaler == nil || scaler!.size != size {
                scaler = (size, try PictureScaler(fromWidth: base.width, fromHeight: base.height, toWidth: size.0, toHeight: size.1, kind: range))
            }
            picture = try scaler!.scaler.scale(picture)
        }
        if mask == nil || mask!.size != size {
            let k = state.width / motion.baseWidth
            mask = (size, PictureInPictureMask(width: size.0, height: size.1, radius: pip.spec.radius * k, border: pip.spec.border * k))
        }
        let x0 = Int((state.centreX - Double(size.0) / 2).rounded()) & ~1, y0 = Int((state.centreY - Double(size.1) / 2).rounded()) & ~1
        mask!.mask.blend(picture, over: frame, at: (x0, y0), opacity: Float(state.opacity), border: border)
    }

    func close() { source.close() }
}

/// The shape of an pip of one size: per sample, how much of it shows (rounded corners, anti-aliased over a pixel)
/// and how much of that is the border (a band `border` wide inside the edge, following the corners).
struct PictureInPictureMask {
    let width: Int, height: Int
    let cover: [Float], edge: [Float]  // luma samples; the chroma ones are the means of 2×2
    let chromaCover: [Float], chromaEdge: [Float]

    init(width: Int, height: Int, radius: Double, border: Double) {
        self.width = width; self.height = height
        let r = min(max(radius, 0), Double(min(width, height)) / 2), b = max(border, 0)
        /// How far inside the rounded rectangle (pip by `by`, its radius shrunk as much) the sample centre lies.
        func inside(_ x: Int, _ y: Int, by: Double) -> Double {
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let left = by, top = by, right = Double(width) - by, bottom = Double(height) - by
            let rr = max(r - by, 0)
            let cx = min(max(px, left + rr), right - rr), cy = min(max(py, top + rr), bottom - rr)
            let straight = min(px - left, right - px, py - top, bottom - py)
            if rr == 0 || (px >= left + rr && px <= right - rr) || (py >= top + rr && py <= bottom - rr) { return straight }
            return rr - ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
        }
        var cover = [Float](repeating: 0, count: width * height), edge = cover
        for y in 0..<height {
            for x in 0..<width {
                let outer = Float(min(max(inside(x, y, by: 0) + 0.5, 0), 1))
                let inner = b > 0 ? Float(min(max(inside(x, y, by: b) + 0.5, 0), 1)) : outer
                cover[y * width + x] = outer
                edge[y * width + x] = outer - min(inner, outer)
            }
        }
        self.cover = cover; self.edge = edge
        let cw = width / 2, ch = height / 2
        var cc = [Float](repeating: 0, count: cw * ch), ce = cc
        for y in 0..<ch {
            for x in 0..<cw {
                let i = 2 * y * width + 2 * x
                cc[y * cw + x] = (cover[i] + cover[i + 1] + cover[i + width] + cover[i + width + 1]) / 4
                ce[y * cw + x] = (edge[i] + edge[i + 1] + edge[i + width] + edge[i + width + 1]) / 4
            }
        }
        chromaCover = cc; chromaEdge = ce
    }

    /// `picture` (this mask's size) over `frame` with its top-left at `origin` (even; parts outside are cut off):
    /// out = (picture·(cover − edge) + border·edge)·opacity + out·(1 − cover·opacity).
    func blend(_ picture: Frame, over frame: Frame, at origin: (x: Int, y: Int), opacity: Float, border: [Int]) {
        if (frame.format ?? .yuv420p).bytesPerSample == 2 {
            blend(picture, over: frame, at: origin, opacity: opacity, border: border, as: UInt16.self)
        } else {
            blend(picture, over: frame, at: origin, opacity: opacity, border: border, as: UInt8.self)
        }
    }

    private func blend<Sample: FixedWidthInteger & UnsignedInteger>(
        _ picture: Frame, over frame: Frame, at origin: (x: Int, y: Int), opacity: Float, border: [Int], as: Sample.Type
    ) {
        for p in 0..<3 {
            let shift = p == 0 ? 0 : 1
            let (w, h) = (width >> shift, height >> shift)
            let (fw, fh) = ((frame.width + shift) >> shift, (frame.height + shift) >> shift)
            let (ox, oy) = (origin.x >> shift, origin.y >> shift)
            let cover = p == 0 ? self.cover : chromaCover, edge = p == 0 ? self.edge : chromaEdge
            let line = Float(border[p])
            for y in max(0, -oy)..<min(h, fh - oy) {
                let src = (picture.data(p) + y * picture.stride(p)).assumingMemoryBound(to: Sample.self)
                let dst = (frame.data(p) + (oy + y) * frame.stride(p)).assumingMemoryBound(to: Sample.self)
                for x in max(0, -ox)..<min(w, fw - ox) {
                    let c = cover[y * w + x]
                    guard c > 0 else { continue }
                    let e = edge[y * w + x], a = c * opacity
                    let shown = Float(Int(src[x])) * (c - e) / c + line * e / c  // picture inside, border on the band
                    let v = shown * a + Float(Int(dst[ox + x])) * (1 - a)
                    dst[ox + x] = Sample(truncatingIfNeeded: Int(v.rounded()))
                }
            }
        }
    }
}
