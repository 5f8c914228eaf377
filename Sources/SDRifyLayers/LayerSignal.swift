import SDRifyMedia
import SDRifyValues

/// What the layers draw on: the render's pictures (8-bit BT.709 for SDR; 10-bit BT.2020 PQ or HLG for the HDR
/// kept) and how a graphic's colour is coded in them. Effects state their levels as 8-bit SDR codes (black 16, white
/// 235, neutral chroma 128); in HDR a level goes through the SDR grey it places (`greyAxis`) and a tint through its
/// SDR colour placed in HDR, so both keep the size they have on SDR pictures instead of reaching into the highlights.
package struct LayerSignal: Sendable {
    package let kind: HDRKind
    /// Codes per 8-bit code (1, or 4 at 10 bits), and the largest code.
    let scale: Float, maxCode: Float
    /// HDR's grey axis: the luma code of the SDR grey at each 8-bit level from 16 to 235 in steps of 1/`greySteps`,
    /// placed in this signal (empty for SDR).
    private let greyAxis: [Float]
    private static let greySteps: Float = 4

    package init(_ kind: HDRKind) {
        self.kind = kind
        let depth = kind.renderBitDepth
        scale = Float(1 << (depth - 8))
        maxCode = Float((1 << depth) - 1)
        let steps = Int(219 * LayerSignal.greySteps)
        greyAxis =
            kind == .sdr
            ? []
            : (0...steps).map { i in
                let s = Double(i) / Double(steps)
                return Float(1 << (depth - 8)) * Float(16 + 219 * HDRGraphics.signal(r: s, g: s, b: s, kind: kind).y)
            }
    }

    /// An HDR luma code as the 8-bit level (16…235) of the SDR grey placed there, and what it has above graphics white.
    func sdrLevel(ofLuma y: Float) -> (level: Float, excess: Float) {
        guard let top = greyAxis.last else { return (y, 0) }
        if y >= top { return (235, y - top) }
        if y <= greyAxis[0] { return (16, 0) }
        var (lo, hi) = (0, greyAxis.count - 1)  // greyAxis[lo] ≤ y < greyAxis[hi]
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if greyAxis[mid] <= y { lo = mid } else { hi = mid }
        }
        let f = (y - greyAxis[lo]) / (greyAxis[hi] - greyAxis[lo])
        return (16 + (Float(lo) + f) / LayerSignal.greySteps, 0)
    }

    /// The HDR luma code of the SDR grey at an 8-bit level (16…235).
    func luma(ofSDRLevel level: Float) -> Float {
        guard !greyAxis.isEmpty else { return level }
        let at = min(max((level - 16) * LayerSignal.greySteps, 0), Float(greyAxis.count - 1))
        let i = min(Int(at), greyAxis.count - 2), f = at - Float(i)
        return greyAxis[i] + (greyAxis[i + 1] - greyAxis[i]) * f
    }

    package static let sdr = LayerSignal(.sdr)

    /// Black's luma code and neutral chroma's (the same share of the range at any depth and in any transfer).
    var black: Float { 16 * scale }
    var neutral: Float { 128 * scale }

    /// The chroma codes of an 8-bit BT.709 tint (Cb, Cr about 128): in HDR, the chroma of the SDR colour of that tint
    /// at middle luma, placed in HDR, so the tint keeps its hue.
    func tint(cb: Float, cr: Float) -> (cb: Float, cr: Float) {
        guard kind != .sdr else { return (cb, cr) }
        let r = 0.5 + 1.5748 * Double(cr - 128) / 224, b = 0.5 + 1.8556 * Double(cb - 128) / 224
        let g = (0.5 - 0.2126 * r - 0.0722 * b) / 0.7152
        let s = HDRGraphics.signal(r: r, g: g, b: b, kind: kind)
        let c = limitedRange(s)
        return (c.cb, c.cr)
    }

    /// Y'CbCr codes × alpha of a premultiplied BT.709 R'G'B'A sample (each 0…1). SDR is linear in the colour, so
    /// premultiplied values code directly; HDR codes the colour itself, then multiplies.
    @inline(__always)
    func premultipliedCodes(r: Float, g: Float, b: Float, a: Float) -> (y: Float, cb: Float, cr: Float) {
        guard kind != .sdr else {
            let yp = 0.2126 * r + 0.7152 * g + 0.0722 * b
            return (16 * a + 219 * yp, 128 * a + 224 * (b - yp) / 1.8556, 128 * a + 224 * (r - yp) / 1.5748)
        }
        let s = HDRGraphics.signal(r: Double(r / a), g: Double(g / a), b: Double(b / a), kind: kind)
        let c = limitedRange(s)
        return (a * c.y, a * c.cb, a * c.cr)
    }

    /// The codes of an opaque colour, rounded.
    func codes(_ colour: RGBColor) -> (y: Float, cb: Float, cr: Float) {
        guard kind != .sdr else {
            let v = colour.ycbcr709
            return (Float(v.y), Float(v.cb), Float(v.cr))
        }
        let s = HDRGraphics.signal(r: Double(colour.r) / 255, g: Double(colour.g) / 255, b: Double(colour.b) / 255, kind: kind)
        let c = limitedRange(s)
        return (c.y.rounded(), c.cb.rounded(), c.cr.rounded())
    }

    /// Limited-range codes at this depth of Y' (0…1) and Cb, Cr (−0.5…0.5).
    private func limitedRange(_ s: (y: Double, cb: Double, cr: Double)) -> (y: Float, cb: Float, cr: Float) {
        (scale * Float(16 + 219 * s.y), scale * Float(128 + 224 * s.cb), scale * Float(128 + 224 * s.cr))
    }
}
