import Foundation
import SDRifyValues

/// Tables for HLG → display light (ITU-R BT.2100), evaluated in double precision once per conversion, so the
/// per-pixel kernel needs no pow/log/exp (zimg's exact HLG path spends most of its time in libm, and its
/// approximate one measured mean CIEDE2000 2.4 instead of 0.9 in the round trip).
struct HLGTables: Sendable {
    static let oetfSize = 4097
    /// The BT.2100 OOTF sdrify renders HLG with: a 1000 cd/m² display, system gamma 1.2, on luminance.
    static let nominalPeak = HDRReference.hlgPeak, systemGamma = HDRReference.hlgSystemGamma

    /// HLG signal → normalised scene light E (0-1).
    static func inverseOETF(_ v: Double) -> Double { HLG.inverseOETF(v) }

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
