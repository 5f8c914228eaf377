import Foundation
import SDRifyValues

/// The tone-mapping operators of `--tonemap`.
package enum ToneMapOperator: String, CaseIterable, Sendable {
    /// Scene-adaptive (the default): the curve follows each scene's measured light (SceneCurve).
    case auto
    case bt2390, bt2446a, hable, reinhard, mobius, clip
    package static let `default` = ToneMapOperator.auto
}

/// How HDR input becomes SDR: the operator, and an exposure the user adds on top of it (`--exposure`, in stops:
/// every level of light multiplied by 2^exposure before the curve; 0 leaves each scene's own decision).
package struct ToneMapping: Equatable, Sendable {
    package var op: ToneMapOperator
    package var exposure: Double

    package init(_ op: ToneMapOperator = .default, exposure: Double = 0) { self.op = op; self.exposure = exposure }

    package static let `default` = ToneMapping()
    /// The exposures `--exposure` takes (stops).
    package static let exposures: ClosedRange<Double> = -2...2
}

/// A tone curve on luminance: HDR display light in cd/m² → SDR display light in cd/m², where HDR reference white
/// (203 cd/m², ITU-R BT.2408) is SDR 100 %. Monotonic, with curve(sourcePeak) = referenceWhite.
package struct ToneCurve: Sendable {
    static let referenceWhite = HDRReference.white  // cd/m², = SDR 100 %

    package let op: ToneMapOperator
    let sourcePeak: Double  // cd/m², brightest the source is expected to get
    /// bt2390: where the knee starts, as a fraction of the target peak in PQ signal. ITU-R BT.2390's own choice
    /// (KS = 1.5·maxLum − 0.5) starts compressing near 98 cd/m², which dims ordinary bright SDR-range content;
    /// sdrify's default starts later (see `defaultKneeStart`).
    let kneeStart: Double

    /// Start of the bt2390 knee as a fraction of the target peak's PQ signal: PQ(knee)/PQ(203) (about 86 cd/m²
    /// for a 1000 cd/m² source). Chosen from the round-trip measurement: later knees keep bright SDR content
    /// closer but make the Hermite overshoot and flatten highlights (0.90 leaves 16 codes for 200–1000 cd/m²),
    /// 0.85 keeps about 22 while staying near the hard-clip floor on SDR content.
    static let defaultKneeStart = 0.85

    /// BT.2390's KS = 1.5·maxLum − 0.5, expressed as the fraction `kneeStart` uses.
    static func standardKneeStart(sourcePeak: Double) -> Double {
        let maxLum = PQ.encode(referenceWhite) / PQ.encode(sourcePeak)
        return (1.5 * maxLum - 0.5) / maxLum
    }

    /// The scene's shape, for `auto` (the one for SDR-range light until a scene has been measured).
    let scene: SceneCurve
    /// Stops added to the light before the curve (`--exposure`).
    let exposure: Double

    package init(
        _ op: ToneMapOperator, sourcePeak: Double, kneeStart: Double = ToneCurve.defaultKneeStart,
        scene: SceneCurve = .sdrRange, exposure: Double = 0
    ) {
        self.op = op
        self.exposure = exposure
        self.sourcePeak = max(sourcePeak, ToneCurve.referenceWhite * 1.01)
        self.kneeStart = kneeStart
        self.scene = scene
    }

    /// Maps HDR luminance (cd/m²) to SDR luminance (cd/m², ≤ 203).
    package func map(_ luminance: Double) -> Double {
        let L = max(luminance, 0) * (exposure == 0 ? 1 : exp2(exposure))
        let white = ToneCurve.referenceWhite
        let x = L / white, peak = sourcePeak / white  // relative to reference white
        let out: Double
        switch op {
        case .auto:
            out = scene.map(x)
        case .clip:
            out = min(x, 1)
        case .reinhard:
            // Extended Reinhard with the white point at the source peak: x(1 + x/peak²)/(1 + x).
            out = min(x * (1 + x / (peak * peak)) / (1 + x), 1)
        case .hable:
            out = min(ToneCurve.hable(x) / ToneCurve.hable(peak), 1)
        case .mobius:
            out = ToneCurve.mobius(x, peak: peak, transition: 0.3)
        case .bt2390:
            out = bt2390(L) / white
        case .bt2446a:
            out = ToneCurve.bt2446a(L, hdrPeak: sourcePeak)
        }
        return min(max(out, 0), 1) * white
    }

    /// Filmic curve (J. Hable, Uncharted 2) with its published constants.
    static func hable(_ x: Double) -> Double {
        let a = 0.15, b = 0.50, c = 0.10, d = 0.20, e = 0.02, f = 0.30
        return (x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f) - e / f
    }

    /// Möbius: linear up to `transition`, then a Möbius transform that reaches 1 at the peak (mpv's form).
    static func mobius(_ x: Double, peak: Double, transition j: Double) -> Double {
        guard x > j, peak > 1 else { return min(x, 1) }
        let a = -j * j * (peak - 1) / (j * j - 2 * j + peak)
        let b = (j * j - 2 * j * peak + peak) / max(peak - 1, 1e-6)
        return (b * b + 2 * b * j + j * j) / (b - a) * (x + a) / (x + b)
    }

    /// ITU-R BT.2390 EETF: identity in PQ up to the knee, then a Hermite spline to the target peak.
    /// BT.2390's own knee is `standardKneeStart`.
    func bt2390(_ L: Double) -> Double {
        let sourcePQ = PQ.encode(sourcePeak)
        let e1 = PQ.encode(L) / sourcePQ  // normalised to the source range
        let maxLum = PQ.encode(ToneCurve.referenceWhite) / sourcePQ  // target peak, same scale
        let ks = kneeStart * maxLum
        guard e1 > ks else { return L }
        if e1 >= 1 { return ToneCurve.referenceWhite }
        let t = (e1 - ks) / (1 - ks)
        let t2 = t * t, t3 = t2 * t
        let e2 = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) + (-2 * t3 + 3 * t2) * maxLum
        return min(PQ.decode(e2 * sourcePQ), ToneCurve.referenceWhite)
    }

    /// ITU-R BT.2446 Method A on luminance: HDR peak `hdrPeak` → SDR 100 %. Returns relative SDR luminance.
    static func bt2446a(_ L: Double, hdrPeak: Double) -> Double {
        let y = min(L / hdrPeak, 1)
        let yPrime = pow(y, 1 / 2.4)
        let rhoHDR = 1 + 32 * pow(hdrPeak / 10000, 1 / 2.4)
        let yp = log(1 + (rhoHDR - 1) * yPrime) / log(rhoHDR)
        let yc: Double
        if yp <= 0.7399 { yc = 1.0770 * yp } else if yp < 0.9909 { yc = -1.1510 * yp * yp + 2.7811 * yp - 0.6302 } else { yc = 0.5 * yp + 0.5 }
        let rhoSDR = 1 + 32 * pow(100.0 / 10000, 1 / 2.4)
        let ySDR = (pow(rhoSDR, yc) - 1) / (rhoSDR - 1)
        return pow(min(ySDR, 1), 2.4)
    }
}
