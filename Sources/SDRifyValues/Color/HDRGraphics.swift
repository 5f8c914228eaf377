import Foundation

/// Where SDR light sits in HDR (ITU-R BT.2408): SDR white, graphics white and HDR reference white are one level, and
/// HLG is shown on its nominal display.
package enum HDRReference {
    /// cd/m²: HDR reference white = SDR 100 % = graphics white (PQ 58 %, HLG 75 %).
    package static let white = 203.0
    /// HLG's nominal display (BT.2100): 1000 cd/m² peak, system gamma 1.2 on luminance.
    package static let hlgPeak = 1000.0, hlgSystemGamma = 1.2
}

/// A graphic's colour (stickers, titles, captions, an effect's paper: BT.709 R'G'B' as the gamma 2.2 screen shows it)
/// coded in the HDR kept: its light placed at graphics white, BT.2020 primaries, PQ or HLG, BT.2020 Y'CbCr. The same
/// placement FrameConverter's SDR-into-HDR graph makes of whole pictures, per colour, so a white title and a white
/// clip are one white and neither is blown.
package enum HDRGraphics {
    /// Y' in 0…1 and Cb, Cr in −0.5…0.5 of the colour in `kind`'s signal (`kind` PQ or HLG).
    package static func signal(r: Double, g: Double, b: Double, kind: HDRKind) -> (y: Double, cb: Double, cr: Double) {
        let light = (SDRDisplay.light(r), SDRDisplay.light(g), SDRDisplay.light(b))
        // BT.709 → BT.2020 primaries on linear light (ITU-R BT.2087), in cd/m².
        let cd = (
            HDRReference.white * (0.6274039 * light.0 + 0.3292830 * light.1 + 0.0433131 * light.2),
            HDRReference.white * (0.0690973 * light.0 + 0.9195404 * light.1 + 0.0113623 * light.2),
            HDRReference.white * (0.0163914 * light.0 + 0.0880133 * light.1 + 0.8955953 * light.2)
        )
        let coded: (Double, Double, Double)
        switch kind {
        case .pq: coded = (PQ.encode(cd.0), PQ.encode(cd.1), PQ.encode(cd.2))
        case .hlg, .sdr: coded = HLG.encode(displayLight: cd)
        }
        let y = 0.2627 * coded.0 + 0.6780 * coded.1 + 0.0593 * coded.2
        return (y, (coded.2 - y) / 1.8814, (coded.0 - y) / 1.4746)
    }
}

/// ARIB STD-B67 / BT.2100 HLG, from display light.
package enum HLG {
    static let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)

    /// BT.2020 display light (cd/m²) on HLG's nominal display → HLG signal: the inverse OOTF, then the OETF.
    package static func encode(displayLight cd: (Double, Double, Double)) -> (Double, Double, Double) {
        let f = (cd.0 / HDRReference.hlgPeak, cd.1 / HDRReference.hlgPeak, cd.2 / HDRReference.hlgPeak)
        let yd = max(0.2627 * f.0 + 0.6780 * f.1 + 0.0593 * f.2, 1e-12)
        let gain = pow(yd, (1 - HDRReference.hlgSystemGamma) / HDRReference.hlgSystemGamma)
        return (oetf(f.0 * gain), oetf(f.1 * gain), oetf(f.2 * gain))
    }

    /// HLG signal → normalised scene light E (0…1).
    package static func inverseOETF(_ v: Double) -> Double {
        v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
    }

    /// Normalised scene light E (0…1) → HLG signal.
    package static func oetf(_ e: Double) -> Double {
        let v = min(max(e, 0), 1)
        return v <= 1.0 / 12 ? (3 * v).squareRoot() : a * log(12 * v - b) + c
    }
}
