import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyValues

/// A time-ranged effect on the upright 4:2:0 picture (8-bit SDR or the 10-bit HDR kept), over its region (or all of
/// it). Outside its time range it costs nothing; inside, only its region is touched. Works on Y'CbCr directly: luma
/// at full size, chroma at half, with the same geometry; levels are stated as 8-bit codes and scaled to the depth.
final class EffectLayer: VideoLayer {
    let spec: EffectSpec
    private let width: Int, height: Int
    private let signal: LayerSignal

    /// Refuses (exit 64, naming the JSON path) a region that does not lie inside the `frameWidth`×`frameHeight` picture.
    package init(spec: EffectSpec, frameWidth: Int, frameHeight: Int, signal: LayerSignal = .sdr) throws {
        self.spec = spec
        self.signal = signal
        width = frameWidth; height = frameHeight
        if let r = spec.region {
            let (x, y) = (r.x.resolve(against: frameWidth), r.y.resolve(against: frameHeight))
            let (w, h) = (r.width.resolve(against: frameWidth), r.height.resolve(against: frameHeight))
            guard w >= 1, h >= 1, x >= 0, y >= 0, x + w <= Double(frameWidth) + 0.5, y + h <= Double(frameHeight) + 0.5 else {
                throw SDRifyError.usage(
                    "\(spec.path).region: \(Int(x)),\(Int(y)) \(Int(w))x\(Int(h)) is not inside the \(frameWidth)x\(frameHeight) picture")
            }
        }
    }

    func apply(to frame: Frame, at outputTime: MediaTime) {
        let time = outputTime.seconds
        guard time >= spec.start, spec.end.map({ time < $0 }) ?? true else { return }
        if signal.kind == .sdr { apply(to: frame, at: time, as: UInt8.self) } else { apply(to: frame, at: time, as: UInt16.self) }
    }

    private func apply<Sample: FixedWidthInteger & UnsignedInteger>(to frame: Frame, at time: Double, as: Sample.Type) {
        func plane(_ p: Int) -> PlaneRef<Sample> { frame.plane(p, maxCode: signal.maxCode) }
        let (values, kx, ky) = spec.state(at: time - spec.start)
        let rect = self.rect(x: kx, y: ky)
        guard rect.w >= 2, rect.h >= 2 else { return }
        func v(_ name: String) -> Double { values[name] ?? 0 }
        switch spec.kind {
        case .pixelate:
            let block = max(2, Int(v("block").rounded()))
            for p in 0..<3 { EffectKernels.pixelate(plane(p), rect.scaled(p), block: p == 0 ? block : max(1, block / 2)) }
        case .blur:
            let sigma = v("radius") / 2  // the radius spans about two standard deviations
            guard sigma > 0.2 else { return }
            for p in 0..<3 { EffectKernels.gaussian(plane(p), rect.scaled(p), sigma: p == 0 ? sigma : sigma / 2) }
        case .grayscale:
            for p in 1...2 { EffectKernels.map(plane(p), rect.scaled(p)) { _ in signal.neutral } }
        case .sepia:
            // A warm brown tint (Cb 114, Cr 142, about RGB 112/66/20 as a hue) replacing the colour by `strength`.
            let s = Float(v("strength"))
            let (cb, cr) = signal.tint(cb: 114, cr: 142)
            EffectKernels.map(plane(1), rect.scaled(1)) { c in c + (cb - c) * s }
            EffectKernels.map(plane(2), rect.scaled(2)) { c in c + (cr - c) * s }
        case .adjust:
            let b = Float(v("brightness")), c = Float(v("contrast")), s = Float(v("saturation"))
            // Luma as a share of black…white: contrast pivots about its middle, brightness moves by shares of it, and the
            // result stays within them. On HDR it is done to the SDR grey each level places (graphics white its white),
            // so it looks as on SDR; HDR highlights keep what they have above graphics white.
            func adjusted(_ y: Float) -> Float { min(max(16 + 219 * (((y - 16) / 219 - 0.5) * c + 0.5 + b), 16), 235) }
            if signal.kind == .sdr {
                EffectKernels.map(plane(0), rect, adjusted)
            } else {
                EffectKernels.map(plane(0), rect) { y in
                    let (level, excess) = signal.sdrLevel(ofLuma: y)
                    return signal.luma(ofSDRLevel: adjusted(level)) + excess
                }
            }
            let (neutral, low, high) = (signal.neutral, signal.scale * 16, signal.scale * 240)
            for p in 1...2 { EffectKernels.map(plane(p), rect.scaled(p)) { ch in min(max(neutral + (ch - neutral) * s, low), high) } }
        case .vignette:
            let strength = Float(v("strength"))
            for p in 0..<3 {
                EffectKernels.vignette(plane(p), rect.scaled(p), strength: strength, neutral: p == 0 ? signal.black : signal.neutral)
            }
        case .pointillize:
            let dots = Pointillism.dots(in: rect, size: v("size"), jitter: v("jitter"))
            let paper: RGBColor
            if case .background(let color)? = spec.setting { paper = color } else { paper = RGBColor(r: 255, g: 255, b: 255) }
            let codes = signal.codes(paper)
            for (p, background) in [codes.y, codes.cb, codes.cr].enumerated() {
                Pointillism.paint(
                    plane(p), rect.scaled(p), dots: dots, scale: p == 0 ? 1 : 0.5, background: Sample(truncatingIfNeeded: Int(background)))
            }
        case .vortex:
            let short = Double(min(rect.w, rect.h))
            let radius = v("radius") > 0 ? v("radius") : short / 2
            var (cx, cy) = (Double(rect.x) + Double(rect.w) / 2, Double(rect.y) + Double(rect.h) / 2)
            if case .center(let x, let y)? = spec.setting { (cx, cy) = (x.resolve(against: width), y.resolve(against: height)) }
            for p in 0..<3 {
                let k = p == 0 ? 1.0 : 0.5
                EffectKernels.vortex(plane(p), rect.scaled(p), centre: (cx * k, cy * k), radius: radius * k, angle: v("angle") * .pi / 180)
            }
        }
    }

