import Foundation

/// Tables for HLG → display light (ITU-R BT.2100), evaluated in double precision once per conversion, so the
/// per-pixel kernel needs no pow/log/exp (zimg's exact HLG path spends most of its time in libm, and its
/// approximate one measured mean CIEDE2000 2.4 instead of 0.9 in the round trip).
struct HLGTables: Sendable {
    static let oetfSize = 4097
    /// The BT.2100 OOTF sdrify renders HLG with: a 1000 cd/m² display, system gamma 1.2, on luminance.
    static let nominalPeak = 1000.0, systemGamma = 1.2
    static let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)

    /// HLG signal → normalised scene light E (0-1).
    static func inverseOETF(_ v: Double) -> Double {
        v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
    }

    let inverseOETF: [Float]
    let ootfGain: [Float]  // Ys^(γ−1) × 1000/203, indexed like GainTable
    let ootfBase: UInt32

    package init() {
        inverseOETF = (0..<HLGTables.oetfSize).map { Float(HLGTables.inverseOETF(Double($0) / Double(HLGTables.oetfSize - 1))) }
        ootfBase = GainTable.minY.bitPattern >> GainTable.shift
        let top = Float(1).bitPattern >> GainTable.shift
        ootfGain = (ootfBase...(top + 1)).map { i in
            let ys = Double(Float(bitPattern: i << GainTable.shift))
            return Float(pow(ys, HLGTables.systemGamma - 1) * HLGTables.nominalPeak / ToneCurve.referenceWhite)
        }
    }
}
