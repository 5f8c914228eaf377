import Foundation

/// SMPTE ST 2084 (PQ), in absolute luminance.
package enum PQ {
    static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32

    /// Luminance (cd/m²) → PQ signal in [0, 1] (the inverse EOTF).
    package static func encode(_ luminance: Double) -> Double {
        let y = pow(max(luminance, 0) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// PQ signal → luminance (cd/m²) (the EOTF).
    package static func decode(_ signal: Double) -> Double {
        let p = pow(min(max(signal, 0), 1), 1 / m2)
        return 10000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }
}

/// The SDR display sdrify renders HDR for: a pure power law of 2.2 (an sRGB-like phone, browser or computer screen),
/// SDR white = 100 % = HDR reference white. The output is tagged BT.709, as SDR video is; BT.709 tags promise
/// BT.1886's 2.4 in a dim studio, but phones and browsers show BT.709 video with the sRGB curve or flatter (Chrome's
/// sRGB, Apple's 1.961), and the phone makers' own SDR renderings are sRGB. Encoding for 2.4 and being shown at 2.2
/// raises every channel to the power 2.2/2.4: lighter mid-tones, 0.93 of the maker's chroma (BENCHMARKS.md,
/// 2026-11-26). The tone mapper encodes with it, and SDR-range light lifted into HDR (the round trip, the exposure
/// chart, SDR placed in HDR) is this display's light.
package enum SDRDisplay {
    package static let gamma = 2.2
    /// The transfer that encodes for it (zimg's BT.470M is exactly this power).
    package static let transfer = TransferCharacteristic.gamma22

    /// Display light (relative, 1 = white) of a signal in 0…1.
    package static func light(_ signal: Double) -> Double { pow(min(max(signal, 0), 1), gamma) }
    /// The signal (0…1) of display light.
    package static func signal(_ light: Double) -> Double { pow(min(max(light, 0), 1), 1 / gamma) }
}
