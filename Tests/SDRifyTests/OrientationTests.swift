@testable import SDRifyMedia
@testable import SDRifyProbe
@testable import SDRifyRender
@testable import SDRifyToneMap
@testable import SDRifyValues
import XCTest

final class OrientationTests: XCTestCase {
    // DESIGN §3, row by row: EXIF, (a,b,c,d), fixed (tx, ty) for a W×H coded picture, swap, mirrored.
    let W = 1920, H = 1080
    func row(_ o: Orientation) -> (abcd: [Int], tx: Int, ty: Int, swap: Bool, mirrored: Bool) {
        switch o {
        case .up: ([1, 0, 0, 1], 0, 0, false, false)
        case .upMirrored: ([-1, 0, 0, 1], W, 0, false, true)
        case .down: ([-1, 0, 0, -1], W, H, false, false)
        case .downMirrored: ([1, 0, 0, -1], 0, H, false, true)
        case .leftMirrored: ([0, 1, 1, 0], 0, 0, true, true)
        case .right: ([0, 1, -1, 0], H, 0, true, false)
        case .rightMirrored: ([0, -1, -1, 0], H, W, true, true)
        case .left: ([0, -1, 1, 0], 0, W, true, false)
        }
    }

    func checkRow(_ o: Orientation, exif: Int) {
        let r = row(o)
        XCTAssertEqual(o.rawValue, exif)
        let f = o.fixedTransform(width: W, height: H)
        XCTAssertEqual([f.a, f.b, f.c, f.d].map { Int($0) }, r.abcd, "pattern of EXIF \(exif)")
        XCTAssertEqual(Int(f.tx), r.tx, "tx of EXIF \(exif)")
        XCTAssertEqual(Int(f.ty), r.ty, "ty of EXIF \(exif)")
        XCTAssertEqual(o.swapsDimensions, r.swap)
        XCTAssertEqual(o.isMirrored, r.mirrored)
        XCTAssertEqual(f.isMirrored, r.mirrored, "determinant sign of EXIF \(exif)")
        XCTAssertEqual(Orientation(matrix: f), o, "round trip of EXIF \(exif)")
        // The fixed transform must map the coded picture exactly onto [0, W'] × [0, H'].
        let (uw, uh) = o.uprightSize(width: W, height: H)
        for (x, y) in [(0.0, 0.0), (Double(W), 0.0), (0.0, Double(H)), (Double(W), Double(H))] {
            let px = f.a * x + f.c * y + f.tx, py = f.b * x + f.d * y + f.ty
            XCTAssertTrue(px == 0 || px == Double(uw), "corner x of EXIF \(exif)")
            XCTAssertTrue(py == 0 || py == Double(uh), "corner y of EXIF \(exif)")
        }
    }

    func testRow1Up() { checkRow(.up, exif: 1) }
    func testRow2UpMirrored() { checkRow(.upMirrored, exif: 2) }
    func testRow3Down() { checkRow(.down, exif: 3) }
    func testRow4DownMirrored() { checkRow(.downMirrored, exif: 4) }
    func testRow5LeftMirrored() { checkRow(.leftMirrored, exif: 5) }
    func testRow6RightIPhonePortrait() { checkRow(.right, exif: 6) }
    func testRow7RightMirrored() { checkRow(.rightMirrored, exif: 7) }
    func testRow8Left() { checkRow(.left, exif: 8) }

    /// A turn on top of a file's orientation is one of the eight: each upright pixel of the composite is the pixel
    /// the two steps would give, for every pair; and `--rotate`/`--flip` name the turns they say.
    func testTurnsComposeWithTheFilesOrientation() {
        let (w, h) = (5, 3)
        for first in Orientation.allCases {
            for next in Orientation.allCases {
                let both = first.then(next)
                let mid = first.uprightSize(width: w, height: h)
                XCTAssertTrue(both.uprightSize(width: w, height: h) == next.uprightSize(width: mid.width, height: mid.height))
                let out = both.uprightSize(width: w, height: h)
                for y in 0..<out.height {
                    for x in 0..<out.width {
                        let step = next.codedPixel(ofUpright: x, y, width: mid.width, height: mid.height)
                        let twoSteps = first.codedPixel(ofUpright: step.x, step.y, width: w, height: h)
                        XCTAssertTrue(both.codedPixel(ofUpright: x, y, width: w, height: h) == twoSteps, "\(first) then \(next) at \(x),\(y)")
                    }
                }
            }
            XCTAssertEqual(first.then(.up), first)
            XCTAssertEqual(Orientation.up.then(first), first)
        }
        XCTAssertEqual(Orientation(rotate: 90, flip: nil), .right)
        XCTAssertEqual(Orientation(rotate: 180, flip: nil), .down)
        XCTAssertEqual(Orientation(rotate: 270, flip: nil), .left)
        XCTAssertEqual(Orientation(rotate: 0, flip: .horizontal), .upMirrored)
        XCTAssertEqual(Orientation(rotate: 0, flip: .vertical), .downMirrored)
        XCTAssertEqual(Orientation.right.then(.right), .down)
        XCTAssertEqual(Orientation.right.then(.left), .up, "a phone's portrait turned back is the coded picture")
        XCTAssertNil(Orientation(rotate: 45, flip: nil))
    }

