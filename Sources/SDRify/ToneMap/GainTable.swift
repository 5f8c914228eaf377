import Foundation

/// The tone curve baked into a table of gains: gain(Y) = curve(Y)/Y for relative luminance Y (1 = 203 cd/m²),
/// indexed by sqrt(Y / maxY) so that the dark end, where the eye is most sensitive, gets the most entries.
/// Linear interpolation between entries; ToneMapTests checks it against the direct curve.
public struct GainTable: Sendable {
    public static let size = 4096
    let gains: [Float]
    let maxY: Float
    let indexScale: Float

    /// `maxY`: the largest relative luminance the source transfer can encode (PQ: 10000/203, HLG: 1000/203).
    public init(curve: ToneCurve, maxY: Double) {
        self.maxY = Float(maxY)
        indexScale = Float(GainTable.size - 1)
        let white = ToneCurve.referenceWhite
        gains = (0..<GainTable.size).map { i in
            let u = Double(i) / Double(GainTable.size - 1)
            let y = max(u * u * maxY, 1e-7)
            return Float(curve.map(y * white) / white / y)
        }
    }

    @inline(__always)
    public func gain(_ y: Float) -> Float {
        let pos = (min(max(y, 0), maxY) / maxY).squareRoot() * indexScale
        let i = min(Int(pos), GainTable.size - 2)
        let f = pos - Float(i)
        return gains.withUnsafeBufferPointer { g in g[i] + (g[i + 1] - g[i]) * f }
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

    public static func apply(_ table: GainTable, r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>,
                             b: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count {
            var (R, G, B) = (r[i], g[i], b[i])
            var y = kr * R + kg * G + kb * B
            if !(y > 0) {  // black, negative or NaN luminance
                r[i] = 0; g[i] = 0; b[i] = 0
                continue
            }
            let k = table.gain(y)
            R *= k; G *= k; B *= k; y *= k
            let lo = min(R, G, B)
            if lo < 0 {  // outside BT.709: toward grey at equal luminance until the lowest channel is 0
                let t = y / (y - lo)
                R = y + t * (R - y); G = y + t * (G - y); B = y + t * (B - y)
            }
            let hi = max(R, G, B)
            if hi > 1 {
                let m = hi.squareRoot()
                if y < m {
                    let t = (m - y) / (hi - y)
                    R = y + t * (R - y); G = y + t * (G - y); B = y + t * (B - y)
                    let s = 1 / m
                    R *= s; G *= s; B *= s
                } else {
                    let s = 1 / hi
                    R *= s; G *= s; B *= s
                }
            }
            r[i] = max(R, 0); g[i] = max(G, 0); b[i] = max(B, 0)
        }
    }
}
