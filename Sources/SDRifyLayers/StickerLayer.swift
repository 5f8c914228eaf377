import Foundation
import SDRifyMedia
import SDRifyValues

/// Where and how a sticker shows at one moment (output pixels of the upright frame).
package struct StickerState: Equatable {
    package var centreX: Double, centreY: Double
    package var width: Double, height: Double  // scaled size
    package var rotation: Double  // degrees clockwise
    package var opacity: Double
    package var picture: Int  // index into the decoded pictures (animations)
}

/// How a sticker's place, size, turn and opacity go over time: its position and size resolved for the output frame
/// (a size missing on one side keeps the picture's `natural` aspect), keyframed, faded. Stickers and pictures in
/// pictures move alike.
package struct StickerMotion: Sendable {
    package let spec: StickerSpec
    private let frameWidth: Int, frameHeight: Int
    package let baseX: Double, baseY: Double, baseWidth: Double, baseHeight: Double

    package init(spec: StickerSpec, natural: (width: Double, height: Double), frameWidth: Int, frameHeight: Int) {
        self.spec = spec
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        let w = spec.width?.resolve(against: frameWidth), h = spec.height?.resolve(against: frameHeight)
        baseWidth = w ?? h.map { $0 * natural.width / natural.height } ?? natural.width
        baseHeight = h ?? w.map { $0 * natural.height / natural.width } ?? natural.height
        baseX = spec.x.resolve(against: frameWidth)
        baseY = spec.y.resolve(against: frameHeight)
    }

    /// The state at `t` seconds of output (its picture 0), or nil when it is not showing.
    package func state(at t: Double) -> StickerState? {
        guard t >= spec.start, spec.end.map({ t < $0 }) ?? true else { return nil }
        let local = t - spec.start
        var x = baseX, y = baseY, scale = 1.0, rotation = 0.0, opacity = 1.0
        if let first = spec.keyframes.first {
            // Interpolation between the keyframes around `local` (shaped by the later one's easing); held before the
            // first and after the last.
            let after = spec.keyframes.firstIndex { $0.t > local } ?? spec.keyframes.count
            let a = spec.keyframes[max(after - 1, 0)], b = spec.keyframes[min(after, spec.keyframes.count - 1)]
            let f = local <= first.t || b.t <= a.t ? (local <= first.t ? 0 : 1) : b.easing.apply((local - a.t) / (b.t - a.t))
            func mix(_ p: Double?, _ q: Double?, _ base: Double) -> Double { (p ?? base) + ((q ?? base) - (p ?? base)) * f }
            let k = local <= first.t ? (first, first) : (a, b)
            x = mix(k.0.x?.resolve(against: frameWidth), k.1.x?.resolve(against: frameWidth), baseX)
            y = mix(k.0.y?.resolve(against: frameHeight), k.1.y?.resolve(against: frameHeight), baseY)
            scale = mix(k.0.scale, k.1.scale, 1)
            rotation = mix(k.0.rotation, k.1.rotation, 0)
            opacity = mix(k.0.opacity, k.1.opacity, 1)
        }
        opacity *= spec.opacity
        if spec.fadeIn > 0 { opacity *= min(1, local / spec.fadeIn) }
        if spec.fadeOut > 0, let end = spec.end { opacity *= min(1, (end - t) / spec.fadeOut) }
        guard opacity > 0.001 else { return nil }
        return StickerState(
            centreX: x + baseWidth / 2, centreY: y + baseHeight / 2, width: baseWidth * scale,
            height: baseHeight * scale, rotation: rotation, opacity: opacity, picture: 0)
    }
}

/// A sticker rendered for one state: premultiplied Y'CbCr codes (of the picture's signal) with alpha, on the frame's
/// 2×2 chroma grid (x0, y0 even), so blending is a multiply-add per sample.
package struct StickerTile {
    let x0: Int, y0: Int, width: Int, height: Int  // width, height even
    let luma: [Float]  // Y code × alpha
    let alpha: [Float]
    let cb: [Float], cr: [Float], chromaAlpha: [Float]  // per 2×2 block: mean of (C code × alpha), mean alpha
}

