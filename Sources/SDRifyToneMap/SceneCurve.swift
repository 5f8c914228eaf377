import Foundation
import SDRifyValues

/// The scene-adaptive curve (`--tonemap auto`), worked out in stops relative to HDR reference white (log2 of
/// L / 203 cd/m²) from the measures of a scene (SceneTracker): its diffuse `white` (the brightest level its
/// near-neutral surfaces reach, SceneStatistics.diffuseWhite, not the lamps, glints or graphics above them); its
/// `highlights`, the spread-weighted fraction of light above that white (or above reference white, whichever is
/// higher); its `peak`, the level 0.1 % of its samples exceed; and by how much its white was `bounded`.
/// 1. Exposure: a scene whose white sits above reference white (phones expose HLG so that diffuse white lies
///    near 600 cd/m², brighter still in bright light) is lowered as a whole until its white lands `whiteLanding`
///    stops under SDR white (the margin keeps tinted whites, whose strongest channel lies above their luminance,
///    off full code); whites up to `landingRamp` above reference white ease into that. A uniform scale keeps
///    every ratio between the scene's surfaces: greys stay apart and colours keep their saturation.
/// 2. Shoulder: above `knee` every stop of light becomes `slope` stops (one contrast for the whole highlight
///    range), reached from slope 1 through a soft bend `bend` stops wide on each side, and the scene's peak lands
///    on `top`, just under SDR white. Where highlights are few (speculars, lamps), the knee sits just under the
///    scene's white (`whiteMargin`), never under `sparseKnee`: the surfaces keep their ratios and what is
///    brighter is squeezed above them, with some `gradation` where it is more than glints. Where much of the
///    picture is brighter than its white (a bright sky over a darker scene), the knee goes down to `lowestKnee`,
///    spreading the compression over as many stops as it can, so the brightest regions keep their texture and
///    their greys stay apart.
/// Light at SDR levels (graded HDR, SDR in HDR) gets neither: it comes back as it went in.
package struct SceneCurve: Equatable, Sendable {
    /// Stops under SDR white where a lowered scene's white lands (0.73 of SDR white's luminance, code 208 of 235):
    /// room for its tinted whites and for the shoulder of what is brighter, so that the brightest pixels of a
    /// lowered phone scene stay off full code as they did when the scene was compressed instead.
    static let whiteLanding = 0.45
    /// Whites this many stops above reference white or more land on `whiteLanding`; between, the lowering eases
    /// in from nothing, so BT.2408-placed content (white at reference white) is left as it is.
    static let landingRamp = 0.5
    /// How far above its measured peak a lowered scene's shoulder reaches (stops).
    static let excursion = 0.5
    /// The most a scene is lowered, in stops: enough for a PQ white near 2000 cd/m² (HLG's whites stop at 1000);
    /// the white's bound by the key (SceneTracker.whiteOverKey) is what keeps dark scenes from being lowered.
    static let maxLowering = 3.5
    /// Half the width of the bend from slope 1 to the shoulder's slope (stops).
    static let bend = 0.25
    /// How far under the scene's white the knee sits when highlights are few (stops).
    static let whiteMargin = 0.1
    /// The slope highlights keep where they are few but more than glints: none up to the first highlight
    /// fraction of `gradationRange`, all of `gradation` from the second.
    static let gradation = 0.15
    static let gradationRange = 0.025...0.05
    /// The lowest knee where highlights are few (stops; 120 cd/m²).
    static let sparseKnee = -0.75
    /// The lowest knee (stops; 36 cd/m²): below it tones are never compressed.
    static let lowestKnee = -2.5
    /// The most that many highlights lower the knee under the sparse one (stops): room for a bright sky's
    /// gradations without compressing the surfaces under it (graded content keeps its SDR-range tones whatever
    /// share of the frame is brighter).
    static let kneeDrop = 0.25
    /// Highlight fractions between which the knee moves from the sparse one toward `lowestKnee`.
    static let highlightRange = 0.05...0.25
    /// Where a peak well above SDR white lands (stops; 0.80 of SDR white's luminance), so that bright regions,
    /// whose strongest channel lies above their luminance when they are tinted, keep a margin below full code.
    static let peakLanding = -0.32
    /// A peak this many stops above the scene's white begins to count as a light (see `init`): sunlit surfaces
    /// in a scene lit by the sun reach about a stop over its white, and the makers let their brightest glints
    /// touch white.
    static let lightAbove = 0.75

    package let exposure: Double  // stops added to every level (≤ 0)
    let knee: Double  // stops, after exposure
    let peak: Double  // the scene's peak, stops after exposure
    let top: Double  // where the peak lands (≤ 0)
    let slope: Double  // stops out per stop in above the bend

    /// A scene whose light stays at SDR levels: no exposure change, no shoulder.
    static let sdrRange = SceneCurve(white: 0, highlights: 0, peak: 0)

    /// `bounded`: how many stops brighter the scene's surfaces measured than the white it was given (a dark scene
    /// whose lights SceneTracker did not take for surfaces): the sparse knee goes as much lower, since such a
    /// white is a bound, not a surface, and its surfaces lie somewhere under it.
    /// `apart`: how far (0–1) the light above `white` is a part lit apart from the picture's body (SceneTracker):
    /// its share does not lower the knee into the body, and its peak lands on SDR white.
    package init(white: Double, highlights: Double, peak measuredPeak: Double, bounded: Double = 0, apart: Double = 0) {
        let ramp = SceneCurve.landingRamp, landing = SceneCurve.whiteLanding
        let lowering = white <= 0 ? 0 : white < ramp ? white * (1 + landing / ramp) : white + landing
        exposure = lowering > 0 ? -min(lowering, SceneCurve.maxLowering) : 0  // not −0, which reports print as "-0.00"
        let w = white + exposure
        let h = max(measuredPeak, white) + exposure
        peak = h
        // Many highlights: a peak clearly above SDR white lands on `peakLanding`, and the knee goes low. Few
        // (speculars, lamps): the peak lands half as far below SDR white (90 %), and the knee stays just under
        // the white. Peaks near SDR white land on it either way (SDR-range content is left as it is).
        let r = SceneCurve.highlightRange
        let t = min(max((highlights - r.lowerBound) / (r.upperBound - r.lowerBound), 0), 1)
        // A lowered scene's brightest surfaces are near its white, often tinted, and pictures of it go above its
        // measured peak (0.1 % of each exceeds it, more as the light changes): its shoulder is built for a peak
        // `excursion` higher, and lands it with the whole margin.
        let lowered = min(-exposure / SceneCurve.landingRamp, 1)
        let reach = h + SceneCurve.excursion * lowered
        // A peak far above the scene's white, with few highlights, is a light (the sun, a lamp, speculars), not a
        // bright surface: it lands on SDR white, as lights do in the makers' own SDR. A bright sky or wall (near
        // the white, or much of the picture) keeps the margin, and its texture. Between `lightAbove` and one stop
        // more above the white the margin fades out, and as the highlights grow it comes back.
        let light = min(max(measuredPeak - white - SceneCurve.lightAbove, 0), 1) * (1 - t)
        top = SceneCurve.peakLanding * max(t, 0.5 + 0.5 * lowered) * min(max(reach / 0.5, 0), 1) * (1 - light) * (1 - apart)
        // The slope is (V − b)/(U − b) for spans U = reach − knee, V = top − knee and bend b: the lower the knee,
        // the more stops share the compression and the higher the slope. A knee within a bend of the top leaves
        // slope 0: the bend alone rises to the top.
        let b = SceneCurve.bend
        // Highlights of some extent (a window, a lamp's glow, an HDR ramp: more than glints) keep a gradation: the
        // knee goes as low as a slope of m needs, (top − b − m(reach − b)) / (1 − m), down to `sparseKnee`.
        let g = SceneCurve.gradationRange
        let m = SceneCurve.gradation * min(max((highlights - g.lowerBound) / (g.upperBound - g.lowerBound), 0), 1)
        let forGradation = (top - b - m * (reach - b)) / (1 - m)
        let sparse = min(max(min(w - SceneCurve.whiteMargin - max(bounded, 0), forGradation), SceneCurve.sparseKnee), top - b)
        // Many highlights lower the knee toward `lowestKnee`, but not into the surfaces under the white (at most
        // `kneeDrop` under the sparse knee), and not at all for a part lit apart: the body keeps its tones, the
        // part apart is compressed above them.
        let spreading = t * (1 - apart)
        let k = min(max(SceneCurve.lowestKnee * spreading + sparse * (1 - spreading), sparse - SceneCurve.kneeDrop), top - b)
        knee = k
        let U = reach - k, V = top - k
        slope = U > V ? min(max((V - b) / (U - b), 0), 1) : 1
    }

    /// Maps relative luminance (1 = reference white) to relative SDR luminance (≤ 1).
    package func map(_ relative: Double) -> Double {
        guard relative > 0 else { return 0 }
        let x = log2(relative) + exposure
        let u = x - knee, w = SceneCurve.bend
        var y = x
        if u > 0, slope < 1 {
            // Slope 1 → `slope` along the bend (a parabola), then straight.
            y = u < 2 * w ? knee + u - (1 - slope) * u * u / (4 * w) : knee + w * (1 + slope) + slope * (u - 2 * w)
        }
        return min(exp2(y), 1)
    }

    /// The slope (stops out per stop in) at `x` stops of input: 1 below the knee, `slope` above the bend.
    func slope(atStops x: Double) -> Double {
        let e = 1e-4
        return (log2(map(exp2(x + e))) - log2(map(exp2(x - e)))) / (2 * e)
    }
}