    /// A crop of the picture as it shows lies, in the coded picture, where the orientation's pixel map puts it:
    /// each corner pixel of the crop comes from a coded pixel inside the region, for all eight and a turn.
    func testCropLiesWhereTheOrientationPutsIt() {
        let coded = (width: 40, height: 30)
        let crop = CropRect(x: 3, y: 5, width: 12, height: 8)
        for o in Orientation.allCases {
            for turn in [Orientation.up, .right] {
                let framing = Framing(turn: turn, crop: crop)
                let whole = o.then(turn)
                let display = o.uprightSize(width: coded.width, height: coded.height)
                guard let r = framing.codedRegion(orientation: whole, display: display, coded: coded) else { return XCTFail("a region") }
                let shown = whole.uprightSize(width: coded.width, height: coded.height)
                XCTAssertEqual(Double(crop.width * crop.height), r.width * r.height, accuracy: 1e-9, "\(o) then \(turn): area")
                for (x, y) in [(crop.x, crop.y), (crop.x + crop.width - 1, crop.y + crop.height - 1)] {
                    let p = whole.codedPixel(ofUpright: x, y, width: coded.width, height: coded.height)
                    XCTAssertTrue(x < shown.width && y < shown.height)
                    XCTAssertTrue(Double(p.x) >= r.x && Double(p.x) < r.x + r.width, "\(o) then \(turn): x \(p.x) in \(r)")
                    XCTAssertTrue(Double(p.y) >= r.y && Double(p.y) < r.y + r.height, "\(o) then \(turn): y \(p.y) in \(r)")
                }
            }
        }
        XCTAssertEqual(CropRect(argument: "1,2,30,40"), CropRect(x: 1, y: 2, width: 30, height: 40))
        for bad in ["1,2,30", "-1,0,10,10", "0,0,1,10", "a,b,c,d", "0,0,10,10,1"] { XCTAssertNil(CropRect(argument: bad), bad) }
        XCTAssertThrowsError(try Framing(crop: CropRect(x: 300, y: 0, width: 40, height: 40)).check((320, 240), label: "x"))
        XCTAssertNoThrow(try Framing(crop: CropRect(x: 280, y: 200, width: 40, height: 40)).check((320, 240), label: "x"))
        XCTAssertThrowsError(try Framing(turn: .right, crop: CropRect(x: 0, y: 0, width: 300, height: 40)).check((320, 240), label: "x"))
    }

    func testRotationFollowsExifWording() {
        XCTAssertEqual(Orientation.right.rotationClockwise, 90)
        XCTAssertEqual(Orientation.left.rotationClockwise, 270)
        XCTAssertEqual(Orientation.down.rotationClockwise, 180)
        XCTAssertEqual(Orientation.leftMirrored.rotationClockwise, 270)  // "mirror horizontal and rotate 270 CW"
        XCTAssertEqual(Orientation.rightMirrored.rotationClockwise, 90)  // "mirror horizontal and rotate 90 CW"
    }

