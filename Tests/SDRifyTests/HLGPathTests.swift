@testable import SDRifyMedia
@testable import SDRifyToneMap
@testable import SDRifyValues
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
            try ToneMapper(
                sourceFormat: .yuv420p10, sourceColor: src.color, width: w, height: h, outputWidth: w, outputHeight: h,
                curve: ToneCurve(.default, sourcePeak: 1000), exactHLG: exact
            ).process(src, format: .yuv420p10)
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

    /// The tone-map pass runs inside zimg's output callback on a small row ring. Every output row must be mapped
    /// anew for each frame, at any size ratio: a mapper that has just processed a bright frame must give a dark
    /// frame exactly the output a fresh mapper gives it (a stale row would carry the bright frame over).
    func testEveryRowIsMappedForEachFrameWhenResizing() throws {
        func frame(_ w: Int, _ h: Int, level: Int) throws -> Frame {
            let f = try Frame(width: w, height: h, format: .yuv420p10)
            for p in 0..<3 {
                let (pw, ph) = PlanarFormat.yuv420p10.planeSize(p, width: w, height: h)
                for y in 0..<ph {
                    let row = (f.data(p) + y * f.stride(p)).assumingMemoryBound(to: UInt16.self)
                    for x in 0..<pw { row[x] = UInt16(p == 0 ? level + (x * 7 + y * 3) % 200 : 480 + (x + 2 * y) % 64) }
                }
            }
            return f
        }
        func bytes(_ f: Frame, _ w: Int, _ h: Int) -> [UInt8] {
            (0..<3).flatMap { p -> [UInt8] in
                let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: w, height: h)
                return (0..<ph).flatMap { y in
                    Array(UnsafeBufferPointer(start: (f.data(p) + y * f.stride(p)).assumingMemoryBound(to: UInt8.self), count: pw))
                }
            }
        }
        for transfer in [TransferCharacteristic.smpte2084, .aribStdB67] {
            for (sw, sh, ow, oh) in [(1000, 200, 498, 100), (640, 360, 640, 360), (300, 100, 600, 200), (64, 4, 32, 2)] {
                let color = ColorDescription(primaries: .bt2020, transfer: transfer, matrix: .bt2020nc, range: .limited, chromaLocation: .left)
                let bright = try frame(sw, sh, level: 700), dark = try frame(sw, sh, level: 100)
                bright.color = color; dark.color = color
                func mapper() throws -> ToneMapper {
                    try ToneMapper(
                        sourceFormat: .yuv420p10, sourceColor: color, width: sw, height: sh, outputWidth: ow, outputHeight: oh,
                        curve: ToneCurve(.default, sourcePeak: 1000))
                }
                let used = try mapper()
                let brightOut = bytes(try used.process(bright, format: .yuv420p10), ow, oh)
                let second = bytes(try used.process(dark, format: .yuv420p10), ow, oh)
                let fresh = bytes(try mapper().process(dark, format: .yuv420p10), ow, oh)
                func differing(_ a: [UInt8], _ b: [UInt8]) -> Int { zip(a, b).filter { $0 != $1 }.count }
                XCTAssertGreaterThan(differing(brightOut, fresh), fresh.count / 2, "the frames must differ for this to test anything")
                XCTAssertEqual(differing(second, fresh), 0, "\(transfer) \(sw)x\(sh) → \(ow)x\(oh): bytes not mapped anew")
            }
        }
    }

    /// HLG in BT.709 primaries (some cameras record it) is decoded with BT.709's luminance weights and no
    /// primaries conversion. Expected codes computed here from BT.2100 (inverse OETF, OOTF γ 1.2 at 1000 cd/m²,
    /// 203 cd/m² = SDR white) and SDRDisplay, on flat colours below SDR white with the identity (clip) curve.
    func testHLGInBT709PrimariesFollowsBT2100() throws {
        let (w, h) = (64, 32)
        let (kr, kb) = (0.2126, 0.0722), kg = 1 - kr - kb
        func inverseOETF(_ v: Double) -> Double {
            let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
            return v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
        }
        for signal in [(0.5, 0.5, 0.5), (0.6, 0.3, 0.1), (0.1, 0.2, 0.65), (0.3, 0.55, 0.2)] {
            let (r, g, b) = signal
            let y = kr * r + kg * g + kb * b
            let src = try Frame(width: w, height: h, format: .yuv420p10)
            let codes = [64 + 876 * y, 512 + 896 * (b - y) / (2 * (1 - kb)), 512 + 896 * (r - y) / (2 * (1 - kr))]
            for p in 0..<3 {
                let (pw, ph) = PlanarFormat.yuv420p10.planeSize(p, width: w, height: h)
                for row in 0..<ph {
                    (src.data(p) + row * src.stride(p)).assumingMemoryBound(to: UInt16.self)
                        .update(repeating: UInt16(codes[p].rounded()), count: pw)
                }
            }
            src.color = ColorDescription(primaries: .bt709, transfer: .aribStdB67, matrix: .bt709, range: .limited, chromaLocation: .left)
            let out = try ToneMapper(
                sourceFormat: .yuv420p10, sourceColor: src.color, width: w, height: h, outputWidth: w,
                outputHeight: h, curve: ToneCurve(.clip, sourcePeak: 1000)
            ).process(src, format: .yuv420p10)
            // Expected: display light relative to 203 cd/m², encoded for SDRDisplay (γ 2.2), the BT.709 matrix.
            let e = [inverseOETF(r), inverseOETF(g), inverseOETF(b)]
            let ys = kr * e[0] + kg * e[1] + kb * e[2]
            let light = e.map { $0 * pow(ys, 0.2) * 1000 / 203 }
            let v = light.map { SDRDisplay.signal($0) }
            let yOut = kr * v[0] + kg * v[1] + kb * v[2]
            let expected = [16 + 219 * yOut, 128 + 224 * (v[2] - yOut) / (2 * (1 - kb)), 128 + 224 * (v[0] - yOut) / (2 * (1 - kr))]
            for p in 0..<3 {
                let got = Double((out.data(p) + 4 * out.stride(p)).load(fromByteOffset: 8, as: UInt8.self))
                XCTAssertEqual(got, expected[p], accuracy: 1.5, "signal \(signal), plane \(p)")
            }
        }
    }
}
