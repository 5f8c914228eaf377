import SDRify
import XCTest

/// sdrify linearises HLG with its own tables instead of zimg's exact (libm-bound) path: both must give the
/// same 8-bit output to within one code.
final class HLGPathTests: XCTestCase {
    func testTablesMatchZimgsExactPath() throws {
        let (w, h) = (256, 144)
        // Legal HLG content: smooth BT.2020 R'G'B' in 0.05–0.95 covering dark to peak and saturated colours,
        // turned into 10-bit limited Y'CbCr (chroma from the top-left sample of each 2×2 block). Signals outside
        // 0–1 are out of the container gamut; there sdrify clamps to BT.2100's signal range and zimg
        // extrapolates its formula, so they are not a measure of the tables.
        let src = try Frame(width: w, height: h, format: .yuv420p10)
        func rgb(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let u = Double(x) / Double(w - 1), v = Double(y) / Double(h - 1)
            let r = 0.05 + 0.9 * u, g = 0.05 + 0.9 * (0.5 + 0.5 * sin(6 * v + 2 * u)), b = 0.05 + 0.9 * v * (1 - u)
            return (r, g, b)
        }
        func ycbcr(_ c: (Double, Double, Double)) -> (Int, Int, Int) {
            let y = 0.2627 * c.0 + 0.6780 * c.1 + 0.0593 * c.2
            return (Int((64 + 876 * y).rounded()), Int((512 + 896 * (c.2 - y) / 1.8814).rounded()), Int((512 + 896 * (c.0 - y) / 1.4746).rounded()))
        }
        for y in 0..<h {
            let row = (src.data(0) + y * src.stride(0)).assumingMemoryBound(to: UInt16.self)
            for x in 0..<w { row[x] = UInt16(ycbcr(rgb(x, y)).0) }
        }
        for y in 0..<h / 2 {
            let cb = (src.data(1) + y * src.stride(1)).assumingMemoryBound(to: UInt16.self)
            let cr = (src.data(2) + y * src.stride(2)).assumingMemoryBound(to: UInt16.self)
            for x in 0..<w / 2 { let c = ycbcr(rgb(2 * x, 2 * y)); cb[x] = UInt16(c.1); cr[x] = UInt16(c.2) }
        }
        src.color = ColorDescription(primaries: .bt2020, transfer: .aribStdB67, matrix: .bt2020nc, range: .limited, chromaLocation: .left)
        func run(exact: Bool) throws -> Frame {
            try ToneMapper(sourceFormat: .yuv420p10, sourceColor: src.color, width: w, height: h, outputWidth: w, outputHeight: h,
                           curve: ToneCurve(.default, sourcePeak: 1000), exactHLG: exact).process(src, format: .yuv420p10)
        }
        let tables = try run(exact: false), exact = try run(exact: true)
        var worst = 0
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: w, height: h)
            for y in 0..<ph {
                let a = (tables.data(p) + y * tables.stride(p)).assumingMemoryBound(to: UInt8.self)
                let b = (exact.data(p) + y * exact.stride(p)).assumingMemoryBound(to: UInt8.self)
                for x in 0..<pw { worst = max(worst, abs(Int(a[x]) - Int(b[x]))) }
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
    }
}
