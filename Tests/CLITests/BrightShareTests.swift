import Foundation
import SDRifyMeasure
import XCTest

/// Graded HDR keeps its white at BT.2408's 203 cd/m² whatever share of the frame is brighter (issue 55): the test
/// photographs at reference white with 0–50 % of the frame above it (a ramp to 1000 cd/m², saturated 600 cd/m²
/// patches, a window lit at 4×), PQ and HLG (BrightShareScene). The photographs come back within 1.2 ΔE00 of
/// themselves and no darker, nothing is lowered, and the saturated patches stay clearly saturated.
final class BrightShareTests: XCTestCase {
    func testGradedContentKeepsItsWhiteWhateverShareIsBrighter() throws {
        let work = try Support.tempDir()
        defer { try? FileManager.default.removeItem(at: work) }
        let pictures = try ExposureChart.decodedPhotos(ffmpeg: Support.tool("ffmpeg"), directory: Support.vector("photos"))
        for transfer in ExposureChart.Transfer.allCases {
            for share in BrightShareScene.shares {
                let s = try BrightShareScene.measure(
                    sdrify: Support.binary.path, ffmpeg: Support.tool("ffmpeg"), pictures: pictures, work: work,
                    share: share, transfer: transfer)
                let which = "\(transfer) with \(Int(share)) % brighter"
                print(String(format: "%@: ΔE00 %.2f, ΔL* %+.2f, exposure %@", which, s.meanDE, s.deltaL, s.exposure), s.patchChroma, s.patchHueError)
                XCTAssertLessThanOrEqual(s.meanDE, 1.2, "\(which): the photographs come back as they went in")
                XCTAssertGreaterThan(s.deltaL, -1, "\(which): not darker")
                XCTAssertEqual(s.exposure, "[0, 0]", "\(which): not lowered")
                for (name, kept) in s.patchChroma {
                    // HLG's 1000 cd/m² display clips a saturated 600 cd/m² patch's strongest channel in the source.
                    XCTAssertGreaterThanOrEqual(kept, transfer == .pq ? 0.55 : 0.45, "\(which): the \(name) patch keeps its chroma")
                    XCTAssertLessThanOrEqual(s.patchHueError[name] ?? 0, transfer == .pq ? 5 : 12, "\(which): the \(name) patch keeps its hue")
                }
            }
        }
    }
}
