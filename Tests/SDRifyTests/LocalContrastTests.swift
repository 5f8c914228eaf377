import Foundation
@testable import SDRifyMedia
@testable import SDRifyToneMap
@testable import SDRifyValues
import XCTest

/// Local contrast (LocalContrast): the stops the curve took from a pixel's difference to its neighbourhood are
/// given back by the weight, within the clamp; nothing changes where the weight is 0.
final class LocalContrastTests: XCTestCase {
    func testDetailIsGivenBackByTheWeightWithinTheClamp() {
        let curve = ToneCurve(.auto, sourcePeak: 1000, scene: SceneCurve(white: 1.5, highlights: 0.2, peak: 2.2))
        let table = GainTable(curve: curve, maxY: 10000 / 203)
        // Grey pixels (relative luminance y) around a neighbourhood at 2 stops, with weights 0, 0.4 and 0.4.
        let ys: [Float] = [4 * 1.3, 4 * 1.3, 4 / 1.3, 4 * 8, 4 / 8]
        let weights: [Float] = [0, 0.4, 0.4, 0.4, 0.4]
        let plain = LinearToneMap.apply(table, r: ys, g: ys, b: ys)
        let local = LinearToneMap.apply(table, r: ys, g: ys, b: ys, local: [Float](repeating: 2, count: ys.count), weight: weights)
        for i in ys.indices {
            let d = min(max(log2(Double(ys[i])) - 2, -Double(LocalContrast.clamp)), Double(LocalContrast.clamp))
            let expected = min(Double(plain.g[i]) * exp2(Double(weights[i]) * d), 1)
            XCTAssertEqual(Double(local.g[i]), expected, accuracy: expected * 0.01, "pixel \(i)")
        }
        XCTAssertEqual(local.g[0], plain.g[0], "weight 0 changes nothing")
        XCTAssertGreaterThan(local.g[1], plain.g[1])
        XCTAssertLessThan(local.g[2], plain.g[2])
    }

    /// The weight is strength × (1 − slope): 0 where the curve keeps ratios, more where it squeezes.
    func testWeightsFollowTheCurvesSlope() {
        let sdr = LocalContrast.weights(ToneCurve(.auto, sourcePeak: 1000))
        XCTAssertEqual(sdr.prefix(16 * 8).max() ?? 1, 0, accuracy: 1e-6, "SDR-range light keeps its ratios")
        let curve = ToneCurve(.auto, sourcePeak: 1000, scene: SceneCurve(white: 1.5, highlights: 0.2, peak: 2.2))
        let w = LocalContrast.weights(curve)
        let at = { (stops: Double) in w[Int((stops - LocalContrast.tableLowest) * LocalContrast.tablePerStop)] }
        XCTAssertEqual(Double(at(-6)), 0, accuracy: 1e-3, "shadows: slope 1")
        XCTAssertGreaterThan(Double(at(2)), 0.2, "highlights: squeezed, so detail is given back")
        XCTAssertLessThanOrEqual(Double(w.max() ?? 1), LocalContrast.strength + 1e-6)
    }

    /// A picture: a flat scene at SDR levels, and on its right a bright textured sky (alternate 4×4 squares of
    /// two levels). Through the colour stage the sky's squares keep more of their difference in stops than the
    /// global curve alone leaves them; the SDR-range part is what the curve makes of it.
    func testABrightSkyKeepsItsTextureAndTheSceneUnderItIsTheCurves() throws {
        let (w, h) = (512, 256)
        let color = ColorDescription(primaries: .bt2020, transfer: .smpte2084, matrix: .bt2020nc, range: .limited, chromaLocation: .left)
        let frame = try Frame(width: w, height: h, format: .yuv420p10)
        frame.color = color
        func nits(_ x: Int, _ y: Int) -> Double {
            let square = ((x / 4) + (y / 4)) % 2 == 0
            return x < w * 3 / 4 ? 100 : (square ? 550 : 700)
        }
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p10.planeSize(p, width: w, height: h)
            for y in 0..<ph {
                let row = (frame.data(p) + y * frame.stride(p)).assumingMemoryBound(to: UInt16.self)
                for x in 0..<pw { row[x] = p == 0 ? UInt16((64 + 876 * PQ.encode(nits(x, y))).rounded()) : 512 }
            }
        }
        let mapper = try ToneMapper(
            sourceFormat: .yuv420p10, sourceColor: color, width: w, height: h, outputWidth: w, outputHeight: h,
            curve: ToneCurve(.auto, sourcePeak: 1000), scenes: SceneTracker())
        let out = try mapper.process(frame, format: .yuv420p10)
        func light(_ x: Int, _ y: Int) -> Double {
            let code = Double((out.data(0) + y * out.stride(0)).assumingMemoryBound(to: UInt8.self)[x])
            return SDRDisplay.light((code - 16) / 219)
        }
        // Square centres (x ≡ 1, 2 mod 4) well inside the sky, averaged.
        var bright = 0.0, dark = 0.0, n = 0.0
        for y in stride(from: 16, to: h - 16, by: 4) {
            for x in stride(from: w * 3 / 4 + 16, to: w - 16, by: 4) {
                let a = (light(x + 1, y + 1) + light(x + 2, y + 2)) / 2, b = (light(x + 5, y + 1) + light(x + 6, y + 2)) / 2
                if ((x / 4) + (y / 4)) % 2 == 0 { dark += a; bright += b } else { bright += a; dark += b }
                n += 1
            }
        }
        let kept = log2(bright / dark), source = log2(700.0 / 550)
        let curve = mapper.curve
        let global = log2(curve.map(700) / curve.map(550))
        let slope = curve.slope(atStops: log2(600 / ToneCurve.referenceWhite))
        XCTAssertLessThan(slope, 0.7, "the sky must be squeezed for this to test anything (slope \(slope))")
        XCTAssertGreaterThan(kept, global + 0.5 * (source - global) * LocalContrast.strength, "kept \(kept) stops, the curve alone \(global)")
        XCTAssertLessThan(kept, source + 0.05, "never more contrast than the scene has")
        // The flat scene beside the sky, away from its edge: what the global curve makes of it (no detail to give back).
        let x = 40, y = 41
        let expected = 16 + 219 * SDRDisplay.signal(curve.map(nits(x, y)) / ToneCurve.referenceWhite)
        let code = Double((out.data(0) + y * out.stride(0)).assumingMemoryBound(to: UInt8.self)[x])
        XCTAssertEqual(code, expected, accuracy: 1.5)
    }
}
