import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyValues

/// A time-ranged effect on the upright 8-bit 4:2:0 picture, over its region (or all of it). Outside its time
/// range it costs nothing; inside, only its region is touched. Works on Y'CbCr directly: luma at full size, chroma
/// at half, with the same geometry.
final class EffectLayer: VideoLayer {
    let spec: EffectSpec
    private let width: Int, height: Int

    /// Refuses (exit 64, naming the JSON path) a region that does not lie inside the `frameWidth`×`frameHeight` picture.
    package init(spec: EffectSpec, frameWidth: Int, frameHeight: Int) throws {
        self.spec = spec
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
        let (values, kx, ky) = spec.state(at: time - spec.start)
        let rect = self.rect(x: kx, y: ky)
        guard rect.w >= 2, rect.h >= 2 else { return }
        func v(_ name: String) -> Double { values[name] ?? 0 }
        switch spec.kind {
        case .pixelate:
            let block = max(2, Int(v("block").rounded()))
            for p in 0..<3 { EffectKernels.pixelate(frame.plane(p), rect.scaled(p), block: p == 0 ? block : max(1, block / 2)) }
        case .blur:
            let sigma = v("radius") / 2  // the radius spans about two standard deviations
            guard sigma > 0.2 else { return }
            for p in 0..<3 { EffectKernels.gaussian(frame.plane(p), rect.scaled(p), sigma: p == 0 ? sigma : sigma / 2) }
        case .grayscale:
            for p in 1...2 { EffectKernels.map(frame.plane(p), rect.scaled(p)) { _ in 128 } }
        case .sepia:
            // A warm brown tint (Cb 114, Cr 142, about RGB 112/66/20 as a hue) replacing the colour by `strength`.
            let s = Float(v("strength"))
            EffectKernels.map(frame.plane(1), rect.scaled(1)) { c in c + (114 - c) * s }
            EffectKernels.map(frame.plane(2), rect.scaled(2)) { c in c + (142 - c) * s }
        case .adjust:
            let b = Float(v("brightness")), c = Float(v("contrast")), s = Float(v("saturation"))
            EffectKernels.map(frame.plane(0), rect) { y in
                let l = ((y - 16) / 219 - 0.5) * c + 0.5 + b
                return min(max(16 + 219 * l, 16), 235)
            }
            for p in 1...2 { EffectKernels.map(frame.plane(p), rect.scaled(p)) { ch in min(max(128 + (ch - 128) * s, 16), 240) } }
        case .vignette:
            let strength = Float(v("strength"))
            for p in 0..<3 { EffectKernels.vignette(frame.plane(p), rect.scaled(p), strength: strength, neutral: p == 0 ? 16 : 128) }
        case .pointillize:
            let dots = Pointillism.dots(in: rect, size: v("size"), jitter: v("jitter"))
            let paper = (spec.background ?? RGBColor(r: 255, g: 255, b: 255)).ycbcr709
            for (p, background) in [paper.y, paper.cb, paper.cr].enumerated() {
                Pointillism.paint(frame.plane(p), rect.scaled(p), dots: dots, scale: p == 0 ? 1 : 0.5, background: background)
            }
        case .vortex:
            let short = Double(min(rect.w, rect.h))
            let radius = v("radius") > 0 ? v("radius") : short / 2
            let cx = spec.center.map { $0.x.resolve(against: width) } ?? Double(rect.x) + Double(rect.w) / 2
            let cy = spec.center.map { $0.y.resolve(against: height) } ?? Double(rect.y) + Double(rect.h) / 2
            for p in 0..<3 {
                let k = p == 0 ? 1.0 : 0.5
                EffectKernels.vortex(frame.plane(p), rect.scaled(p), centre: (cx * k, cy * k), radius: radius * k, angle: v("angle") * .pi / 180)
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

/// One 8-bit plane.
package struct PlaneRef {
    package let data: UnsafeMutablePointer<UInt8>
    package let stride: Int
    package let width: Int, height: Int
    package func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { data + y * stride }
}

extension Frame {
    package func plane(_ p: Int) -> PlaneRef {
        let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: width, height: height)
        return PlaneRef(data: data(p).assumingMemoryBound(to: UInt8.self), stride: stride(p), width: w, height: h)
    }
}

package enum EffectKernels {
    static func clampByte(_ v: Float) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }

    package static func map(_ plane: PlaneRef, _ r: EffectRect, _ f: (Float) -> Float) {
        var table = [UInt8](repeating: 0, count: 256)  // per-sample functions become a lookup
        for i in 0..<256 { table[i] = clampByte(f(Float(i))) }
        for y in r.y..<(r.y + r.h) {
            let row = plane.row(y)
            for x in r.x..<(r.x + r.w) { row[x] = table[Int(row[x])] }
        }
    }

    /// Each block×block square (from the region's corner; partial ones at its far edges) becomes its mean.
    static func pixelate(_ plane: PlaneRef, _ r: EffectRect, block: Int) {
        var by = r.y
        while by < r.y + r.h {
            let bh = min(block, r.y + r.h - by)
            var bx = r.x
            while bx < r.x + r.w {
                let bw = min(block, r.x + r.w - bx)
                var sum = 0
                for y in by..<(by + bh) { let row = plane.row(y); for x in bx..<(bx + bw) { sum += Int(row[x]) } }
                let mean = UInt8((sum + bw * bh / 2) / (bw * bh))
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
    static func gaussian(_ plane: PlaneRef, _ r: EffectRect, sigma: Double) {
        guard r.w > 1, r.h > 1 else { return }
        var a = [Float](repeating: 0, count: r.w * r.h)
        for y in 0..<r.h { let row = plane.row(r.y + y); for x in 0..<r.w { a[y * r.w + x] = Float(row[r.x + x]) } }
        gaussian(&a, width: r.w, height: r.h, sigma: sigma)
        for y in 0..<r.h { let row = plane.row(r.y + y); for x in 0..<r.w { row[r.x + x] = clampByte(a[y * r.w + x]) } }
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
    static func vignette(_ plane: PlaneRef, _ r: EffectRect, strength: Float, neutral: Float) {
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
                    row[i] = UInt8(min(max(v, 0), 255))
                }
            }
        }
    }

    /// A swirl about `centre`: twisted by `angle` (radians) at the centre, falling to 0 at `radius`; only within
    /// the region, sampled bilinearly from the picture as it was.
    static func vortex(_ plane: PlaneRef, _ r: EffectRect, centre: (Double, Double), radius: Double, angle: Double) {
        guard radius > 1, angle != 0 else { return }
        let x0 = max(r.x, Int(centre.0 - radius)), x1 = min(r.x + r.w, Int(centre.0 + radius) + 1)
        let y0 = max(r.y, Int(centre.1 - radius)), y1 = min(r.y + r.h, Int(centre.1 + radius) + 1)
        guard x0 < x1, y0 < y1 else { return }
        // The source: a copy of the whole plane rows touched (samples may come from anywhere in the circle).
        let sy0 = max(0, Int(centre.1 - radius) - 1), sy1 = min(plane.height, Int(centre.1 + radius) + 2)
        var copy = [UInt8](repeating: 0, count: (sy1 - sy0) * plane.width)
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
                row[x] = clampByte(sample(centre.0 + dx * c - dy * s - 0.5, centre.1 + dx * s + dy * c - 0.5))
            }
        }
    }
}