/// Follows the scenes of a clip and gives the `auto` curve for each picture. Per picture it measures the light
/// (SceneMeter), compares it with the scene's: a picture whose light is spread differently enough
/// (`cutDistance`) starts a new scene, which takes its own curve at once; within a scene the measured levels
/// follow the pictures slowly (`adaptation` per picture), and the curve changes only when they move by more than
/// `resolution`, so a static scene keeps one constant curve: no pumping, no flicker.
/// The scene's white is its diffuse white (SceneStatistics.diffuseWhite) but never more than `whiteOverKey` stops
/// above the key of its lit samples: a dark scene with bright lights or graphics in it (a stage, a night street,
/// graded film) is not taken for a brightly lit one.
/// Dynamic metadata (Dolby Vision level 1, HDR10+) marks shots: where its peak agrees with the measured one
/// (within `metadataTolerance`), a change of its values is a cut as soon as the picture changes at all
/// (`cutDistance` / 3), and unchanged values hold the scene unless the picture changes completely
/// (`metadataOverride`). Its levels, taken over every pixel of the shot, bound the measured ones: the white is
/// never above the shot's peak, and its average (of maxRGB, never under the luminance's key) may raise the key
/// the white is bounded by. Metadata that disagrees describes some other picture (real files carry such) and is
/// ignored; the report says so.
package final class SceneTracker: @unchecked Sendable {
    static let cutDistance = 0.3
    static let metadataOverride = 0.6
    static let metadataTolerance = 1.5  // stops; DV and HDR10+ peaks are of maxRGB, a little above luminance
    static let adaptation = 0.08
    static let resolution = 1.0 / 32
    /// Diffuse white lies 2.5 stops above middle grey; a scene's key sits at or above its middle grey unless
    /// most of it is in shadow, so 4 stops leave room for dark surroundings without taking lights for surfaces.
    static let whiteOverKey = 4.0
    /// The body of a picture: the level 35 % of its lit samples lie under, below the bright part of a picture up
    /// to two thirds of which is brighter than its white, and near the middle of a picture lit as one.
    static let bodyShare = 0.35
    /// A uniformly lit scene's diffuse white lies about 2.5–3 stops above that level (a white surface reflects
    /// 90 %, a scene's middle 10–20 %); from `apartFrom` stops the brightest surfaces count as lit apart, fully
    /// from `apartTo`.
    static let apartFrom = 3.2
    static let apartTo = 3.5
    /// The white a body implies for a picture whose bright part is apart: `bodyToWhite` stops above the level a
    /// quarter of its lit samples lie under (that level stays in the body with up to three quarters of the
    /// picture bright).
    static let lowerQuarter = 0.25
    static let bodyToWhite = 2.9

    /// One scene as the report gives it: where it starts (seconds on the clip's clock), how many pictures it
    /// has, and the levels its curve was last built from.
    struct Scene: Sendable, Equatable {
        var start: Double?
        var pictures: Int
        var white: Double, key: Double, peak: Double, highlights: Double  // stops (highlights: a fraction)
        var exposure: Double
    }

    private let timeBase: TimeBase?
    private var running: SceneStatistics? = nil
    private var surfaces = 0.0, bodyWhite = 0.0, peak = 0.0, highlights = 0.0, key = 0.0, bounded = 0.0, apart = 0.0
    private var heldLevels = (white: 0.0, highlights: 0.0, peak: 0.0, bounded: 0.0, apart: 0.0)
    private(set) var curve = SceneCurve.sdrRange
    private(set) var history: [Scene] = []
    package var scenes: Int { history.count }
    private var lastMetadata: DynamicHDRMetadata? = nil
    private var usedMetadata: DynamicHDRMetadata.Source? = nil
    private var ignoredMetadata: DynamicHDRMetadata.Source? = nil

    /// `timeBase`: of the pictures' timestamps, for the scenes' start times.
    package init(timeBase: TimeBase? = nil) { self.timeBase = timeBase }

    /// The curve for the next picture, and whether it differs from the last one's.
    package func next(_ stats: SceneStatistics, metadata: DynamicHDRMetadata? = nil, pts: Int64? = nil) -> (curve: SceneCurve, changed: Bool) {
        let spread = stats.spreadWeighted
        let measuredPeak = stats.percentile(0.999)
        var trusted: DynamicHDRMetadata? = nil
        if let m = metadata {
            if m.peak > 0, abs(log2(m.peak / ToneCurve.referenceWhite) - measuredPeak) <= SceneTracker.metadataTolerance {
                trusted = m
                usedMetadata = m.source
            } else {
                ignoredMetadata = m.source
            }
        }
        let measuredKey = stats.litKey
        var keyBound = measuredKey, whiteBound = Double.infinity
        if let m = trusted {
            if m.average > 0 { keyBound = max(keyBound, log2(m.average / ToneCurve.referenceWhite)) }
            whiteBound = log2(m.peak / ToneCurve.referenceWhite)
        }
        let measuredSurfaces = min(stats.diffuseWhite, whiteBound)
        let keyLimited = min(measuredSurfaces, keyBound + SceneTracker.whiteOverKey)
        let measuredBounded = measuredSurfaces - keyLimited
        // A white far above the body of the picture belongs to a part lit apart from it (a window, the sun's side
        // of a scene, a lamp, HDR graphics): the exposure follows the body's own white, and that part is
        // compressed above it.
        let body = stats.litPercentile(SceneTracker.bodyShare)
        let (a0, a1) = (SceneTracker.apartFrom, SceneTracker.apartTo)
        let measuredApart = min(max((keyLimited - body - a0) / (a1 - a0), 0), 1)
        let measuredBodyWhite = stats.litPercentile(SceneTracker.lowerQuarter) + SceneTracker.bodyToWhite
        // The highlights are measured above the white the held apartness gives (in eighths, as the curve holds it:
        // the picture's own is noisy near the threshold, and it moves the white by the whole gap to the body's).
        func whiteFor(_ apartness: Double) -> Double { keyLimited - apartness * max(keyLimited - measuredBodyWhite, 0) }

        var sameScene = false
        if let scene = running {
            let distance = stats.distance(to: scene)
            if let m = trusted, let last = lastMetadata {
                sameScene = m == last ? distance < SceneTracker.metadataOverride : distance < SceneTracker.cutDistance / 3
            } else {
                sameScene = distance < SceneTracker.cutDistance
            }
        }
        lastMetadata = trusted
        let newScene = !(running != nil && sameScene)
        let steadyWhite = whiteFor(newScene ? (measuredApart * 8).rounded() / 8 : heldLevels.apart)
        let measuredHighlights = spread.fraction(above: max(steadyWhite, 0))
        if let scene = running, sameScene {
            running = scene.blended(toward: stats, weight: SceneTracker.adaptation)
            surfaces += (keyLimited - surfaces) * SceneTracker.adaptation
            bodyWhite += (measuredBodyWhite - bodyWhite) * SceneTracker.adaptation
            peak += (measuredPeak - peak) * SceneTracker.adaptation
            highlights += (measuredHighlights - highlights) * SceneTracker.adaptation
            key += (measuredKey - key) * SceneTracker.adaptation
            bounded += (measuredBounded - bounded) * SceneTracker.adaptation
            apart += (measuredApart - apart) * SceneTracker.adaptation
        } else {
            running = stats
            surfaces = keyLimited
            bodyWhite = measuredBodyWhite
            peak = measuredPeak
            highlights = measuredHighlights
            key = measuredKey
            bounded = measuredBounded
            apart = measuredApart
            let start = pts.flatMap { p in timeBase.map { Double(p) * $0.seconds } }
            history.append(Scene(start: start, pictures: 0, white: 0, key: 0, peak: 0, highlights: 0, exposure: 0))
        }
        // Each level the curve is built from moves only once the tracked one is a step away from it (hysteresis):
        // noise around a rounding boundary does not flip the curve.
        func held(_ v: Double, _ last: Double, _ step: Double = SceneTracker.resolution) -> Double {
            newScene || abs(v - last) >= step ? (v / step).rounded() * step : last
        }
        // How far the bright part is apart moves in eighths (it moves the white by as much as the gap between the
        // surfaces and the body's white); the white is then the tracked levels' own.
        let heldApart = held(apart, heldLevels.apart, 1.0 / 8)
        let white = surfaces - heldApart * max(surfaces - bodyWhite, 0)
        let used = (
            white: held(white, heldLevels.white), highlights: held(highlights, heldLevels.highlights, 1.0 / 64),
            peak: held(peak, heldLevels.peak), bounded: held(bounded, heldLevels.bounded), apart: heldApart
        )
        heldLevels = used
        let candidate = SceneCurve(
            white: used.white, highlights: used.highlights, peak: used.peak, bounded: used.bounded, apart: used.apart)
        let changed = candidate != curve
        curve = candidate
        history[history.count - 1].pictures += 1
        history[history.count - 1].white = used.white
        history[history.count - 1].highlights = used.highlights
        history[history.count - 1].peak = used.peak
        history[history.count - 1].key = key
        history[history.count - 1].exposure = candidate.exposure
        return (candidate, changed)
    }

    /// What `convert --json` (and `probe --scene-stats`) say of the adaptation: scenes found, the ranges over
    /// them of the diffuse white, key (log-average of the lit light) and peak the curves were built from (cd/m²)
    /// and of the exposure changes (stops), and each scene's own (`by_scene`).
    package var report: JSONValue {
        func nits(_ stops: Double) -> JSONValue { .double((ToneCurve.referenceWhite * exp2(stops)).rounded()) }
        func stops(_ v: Double) -> JSONValue { .double((v * 100).rounded() / 100) }
        func range(_ f: (Scene) -> Double, _ json: (Double) -> JSONValue) -> JSONValue {
            let values = history.map(f)
            guard let low = values.min(), let high = values.max() else { return .null }
            return .array([json(low), json(high)])
        }
        let scenes: [JSONValue] = history.map { s in
            .object([
                ("start", s.start.map { .double(($0 * 1000).rounded() / 1000) } ?? .null), ("pictures", .int(Int64(s.pictures))),
                ("white_cd_m2", nits(s.white)), ("key_cd_m2", nits(s.key)), ("peak_cd_m2", nits(s.peak)),
                ("highlights", stops(s.highlights)), ("exposure_stops", stops(s.exposure))
            ])
        }
        // "dovi"/"hdr10+": the file's dynamic metadata agreed with the pictures, marked the shots and bounded the
        // levels (which are always measured); "measured": the pictures alone.
        return .object([
            ("statistics", .string(usedMetadata?.rawValue ?? "measured")),
            ("metadata_ignored", ignoredMetadata.map { .string("\($0.rawValue): its peak disagrees with the pictures") } ?? .null),
            ("scenes", .int(Int64(history.count))),
            ("white_cd_m2", range(\.white, nits)), ("key_cd_m2", range(\.key, nits)), ("peak_cd_m2", range(\.peak, nits)),
            ("exposure_stops", range(\.exposure, stops)), ("by_scene", .array(scenes))
        ])
    }
}
