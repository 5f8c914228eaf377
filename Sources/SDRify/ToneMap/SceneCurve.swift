import Foundation

/// The scene-adaptive curve (`--tonemap auto`), worked out in stops relative to HDR reference white (log2 of
/// L / 203 cd/m²) from three measures of a scene (SceneStatistics): its `white`, the level 20 % of its
/// spread-weighted light exceeds; its `highlights`, the spread-weighted fraction above reference white; and its
/// `peak`, the level 0.1 % of its samples exceed. Spread-weighted: flat areas of one level (graphics, uniform
/// patches, clipped skies) count as little as one bin can, so they do not pass for a brightly lit scene.
/// 1. Exposure: a scene whose white sits well above reference white (phones expose HLG so that diffuse white lies
///    near 600 cd/m²) is lowered as a whole until its white is `whiteTarget` stops up. A uniform scale keeps every
///    ratio between tones: greys stay apart and colours keep their saturation.
/// 2. Shoulder: above `knee` every stop of light becomes `slope` stops (one contrast for the whole highlight
///    range, so neighbouring tones stay apart as much in a bright sky as just above the knee), reached from slope
///    1 through a soft bend `bend` stops wide on each side, and the scene's peak lands on `top`, just under SDR
///    white; above the peak it goes on rising to SDR white. Where much of the picture is highlight (a sky), the
///    knee goes to `lowestKnee`, spreading the compression over as many stops as it can, so the brightest
///    regions keep their texture and their greys stay apart (slope about 0.5 on a phone's sky);
///    where highlights are few (speculars, lamps), the knee stays at `sparseKnee` and the picture's SDR-range
///    majority keeps its levels.
/// Light at SDR levels (graded HDR, SDR in HDR) gets neither: it comes back as it went in.
public struct SceneCurve: Equatable, Sendable {
    /// Stops above reference white where a lowered scene's white lands.
    static let whiteTarget = 0.25
    /// The most a scene is lowered, in stops.
    static let maxLowering = 2.5
    /// Half the width of the bend from slope 1 to the shoulder's slope (stops).
    static let bend = 0.25
    /// The knee where highlights are few (stops; 120 cd/m²).
    static let sparseKnee = -0.75
    /// The lowest knee (stops; 36 cd/m²): below it tones are never compressed.
    static let lowestKnee = -2.5
    /// Highlight fractions between which the knee moves from `sparseKnee` to the texture-keeping one.
    static let highlightRange = 0.05...0.25
    /// Where a peak well above SDR white lands (stops; 0.80 of SDR white's luminance), so that bright regions,
    /// whose strongest channel lies above their luminance when they are tinted, keep a margin below full code.
    static let peakLanding = -0.32

    public let exposure: Double  // stops added to every level (≤ 0)
    public let knee: Double  // stops, after exposure
    public let peak: Double  // the scene's peak, stops after exposure
    public let top: Double  // where the peak lands (≤ 0)
    public let slope: Double  // stops out per stop in above the bend

    /// A scene whose light stays at SDR levels: no exposure change, no shoulder.
    public static let sdrRange = SceneCurve(white: 0, highlights: 0, peak: 0)

    public init(white: Double, highlights: Double, peak measuredPeak: Double) {
        exposure = min(max(SceneCurve.whiteTarget - white, -SceneCurve.maxLowering), 0)
        let h = max(measuredPeak, white) + exposure
        peak = h
        // Many highlights: a peak clearly above SDR white lands on `peakLanding`, and the knee goes low. Few
        // (speculars, lamps): the peak lands half as far below SDR white (90 %), and the knee stays high. Peaks
        // near SDR white land on it either way (SDR-range content is left as it is).
        let r = SceneCurve.highlightRange
        let t = min(max((highlights - r.lowerBound) / (r.upperBound - r.lowerBound), 0), 1)
        top = SceneCurve.peakLanding * max(t, 0.5) * min(max(h / 0.5, 0), 1)
        // The slope is (V − w)/(U − w) for spans U = peak − knee, V = top − knee and bend w: the lower the knee,
        // the more stops share the compression and the higher the slope. Many highlights: the lowest knee.
        let w = SceneCurve.bend
        let k = min(SceneCurve.lowestKnee * t + SceneCurve.sparseKnee * (1 - t), top - 2 * w)
        knee = k
        let U = h - k, V = top - k
        slope = U > V ? min(max((V - w) / (U - w), 0), 1) : 1
    }

