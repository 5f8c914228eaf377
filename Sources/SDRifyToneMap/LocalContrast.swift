import CKernels
import Foundation
import SDRifyValues

/// Local contrast for the scene-adaptive curve (libplacebo's "contrast recovery" is the model): a global curve that
/// squeezes a scene's highlights into the top of SDR flattens the texture there (clouds round the sun, a lit
/// wall) to a bright halo. Each pixel's stops above or below its neighbourhood's light (the scene meter's samples,
/// smoothed) get back `strength` of what the curve took from them at that level (1 − its slope), at most
/// `clamp` stops of difference, and the neighbourhood is edge-preserving (a guided filter), so that a strong edge
/// (the sun's disc against the sky) does not halo. Where the curve keeps every ratio (slope 1: SDR-range light,
/// mid-tones) nothing changes. Detail lifts no channel past white and does not darken near it (tonemap.c): lights
/// reach white by the curve (SceneCurve).
struct LocalContrast {
    /// The share of the lost contrast given back.
    static let strength = 0.7
    /// The most a pixel's light counts as detail (stops from its neighbourhood).
    static let clamp: Float = 0.5
    /// The neighbourhood: this many samples each way.
    static let radius: Int32 = 4
    /// Differences in light (stops) that count as an edge to keep, not texture to give back (the guided filter's ε).
    static let edge: Float = 0.3
    /// The weight table: 8 entries a stop from 2⁻¹⁶ to 2⁸ of reference white.
    static let tableLowest = -16.0, tablePerStop = 8.0, tableSize = 24 * 8 + 1

    /// The weight at each level (stops): `strength` × (1 − the curve's slope there); under `negligible` it is 0,
    /// so that where the curve keeps ratios the colour pass takes its plain loop.
    static func weights(_ curve: ToneCurve) -> [Float] {
        (0..<tableSize).map { k in
            let x = tableLowest + Double(k) / tablePerStop
            let w = strength * (1 - min(max(curve.slope(atStops: x), 0), 1))
            return w < negligible ? 0 : Float(w)
        }
    }
    /// A weight that moves a pixel by at most 0.005 stop.
    static let negligible = 0.01

    /// Where output columns lie on the meter's grid: column c's pixels start at `starts[c]` (the last entry ends
    /// the row) and lie `frac` of the way to column c + 1 (clamped at the grid's edges), for a picture whose
    /// `region` (offset, length in source pixels) becomes `output` pixels.
    static func gridPlaces(output: Int, offset: Double, length: Double, step: Int, cells: Int) -> (starts: [Int32], frac: [Float]) {
        let (origin, per) = gridLine(output: output, offset: offset, length: length, step: step)
        var starts = [Int32](repeating: Int32(output), count: cells + 1), frac = [Float]()
        starts[0] = 0
        var column = 0
        for x in 0..<output {
            let g = min(max(origin + Double(x) * per, 0), Double(cells - 1))
            let c = min(Int(g.rounded(.down)), cells - 1)
            while column < c { column += 1; starts[column] = Int32(x) }
            frac.append(Float(g - Double(c)))
        }
        return (starts, frac)
    }

    /// Grid position of output position i: origin + i·per.
    static func gridLine(output: Int, offset: Double, length: Double, step: Int) -> (origin: Double, per: Double) {
        let scale = length / Double(output)
        return ((offset + 0.5 * scale - 0.5 - Double(step / 2)) / Double(step), scale / Double(step))
    }
}

extension ToneCurve {
    /// Stops out per stop in at `x` stops of input light (1 = reference white): the scene curve's, after the user's
    /// exposure, for `auto`; the fixed operators get no local contrast (1).
    func slope(atStops x: Double) -> Double {
        op == .auto ? scene.slope(atStops: x + exposure) : 1
    }
}
