@testable import SDRifyToneMap
@testable import SDRifyValues
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

    func testBrightlyExposedSceneIsLoweredAndKeepsItsRatios() {
        // A chart in bright light on a phone's HLG: surfaces spread from 4.5 stops under to 1.56 stops over
        // reference white (white at 600 cd/m², middle grey near 120).
        let white = 1.56
        let stats = scene([(-3, 0.3, 3), (-0.5, 0.4, 2), (1.0, 0.3, 1.12)])
        XCTAssertEqual(stats.diffuseWhite, white, accuracy: 0.15)
        let c = curve(stats)
        XCTAssertEqual(c.exposure, -(white + SceneCurve.whiteLanding), accuracy: 0.15, "lowered until its white lands under SDR white")
        // Every ratio under the white is kept: a stop apart stays a stop apart, the white included.
        for x in [-4.0, -2.0, -0.5, 1.0, white - 0.1] {
            XCTAssertEqual(log2(c.map(exp2(x)) / c.map(exp2(x - 1))), 1, accuracy: 0.02, "at \(x) stops")
        }
        XCTAssertLessThan(c.map(exp2(white)), 0.8, "the white keeps a margin under full code")
    }

    func testABrightSkyOverADarkerSceneKeepsItsTexture() {
        // Buildings 1-3 stops under reference white, a sky 1-2.3 stops over it: one continuous spread of light, the
        // sky 40 % of the picture and about 3.4 stops over its body (the level 35 % of it lies under), as far
        // as a part lit apart begins (issue 55). It is lowered less than its white alone would ask, and the sky is
        // compressed above the buildings with a gradation of its own, its peak under SDR white.
        let stats = scene([(-3, 0.2), (-1.5, 0.2), (-0.3, 0.2), (1.0, 0.2), (1.8, 0.2)])
        let c = curve(stats)
        XCTAssertLessThan(c.exposure, -1, "lowered")
        XCTAssertGreaterThan(c.exposure, -(stats.diffuseWhite + SceneCurve.whiteLanding) + 0.25, "less than the sky's white asks")
        let peak = stats.percentile(0.999)
        XCTAssertLessThan(c.map(exp2(peak)), 0.9, "the peak lands with a margin under SDR white")
        for x in [-4.0, -3.0, -2.0] {
            XCTAssertEqual(log2(c.map(exp2(x)) / c.map(exp2(x - 1))), 1, accuracy: 0.02, "the buildings keep their ratios at \(x) stops")
        }
        for x in [1.5, 2.0] { XCTAssertGreaterThan(c.slope(atStops: x), 0.3, "the sky keeps a gradation at \(x) stops") }
    }

    func testAPartLitApartFromTheBodyDoesNotLowerIt() {
        // Graded HDR or a phone's photo of a room with a sunlit window (issue 55): the body at SDR levels (its white
        // at reference white), a third of the picture up to 3 stops brighter. The white found is the window's; the
        // exposure follows the body's, and the body keeps its tones.
        let stats = scene([(-5, 0.2, 2), (-3, 0.25, 2), (-1, 0.25, 2), (1.5, 0.3, 3)])
        XCTAssertGreaterThan(stats.diffuseWhite, 1.5, "the window holds the brightest near-neutral light")
        let c = curve(stats)
        XCTAssertEqual(c.exposure, 0, "not lowered")
        for x in [0.02, 0.1, 0.3] { XCTAssertEqual(c.map(x), x, accuracy: 1e-9, "the body untouched at \(x)") }
        XCTAssertLessThanOrEqual(c.map(exp2(3)), 1)
        XCTAssertGreaterThan(c.map(exp2(2.9)), c.map(exp2(1.0)), "the window keeps its gradation")
    }

    func testSunlitPiecesThinlySpreadGetOneWhiteWhicheverBinsTouchTheThreshold() {
        // A crowd in shade with sunlit roofs, signs and faces: the body up to 0.5 stop over reference white, then
        // 6 % of the picture spread thinly (0.375 % a bin) from 0.5 to 2.5 stops, in many small pieces (a tenth
        // of it inside its region). Measured twice, as the PQ and HLG versions of one scene measure it: in one,
        // a few bins of the tail hold a little more than `emptyBin`.
        let body = scene([(-3, 0.4, 3), (-0.75, 0.54, 2.5)])
        let start = Int((0.5 - body.lowest) * 8)
        func with(_ tail: [Double], inside: Double) -> SceneStatistics {
            var counts = body.counts, interior = body.counts
            for (k, c) in tail.enumerated() { counts[start + k] += c; interior[start + k] += c * inside }
            return SceneStatistics(lowest: body.lowest, counts: counts, interior: interior)
        }
        var tail = [Double](repeating: 0.00375 * 10_000, count: 16)
        let thin = with(tail, inside: 0.1)
        for k in [2, 7, 13] { tail[k] = 0.0045 * 10_000 }
        let touched = with(tail, inside: 0.1)
        XCTAssertEqual(thin.diffuseWhite, touched.diffuseWhite, accuracy: 0.1, "one white, not one per threshold side")
        // It leaves `tailShare` of the picture above it: inside the tail, not at its top nor under it.
        XCTAssertEqual(thin.fraction(above: thin.diffuseWhite), SceneStatistics.tailShare, accuracy: 0.004)
        XCTAssertGreaterThan(thin.diffuseWhite, 1, "the sunlit pieces are not taken for a glow")
        XCTAssertLessThan(thin.diffuseWhite, 2, "nor is their top taken for the white")
        // The same light in one region (the sun behind thin cloud and its glow) is set apart: the white is the
        // body's.
        let glow = with([Double](repeating: 0.00375 * 10_000, count: 16), inside: 0.7)
        XCTAssertLessThan(glow.diffuseWhite, 0.5)
        // A picture piled near its top (a chart's white patch, a lit wall) keeps the white at that pile.
        let chart = scene([(-3, 0.5, 3), (-0.5, 0.45, 2), (1.0, 0.05, 0.25)])
        XCTAssertGreaterThan(chart.diffuseWhite, 0.85)
    }

    func testLightsInADarkSceneAreNotTakenForItsWhite() {
        // A stage or a night street (graded film): most of the picture 2-8 stops under reference white, 15 % of
        // bright lights and signs spread from 0.75 to 3.75 stops over it, joined to the rest by their glow.
        let stats = scene([(-7, 0.3, 2), (-5, 0.3, 2), (-3, 0.15, 2), (-1, 0.1, 2), (2.25, 0.15, 3)])
        XCTAssertGreaterThan(stats.diffuseWhite, 2.5, "the lights are the brightest large spread of light")
        let c = curve(stats)
        // Its white is bounded 4 stops above its key (−3.8 stops): at most a little above reference white, where
        // it would be lowered by about two stops if the lights were taken for surfaces.
        XCTAssertGreaterThan(c.exposure, -0.5, "hardly lowered: the lights are not surfaces")
        XCTAssertEqual(log2(c.map(exp2(-4.0)) / c.map(exp2(-6.0))), 2, accuracy: 1e-9, "the dark scene keeps its contrast")
        // The lights are a part apart from the body (issue 55): compressed above it, as graded content's
        // brighter part is, with a slope that still tells them apart (local contrast gives back more).
        XCTAssertGreaterThanOrEqual(c.slope(atStops: 2.5), 0.1, "the lights keep some texture")
        XCTAssertLessThan(c.map(exp2(3.5)), c.map(exp2(3.75)), "the lights keep their order up to their peak")
    }

    func testSparseHighlightsKeepTheSDRRangeMajority() {
        // Graded HDR: a dark scene with a few lamps at 2000 cd/m², apart from the rest.
        let c = curve(scene([(-6, 0.5, 3), (-3, 0.45, 3), (3.3, 0.05, 0.5)]))
        XCTAssertEqual(c.exposure, 0)
        XCTAssertEqual(c.map(0.3), 0.3, accuracy: 1e-9, "mid-tones untouched")
        XCTAssertLessThanOrEqual(c.map(exp2(3.3)), 1)
    }

    func testSpecularsAndALampAboveReferenceWhiteLeaveTheSurfacesTheirRatios() {
        // BT.2408 placement (white at reference white) with glints (0.05 %) and a lamp (0.4 %) at 4000 cd/m²,
        // joined to the surfaces by their glow: the surfaces keep their levels and ratios up to their white.
        let stats = scene([(-4, 0.4, 3), (-1.2, 0.5, 2.2), (1.5, 0.0045, 3), (4.3, 0.0045, 0.25)])
        XCTAssertEqual(stats.diffuseWhite, -0.1, accuracy: 0.2)
        let c = curve(stats)
        XCTAssertEqual(c.exposure, 0)
        for x in [-3.0, -1.5, -0.5] { XCTAssertEqual(c.map(exp2(x)), exp2(x), accuracy: 1e-9) }
        // A chart's white patch (0.89 of white) sits in the soft bend that makes room for the lamp: it keeps its
        // place over the light grey within a tenth of a stop (about 2 L*).
        XCTAssertEqual(log2(c.map(exp2(-0.17)) / c.map(exp2(-1.0))), 0.83, accuracy: 0.1, "the white patch stays where it was over the greys")
    }

    func testFlatBrightPatchesDoNotPassForABrightScene() {
        // 25 % of the picture is one flat graphic at 600 cd/m² (1.56 stops), 1.5 stops above the photograph under
        // it, which is spread over six stops under reference white: the photograph's white is the scene's.
        let c = curve(scene([(-3, 0.75, 6), (1.56, 0.25, 0.125)]))
        XCTAssertEqual(c.exposure, 0)
        XCTAssertEqual(c.map(exp2(-2.0)), exp2(-2.0), accuracy: 1e-9)
    }

    func testDiffuseWhiteIgnoresBlackBordersInTheKey() {
        // The same bright scene with 30 % black letterbox bars: the key of its lit samples, and so its white,
        // stay the same.
        let lit = scene([(-3, 0.3, 3), (-0.5, 0.4, 2), (1.0, 0.3, 1.12)])
        var bars = lit.counts.map { $0 * 0.7 }
        bars[0] += lit.total * 0.3
        let boxed = SceneStatistics(lowest: lit.lowest, counts: bars)
        XCTAssertEqual(boxed.litKey, lit.litKey, accuracy: 1e-9)
        XCTAssertEqual(curve(boxed).exposure, curve(lit).exposure, accuracy: 0.07)
    }

    func testMonotonicAndBounded() {
        let scenes = [
            scene([(-3, 0.5), (2, 0.5)]), scene([(-8, 0.9), (4, 0.1)]), scene([(-1, 1)]), scene([(-3, 0.3, 3), (-0.5, 0.4, 2), (1.0, 0.3, 1.12)]),
            scene([(-7, 0.3, 2), (-5, 0.3, 2), (-3, 0.15, 2), (-1, 0.1, 2), (2.25, 0.15, 3)]), scene([(0.5, 0.5, 1), (3, 0.5, 1)])
        ]
        for stats in scenes {
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
        let byScene = tracker.report["by_scene"]?.items ?? []
        XCTAssertEqual(byScene.count, 2)
        XCTAssertEqual(byScene.map { $0["pictures"]?.number }, [2, 1])
        XCTAssertNotNil(byScene.first?["white_cd_m2"]?.number)

        // The shot's peak, taken over every pixel, bounds its white: metadata whose peak agrees with the pictures
        // (1.1 stops under the sampled one) but sits under their white lowers the scene less.
        let bounded = SceneTracker()
        let lowPeak = DynamicHDRMetadata(source: .dolbyVision, peak: 203 * exp2(1.2), average: 100)
        XCTAssertEqual(bounded.next(bright, metadata: lowPeak).curve.exposure, -(1.2 + SceneCurve.whiteLanding), accuracy: 0.05)
        XCTAssertLessThan(curve(bright).exposure, -(1.2 + SceneCurve.whiteLanding) - 0.1)

        // Metadata whose peak is 4 stops off describes another picture: ignored, and said so.
        let liar = SceneTracker()
        _ = liar.next(bright, metadata: DynamicHDRMetadata(source: .hdr10Plus, peak: peak / 16, average: 5))
        guard case .object(let said) = liar.report else { return XCTFail("report is an object") }
        XCTAssertEqual(said.first { $0.0 == "statistics" }?.1, .string("measured"))
        XCTAssertNotEqual(said.first { $0.0 == "metadata_ignored" }?.1, .null)
    }
}