    /// The region at this time (x/y from keyframes when the region moves), inside the picture, on even pixels.
    private func rect(x kx: Length?, y ky: Length?) -> EffectRect {
        guard let r = spec.region else { return EffectRect(x: 0, y: 0, w: width & ~1, h: height & ~1) }
        let x = (kx ?? r.x).resolve(against: width), y = (ky ?? r.y).resolve(against: height)
        let w = r.width.resolve(against: width), h = r.height.resolve(against: height)
        let x0 = min(max(Int(x.rounded()) & ~1, 0), width), y0 = min(max(Int(y.rounded()) & ~1, 0), height)
        let x1 = min(Int((x + w).rounded() + 1) & ~1, width & ~1), y1 = min(Int((y + h).rounded() + 1) & ~1, height & ~1)
        return EffectRect(x: x0, y: y0, w: max(0, x1 - x0), h: max(0, y1 - y0))
    }
}

/// A rectangle of a plane, in that plane's samples.
package struct EffectRect {
    package var x: Int, y: Int, w: Int, h: Int
    /// The same rectangle in plane `p` (chroma at half size).
    func scaled(_ p: Int) -> EffectRect { p == 0 ? self : EffectRect(x: x / 2, y: y / 2, w: w / 2, h: h / 2) }

    package init(x: Int, y: Int, w: Int, h: Int) {
        self.x = x; self.y = y; self.w = w; self.h = h
    }
}

/// One plane of 8-bit samples (SDR) or 16-bit ones holding 10-bit codes (the HDR kept). `stride` in samples.
package struct PlaneRef<Sample: FixedWidthInteger & UnsignedInteger> {
    package let data: UnsafeMutablePointer<Sample>
    package let stride: Int
    package let width: Int, height: Int
    /// The largest code (255, or 1023 at 10 bits).
    let maxCode: Float
    package func row(_ y: Int) -> UnsafeMutablePointer<Sample> { data + y * stride }
    /// A level rounded and clamped to a code.
    /// (Through Int: the generic Float → FixedWidthInteger conversion is a slow library routine, Int's one instruction.)
    @inline(__always) func clamp(_ v: Float) -> Sample { Sample(truncatingIfNeeded: Int(min(max(v.rounded(), 0), maxCode))) }
}

extension Frame {
    /// Plane `p` of this 4:2:0 picture as `Sample`s.
    package func plane<Sample>(_ p: Int, maxCode: Float) -> PlaneRef<Sample> {
        let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: width, height: height)
        return PlaneRef(
            data: data(p).assumingMemoryBound(to: Sample.self), stride: stride(p) / MemoryLayout<Sample>.size, width: w, height: h, maxCode: maxCode)
    }
}

