@testable import SDRifyLayers
@testable import SDRifyMedia
@testable import SDRifyValues
import XCTest

/// What the layers draw on: SDR codes as before, HDR graphics at BT.2408's published levels, the grey axis both ways,
/// and the effect kernels the same at 10 bits as at 8 (each code four times as large).
final class LayerSignalTests: XCTestCase {
    func testSDRCodesAreBT709AsBefore() {
        let sdr = LayerSignal.sdr
        let c = RGBColor(r: 200, g: 40, b: 90)
        let (y, cb, cr) = sdr.codes(c)
        XCTAssertEqual([y, cb, cr], [Float(c.ycbcr709.y), Float(c.ycbcr709.cb), Float(c.ycbcr709.cr)])
        let half = sdr.premultipliedCodes(r: 0.5, g: 0.5, b: 0.5, a: 0.5)  // white at half cover
        XCTAssertEqual(half.y, 16 * 0.5 + 219 * 0.5, accuracy: 1e-4)
        XCTAssertEqual(half.cb, 64, accuracy: 1e-4)
        XCTAssertEqual(sdr.black, 16)
        XCTAssertEqual(sdr.neutral, 128)
    }

    func testHDRGraphicsWhiteIsBT2408s() {
        // Published: 203 cd/m² is PQ 58 % and HLG 75 %.
        for (kind, signal) in [(HDRKind.pq, 0.5807), (.hlg, 0.75)] {
            let s = LayerSignal(kind)
            let white = s.codes(RGBColor(r: 255, g: 255, b: 255))
            XCTAssertEqual(Double(white.y), 64 + 876 * signal, accuracy: 1, "\(kind)")
            XCTAssertEqual(white.cb, 512)
            XCTAssertEqual(white.cr, 512)
            XCTAssertEqual(Double(s.luma(ofSDRLevel: 235)), 64 + 876 * signal, accuracy: 1, "graphics white as an effect's white")
            XCTAssertEqual(s.black, 64)
            XCTAssertEqual(s.neutral, 512)
            XCTAssertEqual(s.codes(.black).y, 64, "black is black")
            // Premultiplied: a white at 40 % cover is 40 % of white's codes.
            let partial = s.premultipliedCodes(r: 0.4, g: 0.4, b: 0.4, a: 0.4)
            XCTAssertEqual(Double(partial.y), 0.4 * (64 + 876 * signal), accuracy: 0.5)
        }
    }

    func testGreyAxisGoesBothWays() {
        for kind in [HDRKind.pq, .hlg] {
            let s = LayerSignal(kind)
            for level in stride(from: Float(16), through: 235, by: 7.3) {
                let y = s.luma(ofSDRLevel: level)
                XCTAssertEqual(s.sdrLevel(ofLuma: y).level, level, accuracy: 0.01, "\(kind) \(level)")
            }
            let white = s.luma(ofSDRLevel: 235)
            XCTAssertEqual(s.sdrLevel(ofLuma: white + 100).excess, 100, accuracy: 1e-3, "highlights keep what is above white")
            // Monotonic, and mid grey placed where the transfer puts it (not at half the code range).
            XCTAssertLessThan(s.luma(ofSDRLevel: 100), s.luma(ofSDRLevel: 101))
        }
    }

    /// The same picture at 8 bits and at 10 (codes × 4): pixelate, blur and vortex give the same result, × 4.
    func testKernelsAreTheSameAtTenBits() throws {
        let (w, h) = (96, 64)
        let eight = try Frame(width: w, height: h, format: .yuv420p), ten = try Frame(width: w, height: h, format: .yuv420p10)
        for p in 0..<3 {
            let (pw, ph) = PlanarFormat.yuv420p.planeSize(p, width: w, height: h)
            for y in 0..<ph {
                for x in 0..<pw {
                    let v = 40 + (x * 7 + y * 13 + p * 29) % 180
                    (eight.data(p) + y * eight.stride(p)).assumingMemoryBound(to: UInt8.self)[x] = UInt8(v)
                    (ten.data(p) + y * ten.stride(p)).assumingMemoryBound(to: UInt16.self)[x] = UInt16(v * 4)
                }
            }
        }
        let r = EffectRect(x: 8, y: 6, w: 64, h: 48)
        let p8: PlaneRef<UInt8> = eight.plane(0, maxCode: 255), p10: PlaneRef<UInt16> = ten.plane(0, maxCode: 1023)
        EffectKernels.pixelate(p8, r, block: 8)
        EffectKernels.pixelate(p10, r, block: 8)
        EffectKernels.vortex(p8, r, centre: (40, 30), radius: 20, angle: 2)
        EffectKernels.vortex(p10, r, centre: (40, 30), radius: 20, angle: 2)
        EffectKernels.gaussian(p8, EffectRect(x: 0, y: 0, w: 96, h: 64), sigma: 3)
        EffectKernels.gaussian(p10, EffectRect(x: 0, y: 0, w: 96, h: 64), sigma: 3)
        var worst = 0
        for y in 0..<h { for x in 0..<w { worst = max(worst, abs(Int(p10.row(y)[x]) - 4 * Int(p8.row(y)[x]))) } }
        XCTAssertLessThanOrEqual(worst, 4, "10-bit within a rounding of 8-bit × 4")
        XCTAssertEqual(p10.stride, ten.stride(0) / 2, "stride in samples")
    }
}
