import Foundation

/// The tone curve baked into a table of gains: gain(Y) = curve(Y)/Y for relative luminance Y (1 = 203 cd/m²).
/// Indexed by the float's own bit pattern, so the steps are logarithmic (128 per octave, from 2⁻²⁰ up to the
/// largest luminance the transfer encodes) and the lookup needs no square root or float→int conversion:
/// the top bits are the index, the next 16 the interpolation fraction. ToneMapTests checks it against the
/// direct curve.
public struct GainTable: Sendable {
    static let shift: UInt32 = 16                       // keep 7 mantissa bits: 128 steps per octave
    static let minY: Float = 1.0 / 1_048_576            // 2⁻²⁰; darker is black to 8 bits anyway
    let gains: [Float]
    let maxY: Float
    let base: UInt32                                     // index of minY

    /// `maxY`: the largest relative luminance the source transfer can encode (PQ: 10000/203, HLG: 1000/203).
    public init(curve: ToneCurve, maxY: Double) {
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

    public func gain(_ y: Float) -> Float {
        let bits = min(max(y, GainTable.minY), maxY).bitPattern
        let i = Int((bits >> GainTable.shift) - base)
        let f = Float(bitPattern: (bits & 0xFFFF) << 7 | 0x3F80_0000) - 1
        return gains[i] + (gains[i + 1] - gains[i]) * f
    }
}

/// Tone mapping and gamut mapping of linear BT.709 RGB (relative to reference white), in place, never by
/// clipping channels one by one (which shifts hue):
/// 1. scale RGB by the luminance gain (chromaticity kept);
/// 2. colours outside BT.709 (a negative channel) desaturate toward grey at equal luminance until the lowest
///    channel is 0 (hue kept);
/// 3. colours brighter than SDR white can show (a channel above 1) split the excess: desaturate toward grey
///    until the highest channel is √max, then scale down until it is 1 (chromaticity kept). Pure
///    desaturation would turn every bright saturated colour white; pure scaling would make it dark.
public enum LinearToneMap {
    static let kr: Float = 0.2126, kg: Float = 0.7152, kb: Float = 0.0722
    typealias V = SIMD4<Float>  // SSE width; wider types lower to slower generic code on the baseline target

    public static func apply(_ table: GainTable, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>,
                             b: UnsafeMutablePointer<Float>, count: Int) {
        table.gains.withUnsafeBufferPointer { gains in
            let lut = gains.baseAddress!
            var i = 0
            while i + 4 <= count {
                var R = load(r + i), G = load(g + i), B = load(b + i)
                map(&R, &G, &B, table: table, lut: lut)
                store(R, r + i); store(G, g + i); store(B, b + i)
                i += 4
            }
            if i < count {  // the tail goes through the same lanes, padded
                var R = V(repeating: 0), G = V(repeating: 0), B = V(repeating: 0)
                for j in 0..<(count - i) { R[j] = r[i + j]; G[j] = g[i + j]; B[j] = b[i + j] }
                map(&R, &G, &B, table: table, lut: lut)
                for j in 0..<(count - i) { r[i + j] = R[j]; g[i + j] = G[j]; b[i + j] = B[j] }
            }
        }
    }

    @inline(__always) static func vmin(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .< a) }
    @inline(__always) static func vmax(_ a: V, _ b: V) -> V { a.replacing(with: b, where: b .> a) }
    @inline(__always) static func load(_ p: UnsafeMutablePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }
    @inline(__always) static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }

    @inline(__always)
    static func map(_ R: inout V, _ G: inout V, _ B: inout V, table: GainTable, lut: UnsafePointer<Float>) {
        let zero = V(repeating: 0), one = V(repeating: 1)
        let y0 = kr * R + kg * G + kb * B
        let alive = y0 .> zero  // false for black, negative and NaN luminance
        let y = vmin(vmax(y0, V(repeating: GainTable.minY)), V(repeating: table.maxY))

        // Gain: index and fraction straight from the float bits (see GainTable).
        let bits = unsafeBitCast(y, to: SIMD4<UInt32>.self)
        let index = (bits &>> GainTable.shift) &- table.base
        let f = unsafeBitCast(((bits & 0xFFFF) &<< 7) | 0x3F80_0000, to: V.self) - one
        let i0 = Int(index.x), i1 = Int(index.y), i2 = Int(index.z), i3 = Int(index.w)
        let g0 = V(lut[i0], lut[i1], lut[i2], lut[i3])
        let g1 = V(lut[i0 + 1], lut[i1 + 1], lut[i2 + 1], lut[i3 + 1])
        let k = (g0 + (g1 - g0) * f).replacing(with: zero, where: .!alive)
        R *= k; G *= k; B *= k
        let yk = y * k

        // Outside BT.709: toward grey at equal luminance until the lowest channel is 0.
        let lo = vmin(R, vmin(G, B))
        let outside = lo .< zero
        if any(outside) {
            let t = (yk / (yk - lo)).replacing(with: one, where: .!outside)
            R = yk + t * (R - yk); G = yk + t * (G - yk); B = yk + t * (B - yk)
        }
        // Beyond SDR white: desaturate toward grey until the highest channel is √max, then scale to 1.
        let hi = vmax(R, vmax(G, B))
        let over = hi .> one
        if any(over) {
            let m = hi.squareRoot()
            let desaturate = over .& (yk .< m)
            let t = ((m - yk) / (hi - yk)).replacing(with: one, where: .!desaturate)
            R = yk + t * (R - yk); G = yk + t * (G - yk); B = yk + t * (B - yk)
            let s = (one / m).replacing(with: one / hi, where: .!desaturate).replacing(with: one, where: .!over)
            R *= s; G *= s; B *= s
        }
        R = vmax(R, zero).replacing(with: zero, where: .!alive)  // NaN × 0 would stay NaN
        G = vmax(G, zero).replacing(with: zero, where: .!alive)
        B = vmax(B, zero).replacing(with: zero, where: .!alive)
    }
}