package enum EffectKernels {
    package static func map<S>(_ plane: PlaneRef<S>, _ r: EffectRect, _ f: (Float) -> Float) {
        let codes = Int(plane.maxCode) + 1
        var table = [S](repeating: 0, count: codes)  // per-sample functions become a lookup
        for i in 0..<codes { table[i] = plane.clamp(f(Float(i))) }
        for y in r.y..<(r.y + r.h) {
            let row = plane.row(y)
            for x in r.x..<(r.x + r.w) { row[x] = table[Int(row[x])] }
        }
    }

    /// Each block×block square (from the region's corner; partial ones at its far edges) becomes its mean.
    static func pixelate<S>(_ plane: PlaneRef<S>, _ r: EffectRect, block: Int) {
        var by = r.y
        while by < r.y + r.h {
            let bh = min(block, r.y + r.h - by)
            var bx = r.x
            while bx < r.x + r.w {
                let bw = min(block, r.x + r.w - bx)
                var sum = 0
                for y in by..<(by + bh) { let row = plane.row(y); for x in bx..<(bx + bw) { sum += Int(row[x]) } }
                let mean = S(truncatingIfNeeded: (sum + bw * bh / 2) / (bw * bh))
                for y in by..<(by + bh) { (plane.row(y) + bx).update(repeating: mean, count: bw) }
                bx += block
            }
            by += block
        }
    }

    /// Widths of three box blurs whose succession approximates a Gaussian of `sigma` (any size, in linear time).
    static func boxes(sigma: Double) -> [Int] {
        let n = 3.0
        var wl = Int((12 * sigma * sigma / n + 1).squareRoot())
        if wl % 2 == 0 { wl -= 1 }
        wl = max(wl, 1)
        let m = ((12 * sigma * sigma - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)).rounded()
        return (0..<3).map { Double($0) < m ? wl : wl + 2 }
    }

    /// A Gaussian blur inside the region (edges extended inward: nothing outside leaks in or is changed).
    static func gaussian<S>(_ plane: PlaneRef<S>, _ r: EffectRect, sigma: Double) {
        guard r.w > 1, r.h > 1 else { return }
        var a = [Float](repeating: 0, count: r.w * r.h)
        for y in 0..<r.h { let row = plane.row(r.y + y); for x in 0..<r.w { a[y * r.w + x] = Float(row[r.x + x]) } }
        gaussian(&a, width: r.w, height: r.h, sigma: sigma)
        for y in 0..<r.h { let row = plane.row(r.y + y); for x in 0..<r.w { row[r.x + x] = plane.clamp(a[y * r.w + x]) } }
    }

    /// A Gaussian blur of a `width`×`height` float image in place (edges extended).
    package static func gaussian(_ a: inout [Float], width: Int, height: Int, sigma: Double) {
        guard width > 1, height > 1 else { return }
        var b = [Float](repeating: 0, count: width * height)
        for size in boxes(sigma: sigma) where size > 1 {
            boxPass(&a, &b, count: height, length: width, step: 1, lineStep: width, radius: size / 2)
            verticalBoxPass(&b, &a, width: width, height: height, radius: size / 2)
        }
    }

    /// A running-sum box of 2·radius+1 along `count` lines of `length` samples, clamping at the line's ends (only
    /// near them: the middle of a line runs without bounds checks).
    private static func boxPass(_ src: inout [Float], _ dst: inout [Float], count: Int, length: Int, step: Int, lineStep: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                for line in 0..<count {
                    let src = s.baseAddress! + line * lineStep, dst = d.baseAddress! + line * lineStep
                    func at(_ i: Int) -> Float { src[min(max(i, 0), length - 1) * step] }
                    var sum: Float = 0
                    for i in -radius...radius { sum += at(i) }
                    var i = 0
                    let safeEnd = length - radius - 1  // from radius to here both ends of the window are inside
                    while i < length {
                        dst[i * step] = sum * scale
                        if i >= radius && i < safeEnd {
                            sum += src[(i + radius + 1) * step] - src[(i - radius) * step]
                        } else {
                            sum += at(i + radius + 1) - at(i - radius)
                        }
                        i += 1
                    }
                }
            }
        }
    }

    /// The same box down the columns, a whole row at a time (running sums per column: cache-friendly).
    private static func verticalBoxPass(_ src: inout [Float], _ dst: inout [Float], width: Int, height: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        var sum = [Float](repeating: 0, count: width)
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                sum.withUnsafeMutableBufferPointer { acc in
                    func row(_ y: Int) -> UnsafePointer<Float> { s.baseAddress! + min(max(y, 0), height - 1) * width }
                    for y in -radius...radius { let r = row(y); for x in 0..<width { acc[x] += r[x] } }
                    for y in 0..<height {
                        let out = d.baseAddress! + y * width, add = row(y + radius + 1), drop = row(y - radius)
                        for x in 0..<width {
                            out[x] = acc[x] * scale
                            acc[x] += add[x] - drop[x]
                        }
                    }
                }
            }
        }
    }

    /// Darkens (and desaturates) toward the region's corners: 1 − strength·(d/d_corner)², the squared distance
    /// split into a column table and a per-row term.
    static func vignette<S>(_ plane: PlaneRef<S>, _ r: EffectRect, strength: Float, neutral: Float) {
        let cx = Float(r.x) + Float(r.w) / 2, cy = Float(r.y) + Float(r.h) / 2
        let scale = strength / (Float(r.w * r.w + r.h * r.h) / 4)
        let columns = (0..<r.w).map { i -> Float in
            let dx = Float(r.x + i) + 0.5 - cx; return dx * dx * scale
        }
        columns.withUnsafeBufferPointer { cols in
            for y in r.y..<(r.y + r.h) {
                let row = plane.row(y) + r.x, dy = Float(y) + 0.5 - cy
                let rowTerm = 1 - dy * dy * scale
                for i in 0..<r.w {
                    let v = neutral + (Float(row[i]) - neutral) * (rowTerm - cols[i]) + 0.5
                    row[i] = S(truncatingIfNeeded: Int(min(max(v, 0), plane.maxCode)))
                }
            }
        }
    }

    /// A swirl about `centre`: twisted by `angle` (radians) at the centre, falling to 0 at `radius`; only within
    /// the region, sampled bilinearly from the picture as it was.
    static func vortex<S>(_ plane: PlaneRef<S>, _ r: EffectRect, centre: (Double, Double), radius: Double, angle: Double) {
        guard radius > 1, angle != 0 else { return }
        let x0 = max(r.x, Int(centre.0 - radius)), x1 = min(r.x + r.w, Int(centre.0 + radius) + 1)
        let y0 = max(r.y, Int(centre.1 - radius)), y1 = min(r.y + r.h, Int(centre.1 + radius) + 1)
        guard x0 < x1, y0 < y1 else { return }
        // The source: a copy of the whole plane rows touched (samples may come from anywhere in the circle).
        let sy0 = max(0, Int(centre.1 - radius) - 1), sy1 = min(plane.height, Int(centre.1 + radius) + 2)
        var copy = [S](repeating: 0, count: (sy1 - sy0) * plane.width)
        for y in sy0..<sy1 {
            copy.withUnsafeMutableBufferPointer { ($0.baseAddress! + (y - sy0) * plane.width).update(from: plane.row(y), count: plane.width) }
        }
        func sample(_ x: Double, _ y: Double) -> Float {
            let fx = min(max(x, 0), Double(plane.width - 1)), fy = min(max(y, Double(sy0)), Double(sy1 - 1))
            let ix = min(Int(fx), plane.width - 2), iy = min(Int(fy), sy1 - 2)
            let ax = Float(fx - Double(ix)), ay = Float(fy - Double(iy))
            let i = (iy - sy0) * plane.width + ix
            let top = Float(copy[i]) * (1 - ax) + Float(copy[i + 1]) * ax
            let bottom = Float(copy[i + plane.width]) * (1 - ax) + Float(copy[i + plane.width + 1]) * ax
            return top * (1 - ay) + bottom * ay
        }
        guard sy1 - sy0 >= 2, plane.width >= 2 else { return }
        for y in y0..<y1 {
            let row = plane.row(y)
            for x in x0..<x1 {
                let dx = Double(x) + 0.5 - centre.0, dy = Double(y) + 0.5 - centre.1
                let d = (dx * dx + dy * dy).squareRoot()
                guard d < radius else { continue }
                let fall = 1 - d / radius
                let t = angle * fall * fall
                let (c, s) = (cos(t), sin(t))
                row[x] = plane.clamp(sample(centre.0 + dx * c - dy * s - 0.5, centre.1 + dx * s + dy * c - 0.5))
            }
        }
    }
}
