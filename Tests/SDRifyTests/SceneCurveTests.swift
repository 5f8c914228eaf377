import SDRify
import XCTest

/// The scene-adaptive default: what it does with SDR-range light, with a brightly exposed phone scene, with
/// sparse highlights and flat patches, and over time (constant on a static scene, at once on a cut).
final class SceneCurveTests: XCTestCase {
    /// A histogram on SceneStatistics' 1/8-stop grid from (level in stops, share) pairs, each spread over
    /// `width` stops.
    func scene(_ parts: [(Double, Double)], width: Double = 1) -> SceneStatistics { scene(parts.map { ($0.0, $0.1, width) }) }

    func scene(_ parts: [(Double, Double, Double)]) -> SceneStatistics {
        let lowest = -20.0
        var counts = [Double](repeating: 0, count: 26 * SceneStatistics.binsPerStop + 1)
        for (level, share, width) in parts {
            let first = Int(((level - width / 2 - lowest) * 8).rounded()), n = max(1, Int(width * 8))
            for i in first..<(first + n) { counts[i] += share * 10_000 / Double(n) }
        }
        return SceneStatistics(lowest: lowest, counts: counts)
    }

    func curve(_ stats: SceneStatistics) -> SceneCurve { SceneTracker().next(stats).curve }

    func testSDRRangeLightComesBackUnchanged() {
        // An SDR picture lifted at 203 cd/m²: everything at or below reference white (0 stops).
        let c = curve(scene([(-5, 0.3), (-3, 0.3), (-1.5, 0.3), (-0.5, 0.1)]))
        XCTAssertEqual(c.exposure, 0)
        for x in [0.001, 0.05, 0.2, 0.5, 0.8, 1.0] { XCTAssertEqual(c.map(x), x, accuracy: 1e-9) }
    }

    func testBrightlyExposedSceneIsLoweredAndKeepsHighlightTexture() {
        // A phone's HLG sky scene: buildings 1-3 stops under reference white, 40 % sky 1-2.3 stops over it.
        let stats = scene([(-3, 0.2), (-1.5, 0.2), (-0.3, 0.2), (1.0, 0.2), (1.8, 0.2)])
        let c = curve(stats)
        XCTAssertLessThan(c.exposure, -0.4, "lowered as a whole")
        let peak = stats.percentile(0.999)
        XCTAssertLessThan(c.map(exp2(peak)), 0.85, "the peak lands with a margin under SDR white")
        XCTAssertGreaterThanOrEqual(c.slope(atStops: peak), 0.45, "texture kept at the peak")
        XCTAssertEqual(c.slope(atStops: 1.0), c.slope(atStops: peak), accuracy: 1e-3, "one contrast through the sky")
        // Below the knee, relative tones are exactly kept: a stop apart stays a stop apart.
        XCTAssertEqual(log2(c.map(exp2(-3.0)) / c.map(exp2(-4.0))), 1, accuracy: 1e-9)
    }

    func testSparseHighlightsKeepTheSDRRangeMajority() {
        // Graded HDR: a dark scene with a few lamps at 2000 cd/m².
        let c = curve(scene([(-6, 0.5, 3), (-3, 0.45, 3), (3.3, 0.05, 0.5)]))
        XCTAssertEqual(c.exposure, 0)
        XCTAssertEqual(c.map(0.3), 0.3, accuracy: 1e-9, "mid-tones untouched")
        XCTAssertLessThanOrEqual(c.map(exp2(3.3)), 1)
    }

    func testFlatBrightPatchesDoNotPassForABrightScene() {
        // 25 % of the picture is one flat graphic at 600 cd/m² (1.56 stops): piled on one level, it counts as one bin.
        // The rest is a photograph spread over six stops under reference white.
        let c = curve(scene([(-3, 0.75, 6), (1.56, 0.25, 0.125)]))
        XCTAssertEqual(c.exposure, 0)
    }

