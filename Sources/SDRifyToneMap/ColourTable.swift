import CKernels
import Foundation
import SDRifyValues

/// An experiment of issue 55 (`SDRIFY_COLOUR_TABLE=N`, N points an axis; not the default): the colour map between
/// zimg's legs (for HLG its linearisation, then the curve and the placing inside BT.709) baked into a table of the
/// first leg's R'G'B' signal (BT.2020, PQ or HLG), each entry the exact path's result, rebuilt when the curve
/// changes. Local contrast is applied after the lookup (sdrify_colour_table_row). For measuring what such a table
/// costs in fidelity against the exact path, and what it saves.
final class ColourTable {
    /// Points an axis, from the environment; nil: the exact path.
    static let requestedSize: Int? = {
        guard let text = ProcessInfo.processInfo.environment["SDRIFY_COLOUR_TABLE"], let n = Int(text), (5...129).contains(n)
        else { return nil }
        return n
    }()

    let size: Int
    let entries: UnsafeMutableBufferPointer<Float>
    private let signalLight: [Float]  // PQ: each signal point's light (1 = 203 cd/m²); HLG: unused
    private let hlg: HLGTables?

    init(size: Int, hlg: HLGTables?) {
        self.size = size
        self.hlg = hlg
        entries = .allocate(capacity: size * size * size * 4)
        entries.initialize(repeating: 0)
        signalLight = (0..<size).map { Float(PQ.decode(Double($0) / Double(size - 1)) / ToneCurve.referenceWhite) }
    }

    deinit { entries.deallocate() }

    /// Every entry through the exact path with the gain table `gains` (no local contrast).
    func build(gains: UnsafeMutableBufferPointer<Float>, base: UInt32, maxY: Float) {
        let n = size
        var signal = (r: [Float](repeating: 0, count: n), g: [Float](repeating: 0, count: n), b: [Float](repeating: 0, count: n))
        var light = signal
        var out = (r: [Float16](repeating: 0, count: n), g: [Float16](repeating: 0, count: n), b: [Float16](repeating: 0, count: n))
        let axis = (0..<n).map { Float($0) / Float(n - 1) }
        let oetf = hlg?.inverseOETF ?? [], ootf = hlg?.ootfGain ?? []
        for ir in 0..<n {
            for ig in 0..<n {
                for ib in 0..<n { (signal.r[ib], signal.g[ib], signal.b[ib]) = (axis[ir], axis[ig], axis[ib]) }
                if let hlg {
                    sdrify_hlg_to_linear_row(
                        signal.r, signal.g, signal.b, &light.r, &light.g, &light.b, Int32(n), oetf, Int32(HLGTables.oetfSize), ootf,
                        hlg.ootfBase, GainTable.minY)
                } else {
                    for ib in 0..<n {
                        let (r, g, b) = (signalLight[ir], signalLight[ig], signalLight[ib])
                        light.r[ib] = 1.6604910 * r - 0.5876411 * g - 0.0728499 * b
                        light.g[ib] = -0.1245505 * r + 1.1328999 * g - 0.0083494 * b
                        light.b[ib] = -0.0181508 * r - 0.1005789 * g + 1.1187297 * b
                    }
                }
                sdrify_tonemap_row(
                    light.r, light.g, light.b, &out.r, &out.g, &out.b, Int32(n), gains.baseAddress, base, GainTable.minY, maxY,
                    nil, nil, nil, 0, 1, 1)
                for ib in 0..<n {
                    let e = ((ir * n + ig) * n + ib) * 4
                    entries[e] = max(Float(out.r[ib]), 0).squareRoot()
                    entries[e + 1] = max(Float(out.g[ib]), 0).squareRoot()
                    entries[e + 2] = max(Float(out.b[ib]), 0).squareRoot()
                    let y = min(max(0.2126 * light.r[ib] + 0.7152 * light.g[ib] + 0.0722 * light.b[ib], GainTable.minY), maxY)
                    entries[e + 3] = y.squareRoot().squareRoot()
                }
            }
        }
    }
}