    func testFixedPointParsingAndSnapping() {
        // iPhone portrait as FFmpeg exposes it: 16.16 entries, w = 1 in 2.30, tx = 1080 px.
        let m = DisplayMatrix(fixedPoint: [0, 65536, 0, -65536, 0, 0, 1080 << 16, 0, 1 << 30])
        XCTAssertEqual(Orientation(matrix: m), .right)
        XCTAssertEqual(m.tx, 1080)
        // Within 1/256 snaps; beyond it does not.
        XCTAssertEqual(Orientation(matrix: DisplayMatrix(a: 0.998, b: 0.003, c: -0.002, d: 1.003)), .up)
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: 0.99, b: 0, c: 0, d: 1)))
    }

    func testMatricesOutsideTheEightAreRefused() {
        let s = 0.5.squareRoot()
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: s, b: s, c: -s, d: s)), "45° rotation")
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: 2, b: 0, c: 0, d: 2)), "scale")
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: 1, b: 0, c: 1, d: 1)), "shear")
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: 1, b: 0, c: 0, d: 1, u: 0.5)), "perspective")
        XCTAssertNil(Orientation(matrix: DisplayMatrix(a: 1, b: 1, c: 1, d: 1)), "singular")
    }

    /// PlaneTransform against a naive per-pixel reference written from the EXIF definitions.
    func testPlaneTransformMatchesNaiveReferenceForAllEight() {
        let w = 37, h = 23  // odd, non-square, not a multiple of the tile size
        func naive(_ o: Orientation, _ x: Int, _ y: Int) -> (Int, Int) {  // upright (X, Y) → coded (x, y)
            switch o {
            case .up: (x, y)
            case .upMirrored: (w - 1 - x, y)
            case .down: (w - 1 - x, h - 1 - y)
            case .downMirrored: (x, h - 1 - y)
            case .leftMirrored: (y, x)  // transpose
            case .right: (y, h - 1 - x)  // rotate 90° cw: top row comes from the left column
            case .rightMirrored: (w - 1 - y, h - 1 - x)  // anti-transpose
            case .left: (w - 1 - y, x)  // rotate 90° ccw
            }
        }
        for o in Orientation.allCases {
            for bytes in [1, 2] {
                let srcStride = (w + 5) * bytes
                var src = [UInt8](repeating: 0, count: srcStride * h)
                var srcWords = [UInt16](repeating: 0, count: srcStride / 2 * h + 1)
                for y in 0..<h {
                    for x in 0..<w {
                        src[y * srcStride + x] = UInt8((x * 7 + y * 13) & 0xff)
                        if bytes == 2 { srcWords[y * srcStride / 2 + x] = UInt16(x * 40 + y * 1000) }
                    }
                }
                let (uw, uh) = o.uprightSize(width: w, height: h)
                let dstStride = (uw + 3) * bytes
                var dst = [UInt8](repeating: 0, count: dstStride * uh)
                dst.withUnsafeMutableBytes { d in
                    if bytes == 1 {
                        src.withUnsafeBytes { s in
                            PlaneTransform(o).apply(
                                UInt8.self, src: s.baseAddress!, srcStride: srcStride, width: w, height: h,
                                dst: d.baseAddress!, dstStride: dstStride)
                        }
                    } else {
                        srcWords.withUnsafeBytes { s in
                            PlaneTransform(o).apply(
                                UInt16.self, src: s.baseAddress!, srcStride: srcStride, width: w, height: h,
                                dst: d.baseAddress!, dstStride: dstStride)
                        }
                    }
                }
                var mismatches = 0
                for y in 0..<uh {
                    for x in 0..<uw {
                        let (sx, sy) = naive(o, x, y)
                        if bytes == 1 {
                            if dst[y * dstStride + x] != src[sy * srcStride + sx] { mismatches += 1 }
                        } else {
                            let got = dst.withUnsafeBytes { $0.load(fromByteOffset: y * dstStride + 2 * x, as: UInt16.self) }
                            if got != srcWords[sy * srcStride / 2 + sx] { mismatches += 1 }
                        }
                    }
                }
                XCTAssertEqual(mismatches, 0, "EXIF \(o.rawValue), \(bytes * 8)-bit container")
            }
        }
    }
}

final class UprightFrameTests: XCTestCase {
    func testSampleAspectRatioIsInvertedWithTheSwap() {
        // 1440x1080 anamorphic (SAR 4:3) shows as 16:9, 1920x1080.
        XCTAssertTrue(VideoInfo.uprightSize(width: 1440, height: 1080, sar: (4, 3), orientation: .up) == (1920, 1080))
        // Turned 90°, the same picture must show 9:16: the SAR now stretches the upright width (1080 → 810 keeps
        // the 1440 height).
        XCTAssertTrue(VideoInfo.uprightSize(width: 1440, height: 1080, sar: (4, 3), orientation: .right) == (810, 1440))
        // Coded portrait-anamorphic 1080x1440 with SAR 3:4, stored turned: upright it is 16:9 again.
        XCTAssertTrue(VideoInfo.uprightSize(width: 1080, height: 1440, sar: (3, 4), orientation: .left) == (1920, 1080))
        XCTAssertTrue(VideoInfo.uprightSize(width: 1920, height: 1080, sar: (1, 1), orientation: .left) == (1080, 1920))
    }