    /// Maps relative luminance (1 = reference white) to relative SDR luminance (≤ 1).
    public func map(_ relative: Double) -> Double {
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
    public func slope(atStops x: Double) -> Double {
        let e = 1e-4
        return (log2(map(exp2(x + e))) - log2(map(exp2(x - e)))) / (2 * e)
    }
}

/// Follows the scenes of a clip and gives the `auto` curve for each picture. Per picture it measures the light
/// (SceneMeter), compares it with the scene's: a picture whose light is spread differently enough
/// (`cutDistance`) starts a new scene, which takes its own curve at once; within a scene the measured levels
/// follow the pictures slowly (`adaptation` per picture), and the curve changes only when they move by more than
/// `resolution`, so a static scene keeps one constant curve: no pumping, no flicker.
/// Dynamic metadata (Dolby Vision level 1, HDR10+) marks shots: where its peak agrees with the measured one
/// (within `metadataTolerance`), a change of its values is a cut as soon as the picture changes at all
/// (`cutDistance` / 3), and unchanged values hold the scene unless the picture changes completely
/// (`metadataOverride`). Metadata that disagrees describes some other picture (real files carry such) and is
/// ignored; the report says so.
public final class SceneTracker: @unchecked Sendable {
    static let cutDistance = 0.3
    static let metadataOverride = 0.6
    static let metadataTolerance = 1.5  // stops; DV and HDR10+ peaks are of maxRGB, a little above luminance
    static let adaptation = 0.08
    static let resolution = 1.0 / 32

    private var running: SceneStatistics? = nil
    private var white = 0.0, peak = 0.0, highlights = 0.0
    public private(set) var curve = SceneCurve.sdrRange
    public private(set) var scenes = 0
    private var lastMetadata: DynamicHDRMetadata? = nil
    private var usedMetadata: DynamicHDRMetadata.Source? = nil
    private var ignoredMetadata: DynamicHDRMetadata.Source? = nil
    private var keys: ClosedRange<Double>? = nil
    private var peaks: ClosedRange<Double>? = nil
    private var exposures: ClosedRange<Double>? = nil

    public init() {}

    /// The curve for the next picture, and whether it differs from the last one's.
    public func next(_ stats: SceneStatistics, metadata: DynamicHDRMetadata? = nil) -> (curve: SceneCurve, changed: Bool) {
        let spread = stats.spreadWeighted
        let measuredWhite = spread.percentile(0.80), measuredPeak = stats.percentile(0.999)
        let measuredHighlights = spread.fraction(above: 0)
        var trusted: DynamicHDRMetadata? = nil
        if let m = metadata {
            if m.peak > 0, abs(log2(m.peak / ToneCurve.referenceWhite) - measuredPeak) <= SceneTracker.metadataTolerance {
                trusted = m
                usedMetadata = m.source
            } else {
                ignoredMetadata = m.source
            }
        }
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
        if let scene = running, sameScene {
            running = scene.blended(toward: stats, weight: SceneTracker.adaptation)
            white += (measuredWhite - white) * SceneTracker.adaptation
            peak += (measuredPeak - peak) * SceneTracker.adaptation
            highlights += (measuredHighlights - highlights) * SceneTracker.adaptation
        } else {
            running = stats
            white = measuredWhite
            peak = measuredPeak
            highlights = measuredHighlights
            scenes += 1
        }
        func snapped(_ v: Double, _ step: Double = SceneTracker.resolution) -> Double { (v / step).rounded() * step }
        let usedPeak = snapped(peak)
        let candidate = SceneCurve(white: snapped(white), highlights: snapped(highlights, 1.0 / 64), peak: usedPeak)
        let changed = candidate != curve
        curve = candidate
        func widen(_ r: ClosedRange<Double>?, _ v: Double) -> ClosedRange<Double> { r.map { min($0.lowerBound, v)...max($0.upperBound, v) } ?? v...v }
        keys = widen(keys, stats.key)
        peaks = widen(peaks, usedPeak)
        exposures = widen(exposures, candidate.exposure)
        return (candidate, changed)
    }

    /// What `convert --json` says of the adaptation: scenes found, the range of the pictures' keys (log-average
    /// light) and of the scene peaks the curves were built from (cd/m²), and of the exposure changes (stops).
    public var report: JSONValue {
        func nits(_ stops: Double) -> JSONValue { .double((ToneCurve.referenceWhite * exp2(stops)).rounded()) }
        func range(_ r: ClosedRange<Double>?, _ f: (Double) -> JSONValue) -> JSONValue {
            r.map { .array([f($0.lowerBound), f($0.upperBound)]) } ?? .null
        }
        // "dovi"/"hdr10+": the file's dynamic metadata agreed with the pictures and marked the shots (the levels
        // themselves are always measured); "measured": the pictures alone.
        return .object([
            ("statistics", .string(usedMetadata?.rawValue ?? "measured")),
            ("metadata_ignored", ignoredMetadata.map { .string("\($0.rawValue): its peak disagrees with the pictures") } ?? .null),
            ("scenes", .int(Int64(scenes))),
            ("key_cd_m2", range(keys, nits)), ("peak_cd_m2", range(peaks, nits)),
            ("exposure_stops", range(exposures) { .double(($0 * 100).rounded() / 100) })
        ])
    }
}
