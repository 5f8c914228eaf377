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
