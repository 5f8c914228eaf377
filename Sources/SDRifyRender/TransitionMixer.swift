import CKernels
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// Draws one picture of a transition from the outgoing picture `a` and the incoming `b` (canvas-sized, 8-bit
/// 4:2:0) at `progress` 0 → 1, with ffmpeg xfade's meanings: wipeleft uncovers b from the right edge, the edge
/// moving left; slideleft moves both pictures left, b entering from the right; the vertical ones alike.
/// Edges fall on even luma pixels so chroma moves with luma.
enum TransitionMixer {
    static func draw(_ kind: TransitionKind, progress p: Double, a: Frame, b: Frame, into out: Frame) {
        let (W, H) = (out.width, out.height)
        func even(_ x: Double) -> Int { max(2 * Int((x / 2).rounded()), 0) }
        switch kind {
        case .none:
            copy(b, into: out)
        case .fade:
            mix(a, b, weight: p, into: out)
        case .fadeblack, .fadewhite:
            // Out to the colour in the first half, in from it in the second.
            let colour = kind == .fadeblack ? RGBColor.black : RGBColor(r: 255, g: 255, b: 255)
            let c = colour.ycbcr709
            if p < 0.5 { mixToColour(a, c, weight: p * 2, into: out) } else { mixToColour(b, c, weight: (1 - p) * 2, into: out) }
        case .wipeleft: columns(out, W) { x in x < even(Double(W) * (1 - p)) ? (a, x) : (b, x) }
        case .wiperight: columns(out, W) { x in x < even(Double(W) * p) ? (b, x) : (a, x) }
        case .wipeup: rows(out, H) { y in y < even(Double(H) * (1 - p)) ? (a, y) : (b, y) }
        case .wipedown: rows(out, H) { y in y < even(Double(H) * p) ? (b, y) : (a, y) }
        case .slideleft:
            let d = min(even(Double(W) * p), W)
            columns(out, W) { x in x < W - d ? (a, x + d) : (b, x - (W - d)) }
        case .slideright:
            let d = min(even(Double(W) * p), W)
            columns(out, W) { x in x < d ? (b, x + W - d) : (a, x - d) }
        case .slideup:
            let d = min(even(Double(H) * p), H)
            rows(out, H) { y in y < H - d ? (a, y + d) : (b, y - (H - d)) }
        case .slidedown:
            let d = min(even(Double(H) * p), H)
            rows(out, H) { y in y < d ? (b, y + H - d) : (a, y - d) }
        }
    }

    static func copy(_ src: Frame, into out: Frame) {
        let layout = out.format ?? .yuv420p
        for p in 0..<3 {
            let (w, h) = layout.planeSize(p, width: out.width, height: out.height)
            let row = w * layout.bytesPerSample
            for y in 0..<h { (out.data(p) + y * out.stride(p)).copyMemory(from: src.data(p) + y * src.stride(p), byteCount: row) }
        }
    }

    private static func mix(_ a: Frame, _ b: Frame, weight: Double, into out: Frame) {
        let w = Int32(min(max((weight * 256).rounded(), 0), 256))
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: out.width, height: out.height)
            sdrify_mix_rows(
                a.data(p).assumingMemoryBound(to: UInt8.self), a.stride(p), b.data(p).assumingMemoryBound(to: UInt8.self),
                b.stride(p), out.data(p).assumingMemoryBound(to: UInt8.self), out.stride(p), Int32(pw), Int32(ph), w)
        }
    }

    /// `src` mixed with a flat colour: weight 0 is `src`, 1 the colour.
    private static func mixToColour(_ src: Frame, _ c: (y: UInt8, cb: UInt8, cr: UInt8), weight: Double, into out: Frame) {
        let w = Int32(min(max((weight * 256).rounded(), 0), 256))
        for (p, v) in [c.y, c.cb, c.cr].enumerated() {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: out.width, height: out.height)
            var row = [UInt8](repeating: v, count: pw)
            row.withUnsafeMutableBufferPointer { flat in
                sdrify_mix_rows(
                    src.data(p).assumingMemoryBound(to: UInt8.self), src.stride(p), flat.baseAddress!, 0,
                    out.data(p).assumingMemoryBound(to: UInt8.self), out.stride(p), Int32(pw), Int32(ph), w)
            }
        }
    }

    /// Each output row `y` (luma rows; chroma follows at half) copied from row `pick(y).1` of picture `pick(y).0`.
    private static func rows(_ out: Frame, _ H: Int, pick: (Int) -> (Frame, Int)) {
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: out.width, height: H)
            let s = p == 0 ? 0 : 1
            for y in 0..<ph {
                let (src, sy) = pick(y << s)
                (out.data(p) + y * out.stride(p)).copyMemory(from: src.data(p) + (sy >> s) * src.stride(p), byteCount: pw)
            }
        }
    }

    /// Each output column span copied from the picture `pick(x)` names; spans break only at even x.
    private static func columns(_ out: Frame, _ W: Int, pick: (Int) -> (Frame, Int)) {
        // Find the spans on even columns: [x0, x1) all from one picture, at consecutive source columns.
        var spans: [(x0: Int, x1: Int, src: Frame, sx: Int)] = []
        var x = 0
        while x < W {
            let (src, sx) = pick(x)
            var x1 = x + 2
            while x1 < W { let (s2, c2) = pick(x1); if s2 !== src || c2 != sx + (x1 - x) { break }; x1 += 2 }
            spans.append((x, min(x1, W), src, sx))
            x = x1
        }
        for p in 0..<3 {
            let (_, ph) = PlanarFormat.yuv420p.planeSize(p, width: W, height: out.height)
            let s = p == 0 ? 0 : 1
            for span in spans {
                let n = (span.x1 - span.x0 + s) >> s
                for y in 0..<ph {
                    (out.data(p) + y * out.stride(p) + (span.x0 >> s))
                        .copyMemory(from: span.src.data(p) + y * span.src.stride(p) + (span.sx >> s), byteCount: n)
                }
            }
        }
    }
}
