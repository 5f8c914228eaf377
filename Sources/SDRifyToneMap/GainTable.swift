import CKernels
import Foundation

/// The tone curve baked into a table of gains: gain(Y) = curve(Y)/Y for relative luminance Y (1 = 203 cd/m²).
/// Indexed by the float's own bit pattern, so the steps are logarithmic (128 per octave, from 2⁻²⁰ up to the
/// largest luminance the transfer encodes) and the lookup needs no square root or float→int conversion:
/// the top bits are the index, the next 16 the interpolation fraction. ToneMapTests checks it against the
/// direct curve.
struct GainTable: Sendable {
    static let shift: UInt32 = 16  // keep 7 mantissa bits: 128 steps per octave
    static let minY: Float = 1.0 / 1_048_576  // 2⁻²⁰; darker is black to 8 bits anyway
    let gains: [Float]
    let maxY: Float
    let base: UInt32  // index of minY

    /// `maxY`: the largest relative luminance the source transfer can encode (PQ: 10000/203, HLG: 1000/203).
    package init(curve: ToneCurve, maxY: Double) {
        self.maxY = Float(maxY)
        base = GainTable.minY.bitPattern >> GainTable.shift
        let top = Float(maxY).bitPattern >> GainTable.shift
        let white = ToneCurve.referenceWhite
        let base = self.base
        gains = (base...(top + 1)).map { i in
            let y = Double(Float(bitPattern: i << GainTable.shift))
            return Float(curve.map(y * white) / white / y)
        }
    }

    package func gain(_ y: Float) -> Float {
        let bits = min(max(y, GainTable.minY), maxY).bitPattern
        let i = Int((bits >> GainTable.shift) - base)
        let f = Float(bitPattern: (bits & 0xFFFF) << 7 | 0x3F80_0000) - 1
        return gains[i] + (gains[i + 1] - gains[i]) * f
    }
}

/// Tone mapping and gamut mapping of linear BT.709 RGB (relative to reference white), never by clipping
/// channels one by one (which shifts hue). The work is `sdrify_tonemap_row` (CKernels), the loop the colour
/// stage runs on every row; this entry point is for tests and tools:
/// 1. scale RGB by the luminance gain (chromaticity kept);
/// 2. colours outside BT.709 (a negative channel) desaturate toward grey at equal luminance until the lowest
///    channel is 0 (hue kept);
/// 3. colours brighter than SDR white can show (a channel above 1) split the excess: desaturate toward grey
///    until the highest channel is √max, then scale down until it is 1 (chromaticity kept). Pure
///    desaturation would turn every bright saturated colour white; pure scaling would make it dark.
enum LinearToneMap {
    /// Maps equal-length `r`, `g`, `b` to half floats, as the colour stage stores them.
    /// `local`/`weight`: local contrast (LocalContrast), one of each per pixel (`local` in stops).
    package static func apply(
        _ table: GainTable, r: [Float], g: [Float], b: [Float], local: [Float]? = nil, weight: [Float]? = nil
    ) -> (r: [Float16], g: [Float16], b: [Float16]) {
        precondition(r.count == g.count && g.count == b.count)
        precondition(local == nil || (local?.count == r.count && weight?.count == r.count))
        let inverse = local?.map { exp2(-$0) }
        var out = (
            r: [Float16](repeating: 0, count: r.count), g: [Float16](repeating: 0, count: r.count),
            b: [Float16](repeating: 0, count: r.count)
        )
        table.gains.withUnsafeBufferPointer { gains in
            sdrify_tonemap_row(
                r, g, b, &out.r, &out.g, &out.b, Int32(r.count), gains.baseAddress!, table.base,
                GainTable.minY, table.maxY, inverse, inverse, weight, 0, exp2(-LocalContrast.clamp), exp2(LocalContrast.clamp))
        }
        return out
    }

    /// Whether this thread's next row span takes the loop's one-loop way (most colours outside BT.709) rather than
    /// its two passes; both give the same bytes. For the test that holds them to that.
    package static var nextSpanTakesOneLoop: Bool { sdrify_tonemap_next_span_dense() != 0 }

    /// The gamut mapper's table of each hue's most saturated colour (Oklab lightness and chroma), as built in and as
    /// its search finds it: for the test that holds the built-in table to the search.
    package static let cuspHues = Int(SDRIFY_GAMUT_HUES)
    package static func cusp(hue: Int, searched: Bool) -> (lightness: Float, chroma: Float) {
        var lightness: Float = 0, chroma: Float = 0
        (searched ? sdrify_gamut_cusp_search : sdrify_gamut_cusp)(Int32(hue), &lightness, &chroma)
        return (lightness, chroma)
    }

    /// The gamut mapper on a row the way the colour stage runs it (only the pixels `marked`, gathered into batches,
    /// written over `into` in full): for the test that holds the batches to each colour mapped alone.
    package static func gamutMapRow(
        r: [Float], g: [Float], b: [Float], marked: [Bool], into out: inout (r: [Float16], g: [Float16], b: [Float16])
    ) {
        precondition([g.count, b.count, marked.count, out.r.count, out.g.count, out.b.count].allSatisfy { $0 == r.count })
        let share = [Float](repeating: 1, count: r.count), marks = marked.map { UInt8($0 ? 1 : 0) }
        sdrify_gamut_map_rows(r, g, b, share, &out.r, &out.g, &out.b, marks, Int32(r.count))
    }
}