    func testMonotonicAndBounded() {
        for stats in [scene([(-3, 0.5), (2, 0.5)]), scene([(-8, 0.9), (4, 0.1)]), scene([(-1, 1)])] {
            let c = curve(stats)
            var last = 0.0
            for i in 1...400 {
                let y = c.map(exp2(Double(i) / 20 - 12))
                XCTAssertGreaterThanOrEqual(y, last)
                XCTAssertLessThanOrEqual(y, 1)
                last = y
            }
        }
    }

    func testStaticSceneKeepsOneCurveAndACutAdaptsAtOnce() {
        let tracker = SceneTracker()
        let bright = scene([(-3, 0.2), (-1.5, 0.2), (-0.3, 0.2), (1.0, 0.2), (1.8, 0.2)])
        var generator = SystemRandomNumberGenerator()
        let first = tracker.next(bright).curve
        for _ in 0..<60 {
            // Sensor noise: every bin jitters by up to ±2 %.
            let noisy = SceneStatistics(lowest: bright.lowest, counts: bright.counts.map { $0 * Double.random(in: 0.98...1.02, using: &generator) })
            let next = tracker.next(noisy)
            XCTAssertFalse(next.changed, "a static scene keeps its curve")
            XCTAssertEqual(next.curve, first)
        }
        let dark = scene([(-7, 0.5), (-5, 0.4), (-2, 0.1)])
        let cut = tracker.next(dark)
        XCTAssertTrue(cut.changed)
        XCTAssertEqual(cut.curve, curve(dark), "the first picture after a cut gets the new scene's own curve")
        XCTAssertEqual(tracker.scenes, 2)
    }

    func testDynamicMetadataMarksShotsWhenItAgreesWithThePictures() {
        let bright = scene([(-3, 0.2), (-1.5, 0.2), (-0.3, 0.2), (1.0, 0.2), (1.8, 0.2)])
        let peak = 203 * exp2(bright.percentile(0.999))
        let shotA = DynamicHDRMetadata(source: .dolbyVision, peak: peak, average: 100)
        let shotB = DynamicHDRMetadata(source: .dolbyVision, peak: peak * 1.1, average: 90)
        // A flash within a shot (everything up by one to three stops): unchanged metadata holds the scene.
        let flash = scene([(-1, 0.2), (0.5, 0.2), (1.7, 0.2), (2.5, 0.4)])
        let tracker = SceneTracker()
        _ = tracker.next(bright, metadata: shotA)
        XCTAssertGreaterThan(flash.distance(to: bright), 0.3, "without metadata this would be a cut")
        _ = tracker.next(flash, metadata: shotA)
        XCTAssertEqual(tracker.scenes, 1)
        // A new shot whose light is only a little different: the metadata's change makes it a cut.
        let similar = scene([(-3, 0.05), (-1.5, 0.35), (-0.3, 0.2), (1.0, 0.2), (1.8, 0.2)])
        XCTAssertLessThan(similar.distance(to: bright), 0.3)
        XCTAssertGreaterThan(similar.distance(to: bright), 0.1)
        _ = tracker.next(similar, metadata: shotB)
        XCTAssertEqual(tracker.scenes, 2)
        guard case .object(let report) = tracker.report else { return XCTFail("report is an object") }
        XCTAssertEqual(report.first { $0.0 == "statistics" }?.1, .string("dovi"))

        // Metadata whose peak is 4 stops off describes another picture: ignored, and said so.
        let liar = SceneTracker()
        _ = liar.next(bright, metadata: DynamicHDRMetadata(source: .hdr10Plus, peak: peak / 16, average: 5))
        guard case .object(let said) = liar.report else { return XCTFail("report is an object") }
        XCTAssertEqual(said.first { $0.0 == "statistics" }?.1, .string("measured"))
        XCTAssertNotEqual(said.first { $0.0 == "metadata_ignored" }?.1, .null)
    }
}