extension StickerTile {
    /// Premultiplied R'G'B'A (0–1, BT.709 R'G'B') on an even-aligned box → Y'CbCr codes of `signal` × alpha, chroma
    /// from the alpha-weighted 2×2 block.
    package init(premultipliedRGBA canvas: [Float], x0: Int, y0: Int, width w: Int, height h: Int, signal: LayerSignal) {
        var luma = [Float](repeating: 0, count: w * h), alpha = luma, cbFull = luma, crFull = luma
        // HDR codes cost a few pow() a sample: a run of one colour (flat fills, letters) is coded once.
        let memo = signal.kind != .sdr
        var last: (rgba: SIMD4<Float>, codes: (y: Float, cb: Float, cr: Float))? = nil
        for i in 0..<(w * h) {
            let a = canvas[4 * i + 3]
            guard a > 0 else { continue }
            let rgba = SIMD4(canvas[4 * i], canvas[4 * i + 1], canvas[4 * i + 2], a)
            if memo, let last, last.rgba == rgba {
                (luma[i], cbFull[i], crFull[i]) = last.codes
            } else {
                (luma[i], cbFull[i], crFull[i]) = signal.premultipliedCodes(r: rgba.x, g: rgba.y, b: rgba.z, a: a)
                if memo { last = (rgba, (luma[i], cbFull[i], crFull[i])) }
            }
            alpha[i] = a
        }
        let cw = w / 2, ch = h / 2
        var cb = [Float](repeating: 0, count: cw * ch), cr = cb, ca = cb
        for y in 0..<ch {
            for x in 0..<cw {
                let i = (2 * y) * w + 2 * x, j = y * cw + x
                cb[j] = (cbFull[i] + cbFull[i + 1] + cbFull[i + w] + cbFull[i + w + 1]) / 4
                cr[j] = (crFull[i] + crFull[i + 1] + crFull[i + w] + crFull[i + w + 1]) / 4
                ca[j] = (alpha[i] + alpha[i + 1] + alpha[i + w] + alpha[i + w + 1]) / 4
            }
        }
        self.init(x0: x0, y0: y0, width: w, height: h, luma: luma, alpha: alpha, cb: cb, cr: cr, chromaAlpha: ca)
    }
}

/// One sticker: pictures decoded once (premultiplied, with a half-size chain for large reductions), its
/// geometry resolved for the output frame, and the last rendered tile kept while its state does not change.
final class StickerLayer: @unchecked Sendable {
    let spec: StickerSpec
    private let motion: StickerMotion
    private let signal: LayerSignal
    private let mips: [[Mip]]  // per picture: full size, half, quarter…
    private let durations: [Double]
    private let loop: Double
    private var cached: (StickerState, StickerTile)?

    struct Mip { let width: Int, height: Int, rgba: [Float] }  // premultiplied, 0–1

    package init(spec: StickerSpec, pictures: [RGBAImage], frameWidth: Int, frameHeight: Int, signal: LayerSignal = .sdr) {
        self.spec = spec
        self.signal = signal
        motion = StickerMotion(
            spec: spec, natural: (Double(pictures[0].width), Double(pictures[0].height)), frameWidth: frameWidth, frameHeight: frameHeight)
        mips = pictures.map(StickerLayer.mipChain)
        durations = pictures.map { max($0.duration, 0.02) }
        loop = pictures.count > 1 ? durations.reduce(0, +) : 0
    }