    func testOrienterOn444TenBitAndRefuses422() throws {
        let fmt = PlanarFormat(bitDepth: 10, chromaShiftX: 0, chromaShiftY: 0)
        let src = try Frame(width: 6, height: 4, format: fmt)
        for p in 0..<3 {
            for y in 0..<4 {
                for x in 0..<6 {
                    (src.data(p) + y * src.stride(p)).assumingMemoryBound(to: UInt16.self)[x] = UInt16(p * 300 + y * 10 + x)
                }
            }
        }
        let out = try FrameOrienter(.right, width: 6, height: 4, format: fmt).apply(src)
        XCTAssertEqual(out.width, 4); XCTAssertEqual(out.height, 6)
        for p in 0..<3 {
            for y in 0..<6 {
                for x in 0..<4 {
                    // rotate 90° cw: upright (x, y) comes from coded (y, H−1−x)
                    let got = (out.data(p) + y * out.stride(p)).assumingMemoryBound(to: UInt16.self)[x]
                    XCTAssertEqual(got, UInt16(p * 300 + (3 - x) * 10 + y))
                }
            }
        }
        XCTAssertThrowsError(try FrameOrienter(.right, width: 6, height: 4, format: PlanarFormat(bitDepth: 8, chromaShiftX: 1, chromaShiftY: 0)))
    }
}

/// Turning a 4:2:0 picture moves its chroma samples within their 2×2 blocks. The colour stage produces the siting
/// that becomes "left" (the output's tag) once upright. Measured on linear chroma ramps, which every
/// interpolating filter reproduces exactly, so any siting error shows up as an offset of slope × error.
final class ChromaSitingTests: XCTestCase {
    func testChromaIsLeftSitedOnceUpright() throws {
        let (w, h) = (64, 48)
        let (cbSlope, crSlope) = (3.0, 4.0)  // codes per luma pixel, along coded x (Cb) and coded y (Cr)
        // Source: left siting, chroma sample (i, j) at luma position (2i, 2j + ½).
        let src = try Frame(width: w, height: h, format: .yuv420p)
        for y in 0..<h { (src.data(0) + y * src.stride(0)).initializeMemory(as: UInt8.self, repeating: 128, count: w) }
        for j in 0..<h / 2 {
            for i in 0..<w / 2 {
                (src.data(1) + j * src.stride(1)).storeBytes(of: UInt8(30 + cbSlope * Double(2 * i)), toByteOffset: i, as: UInt8.self)
                let cr: Double = 30 + crSlope * (Double(2 * j) + 0.5)
                (src.data(2) + j * src.stride(2)).storeBytes(of: UInt8(cr.rounded()), toByteOffset: i, as: UInt8.self)
            }
        }
        let color = ColorDescription(primaries: .bt709, transfer: .bt709, matrix: .bt709, range: .limited, chromaLocation: .left)
        src.color = color
        for o in Orientation.allCases {
            let converter = try FrameConverter(
                sourceFormat: .yuv420p, sourceColor: color, width: w, height: h, outputWidth: w,
                outputHeight: h, toneCurve: ToneCurve(.default, sourcePeak: 1000),
                outputSiting: o.chromaSitingBeforeOrienting)
            var out = try converter.convert(src, format: .yuv420p)
            if o != .up { out = try FrameOrienter(o, width: w, height: h).apply(out) }
            // Where an upright luma position came from in the coded picture (pixel centres; the matrix is
            // orthogonal, so its inverse is its transpose).
            let p = o.pattern
            let (uw, uh) = o.uprightSize(width: w, height: h)
            let tx = Double((p.a < 0 ? w - 1 : 0) + (p.c < 0 ? h - 1 : 0)), ty = Double((p.b < 0 ? w - 1 : 0) + (p.d < 0 ? h - 1 : 0))
            var worst = 0.0
            for j in 2..<(uh / 2 - 2) {
                for i in 2..<(uw / 2 - 2) {
                    let (dx, dy) = (Double(2 * i) - tx, Double(2 * j) + 0.5 - ty)  // left siting, upright
                    let (x, y) = (Double(p.a) * dx + Double(p.b) * dy, Double(p.c) * dx + Double(p.d) * dy)
                    let cb = Double((out.data(1) + j * out.stride(1)).load(fromByteOffset: i, as: UInt8.self))
                    let cr = Double((out.data(2) + j * out.stride(2)).load(fromByteOffset: i, as: UInt8.self))
                    worst = max(worst, abs(cb - (30 + cbSlope * x)), abs(cr - (30 + crSlope * y)))
                }
            }
            // Exact in every case: a horizontal mirror's "right" siting is made by the orienter's half-sample move.
            XCTAssertLessThanOrEqual(worst, 1, "\(o.name): chroma off by \(worst) codes")
        }
    }
}
