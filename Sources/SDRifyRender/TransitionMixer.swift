import CKernels
import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// Draws one picture of a transition from the outgoing picture `a` and the incoming `b` (canvas-sized, 4:2:0 of the
/// render's `range`: 8-bit, or the HDR kept's 16-bit words; mixed in the signal, as ffmpeg's xfade mixes) at
/// `progress` 0 → 1, with xfade's meanings: wipeleft uncovers b from the right edge, the edge moving left;
/// slideleft moves both pictures left, b entering from the right; the vertical ones alike. Edges fall on even luma
/// pixels so chroma moves with luma.
enum TransitionMixer {
    static func draw(_ kind: TransitionKind, progress p: Double, a: Frame, b: Frame, into out: Frame, range: HDRKind = .sdr) {
        let (W, H) = (out.width, out.height)
        func even(_ x: Double) -> Int { max(2 * Int((x / 2).rounded()), 0) }
        switch kind {
        case .none:
            copy(b, into: out)
        case .fade:
            mix(a, b, weight: p, into: out)
        case .fadeblack, .fadewhite:
            // Out to the colour in the first half, in from it in the second.
            let c = Canvas.samples(of: kind == .fadeblack ? RGBColor.black : RGBColor(r: 255, g: 255, b: 255), in: range)
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

    static func copy(_ src: Frame, into out: Frame) { out.copy((out.width, out.height), of: src) }

    /// Rows of one plane mixed (CKernels, at the samples' size): `b`'s stride 0 repeats one row.
    private static func mixRows(
        _ a: UnsafeRawPointer, _ aStride: Int, _ b: UnsafeRawPointer, _ bStride: Int, _ out: UnsafeMutableRawPointer, _ outStride: Int,
        width: Int, height: Int, weight: Int32, wide: Bool
    ) {
        if wide {
            sdrify_mix_rows_u16(
                a.assumingMemoryBound(to: UInt16.self), aStride, b.assumingMemoryBound(to: UInt16.self), bStride,
                out.assumingMemoryBound(to: UInt16.self), outStride, Int32(width), Int32(height), weight)
        } else {
            sdrify_mix_rows(
                a.assumingMemoryBound(to: UInt8.self), aStride, b.assumingMemoryBound(to: UInt8.self), bStride,
                out.assumingMemoryBound(to: UInt8.self), outStride, Int32(width), Int32(height), weight)
        }
    }

    private static func mix(_ a: Frame, _ b: Frame, weight: Double, into out: Frame) {
        let w = Int32(min(max((weight * 256).rounded(), 0), 256))
        let layout = out.format ?? .yuv420p
        for p in 0..<3 {
            let (pw, ph) = layout.planeSize(p, width: out.width, height: out.height)
            mixRows(
                a.data(p), a.stride(p), b.data(p), b.stride(p), out.data(p), out.stride(p), width: pw, height: ph, weight: w,
                wide: layout.bytesPerSample == 2)
        }
    }

    /// `src` mixed with a flat colour (its Y', Cb, Cr samples): weight 0 is `src`, 1 the colour.
    private static func mixToColour(_ src: Frame, _ c: [Int], weight: Double, into out: Frame) {
        let w = Int32(min(max((weight * 256).rounded(), 0), 256))
        let layout = out.format ?? .yuv420p, wide = layout.bytesPerSample == 2
        for (p, v) in c.enumerated() {
            let (pw, ph) = layout.planeSize(p, width: out.width, height: out.height)
            let flat = UnsafeMutableRawPointer.allocate(byteCount: pw * layout.bytesPerSample, alignment: 16)
            defer { flat.deallocate() }
            if wide {
                flat.initializeMemory(as: UInt16.self, repeating: UInt16(v), count: pw)
            } else {
                flat.initializeMemory(as: UInt8.self, repeating: UInt8(v), count: pw)
            }
            mixRows(src.data(p), src.stride(p), flat, 0, out.data(p), out.stride(p), width: pw, height: ph, weight: w, wide: wide)
        }
    }

    /// Each output row `y` (luma rows; chroma follows at half) copied from row `pick(y).1` of picture `pick(y).0`.
    private static func rows(_ out: Frame, _ H: Int, pick: (Int) -> (Frame, Int)) {
        let layout = out.format ?? .yuv420p
        for p in 0..<3 {
            let (pw, ph) = layout.planeSize(p, width: out.width, height: H)
            let s = p == 0 ? 0 : 1
            for y in 0..<ph {
                let (src, sy) = pick(y << s)
                (out.data(p) + y * out.stride(p)).copyMemory(
                    from: src.data(p) + (sy >> s) * src.stride(p), byteCount: pw * layout.bytesPerSample)
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
        let layout = out.format ?? .yuv420p, bytes = layout.bytesPerSample
        for p in 0..<3 {
            let (_, ph) = layout.planeSize(p, width: W, height: out.height)
            let s = p == 0 ? 0 : 1
            for span in spans {
                let n = (span.x1 - span.x0 + s) >> s
                for y in 0..<ph {
                    (out.data(p) + y * out.stride(p) + (span.x0 >> s) * bytes)
                        .copyMemory(from: span.src.data(p) + y * span.src.stride(p) + (span.sx >> s) * bytes, byteCount: n * bytes)
                }
            }
        }
    }
}