    static func mipChain(_ image: RGBAImage) -> [Mip] {
        var level = Mip(
            width: image.width, height: image.height,
            rgba: (0..<image.width * image.height).flatMap { i -> [Float] in
                let a = Float(image.pixels[4 * i + 3]) / 255
                return [Float(image.pixels[4 * i]) / 255 * a, Float(image.pixels[4 * i + 1]) / 255 * a, Float(image.pixels[4 * i + 2]) / 255 * a, a]
            })
        var chain = [level]
        while level.width >= 4 && level.height >= 4 && chain.count < 8 {
            let w = level.width / 2, h = level.height / 2
            var next = [Float](repeating: 0, count: w * h * 4)
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<4 {
                        let s = { (xx: Int, yy: Int) in level.rgba[((yy * level.width) + xx) * 4 + c] }
                        next[(y * w + x) * 4 + c] = (s(2 * x, 2 * y) + s(2 * x + 1, 2 * y) + s(2 * x, 2 * y + 1) + s(2 * x + 1, 2 * y + 1)) / 4
                    }
                }
            }
            level = Mip(width: w, height: h, rgba: next)
            chain.append(level)
        }
        return chain
    }

    /// The state at `t` seconds of output, or nil when the sticker is not showing: its motion, and which picture of
    /// an animation shows.
    func state(at t: Double) -> StickerState? {
        guard var state = motion.state(at: t) else { return nil }
        if loop > 0 {
            var p = (t - spec.start).truncatingRemainder(dividingBy: loop)
            while state.picture < durations.count - 1 && p >= durations[state.picture] { p -= durations[state.picture]; state.picture += 1 }
        }
        return state
    }

    func tile(for state: StickerState) -> StickerTile {
        if let (s, t) = cached, s == state { return t }
        let t = render(state)
        cached = (state, t)
        return t
    }

    private func render(_ s: StickerState) -> StickerTile {
        let theta = s.rotation * .pi / 180
        let (cosT, sinT) = (cos(theta), sin(theta))
        let ex = (abs(cosT) * s.width + abs(sinT) * s.height) / 2, ey = (abs(sinT) * s.width + abs(cosT) * s.height) / 2
        let x0 = Int(floor(s.centreX - ex)) & ~1, y0 = Int(floor(s.centreY - ey)) & ~1
        let w = ((Int(ceil(s.centreX + ex)) - x0) + 1) & ~1, h = ((Int(ceil(s.centreY + ey)) - y0) + 1) & ~1
        // The picture level whose size is closest above the drawn size: bilinear sampling then never skips texels.
        let chain = mips[s.picture]
        var level = chain[0]
        for m in chain.dropFirst() where Double(m.width) >= s.width && Double(m.height) >= s.height { level = m }
        let sx = Double(level.width) / s.width, sy = Double(level.height) / s.height
        var canvas = [Float](repeating: 0, count: w * h * 4)
        let opacity = Float(s.opacity)
        for py in 0..<h {
            for px in 0..<w {
                // Output pixel centre → sticker coordinates (inverse rotation about the centre, then scale).
                let dx = Double(x0 + px) + 0.5 - s.centreX, dy = Double(y0 + py) + 0.5 - s.centreY
                let u = (dx * cosT + dy * sinT + s.width / 2) * sx - 0.5
                let v = (-dx * sinT + dy * cosT + s.height / 2) * sy - 0.5
                let c = StickerLayer.sample(level, u, v)
                let i = (py * w + px) * 4
                canvas[i] = c.0 * opacity; canvas[i + 1] = c.1 * opacity; canvas[i + 2] = c.2 * opacity; canvas[i + 3] = c.3 * opacity
            }
        }
        return StickerTile(premultipliedRGBA: canvas, x0: x0, y0: y0, width: w, height: h, signal: signal)
    }

    /// Bilinear sample of premultiplied RGBA; transparent outside the picture.
    static func sample(_ m: Mip, _ u: Double, _ v: Double) -> (Float, Float, Float, Float) {
        let x = Int(floor(u)), y = Int(floor(v))
        let fx = Float(u - Double(x)), fy = Float(v - Double(y))
        var out: (Float, Float, Float, Float) = (0, 0, 0, 0)
        for (dy, wy) in [(0, 1 - fy), (1, fy)] where wy > 0 {
            for (dx, wx) in [(0, 1 - fx), (1, fx)] where wx > 0 {
                let xx = x + dx, yy = y + dy
                guard xx >= 0, yy >= 0, xx < m.width, yy < m.height else { continue }
                let k = (yy * m.width + xx) * 4, wgt = wx * wy
                out.0 += m.rgba[k] * wgt; out.1 += m.rgba[k + 1] * wgt; out.2 += m.rgba[k + 2] * wgt; out.3 += m.rgba[k + 3] * wgt
            }
        }
        return out
    }
}
