@testable import SDRifyToneMap
@testable import SDRifyValues
import SDRifyMeasure
import XCTest

/// Expected values come from a separate implementation of the published formulas (ITU-R BT.2390 EETF with
/// its own knee KS = 1.5·maxLum − 0.5, ITU-R BT.2446 Method A, Hable's filmic constants, extended Reinhard,
/// mpv's Möbius), all with HDR reference white 203 cd/m² = SDR 100 % and a 1000 cd/m² source peak.
final class ToneMapTests: XCTestCase {
    func testPQAgainstST2084() {
        XCTAssertEqual(PQ.encode(100), 0.508078, accuracy: 1e-6)
        XCTAssertEqual(PQ.encode(203), 0.580689, accuracy: 1e-6)
        XCTAssertEqual(PQ.encode(1000), 0.751827, accuracy: 1e-6)
        XCTAssertEqual(PQ.encode(10000), 1.0, accuracy: 1e-9)
        for L in [0.01, 1, 58, 203, 4000] { XCTAssertEqual(PQ.decode(PQ.encode(L)), L, accuracy: L * 1e-9) }
    }

    func check(_ curve: ToneCurve, _ expected: [(Double, Double)], file: StaticString = #filePath, line: UInt = #line) {
        for (L, want) in expected {
            XCTAssertEqual(curve.map(L), want, accuracy: 1e-3, "\(curve.op) at \(L) cd/m²", file: file, line: line)
        }
    }

    func testBT2390WithItsOwnKnee() {
        let curve = ToneCurve(.bt2390, sourcePeak: 1000, kneeStart: ToneCurve.standardKneeStart(sourcePeak: 1000))
        check(curve, [(20, 20.0), (100, 99.3611), (203, 159.0419), (400, 193.6091), (1000, 203.0)])
    }

    func testBT2446A() { check(ToneCurve(.bt2446a, sourcePeak: 1000), [(20, 11.6823), (100, 46.0067), (203, 82.4085), (400, 130.8461), (1000, 203)]) }
    func testHable() { check(ToneCurve(.hable, sourcePeak: 1000), [(20, 9.7461), (100, 44.2593), (203, 79.3419), (400, 127.3397), (1000, 203)]) }
    func testReinhard() {
        check(ToneCurve(.reinhard, sourcePeak: 1000), [(20, 18.2802), (100, 68.3567), (203, 105.6827), (400, 145.5944), (1000, 203)])
    }
    func testMobius() { check(ToneCurve(.mobius, sourcePeak: 1000), [(20, 20.0), (100, 92.5978), (203, 137.7655), (400, 172.9896), (1000, 203)]) }
    func testClip() { check(ToneCurve(.clip, sourcePeak: 1000), [(20, 20), (203, 203), (400, 203), (10000, 203)]) }

    func testBT2390KeepsSDRRangeNearlyUntouched() {
        let curve = ToneCurve(.bt2390, sourcePeak: 1000)
        XCTAssertEqual(curve.map(50), 50, accuracy: 1e-9, "below the knee nothing changes")
        XCTAssertEqual(curve.map(80), 80, accuracy: 1e-9)
        XCTAssertGreaterThan(curve.map(203), curve.map(150))
        XCTAssertEqual(curve.map(1000), 203, accuracy: 1e-6)
    }

    func testEveryOperatorIsMonotonicFromZeroToTenThousand() {
        for op in ToneMapOperator.allCases {
            for peak in [400.0, 1000, 4000, 10000] {
                let curve = ToneCurve(op, sourcePeak: peak)
                var previous = -1.0
                var L = 0.0
                while L <= 10000 {
                    let v = curve.map(L)
                    XCTAssertFalse(v.isNaN, "\(op) peak \(peak) at \(L)")
                    XCTAssertGreaterThanOrEqual(v, previous - 1e-9, "\(op) peak \(peak) falls at \(L) cd/m²")
                    XCTAssertLessThanOrEqual(v, 203 + 1e-9)
                    previous = v
                    L += L < 10 ? 0.01 : (L < 1000 ? 0.5 : 5)
                }
            }
        }
    }

    /// The baked gain table must give the same SDR code value as the direct curve (within a quarter code).
    func testGainTableMatchesTheDirectCurve() {
        for op in ToneMapOperator.allCases {
            for (peak, maxY) in [(1000.0, 1000.0 / 203), (4000.0, 10000.0 / 203)] {
                let curve = ToneCurve(op, sourcePeak: peak)
                let table = GainTable(curve: curve, maxY: maxY)
                var worst = 0.0
                for i in 1...4000 {
                    let y = maxY * Double(i) / 4000 * Double(i) / 4000
                    let direct = curve.map(y * 203) / 203
                    let baked = Double(table.gain(Float(y))) * y
                    let code = { (v: Double) in 219 * SDRDisplay.signal(v) }
                    worst = max(worst, abs(code(direct) - code(baked)))
                }
                XCTAssertLessThan(worst, 0.25, "\(op), peak \(peak): table off by \(worst) codes")
            }
        }
    }

    func testGamutMappingKeepsOklabHueAndNeverClipsPerChannel() {
        let table = GainTable(curve: ToneCurve(.clip, sourcePeak: 1000), maxY: 1000.0 / 203)
        // A BT.2020 green outside BT.709 (negative red), below white; a neutral; a bright red beyond SDR white.
        let input: (r: [Float], g: [Float], b: [Float]) = ([-0.2, 0.5, 2.0], [0.6, 0.5, 0.1], [0.05, 0.5, 0.1])
        // Out in half floats, as the colour stage stores them: 11 significant bits, so tolerances of ~1e-3.
        let out = LinearToneMap.apply(table, r: input.r, g: input.g, b: input.b)
        let (r, g, b) = (out.r.map(Float.init), out.g.map(Float.init), out.b.map(Float.init))
        func oklab(_ i: Int, _ r: [Float], _ g: [Float], _ b: [Float]) -> SIMD3<Double> {
            ColorScience.oklab(SIMD3(Double(r[i]), Double(g[i]), Double(b[i])))
        }
        func hue(_ c: SIMD3<Double>) -> Double { atan2(c.z, c.y) * 180 / .pi }
        // The green darker than its hue's most saturated colour: Oklab lightness and hue kept, chroma given up
        // until it is on BT.709's edge (its lowest channel 0).
        let green = (in: oklab(0, input.r, input.g, input.b), out: oklab(0, r, g, b))
        XCTAssertEqual(green.out.x, green.in.x, accuracy: 2e-3, "lightness kept")
        XCTAssertEqual(hue(green.out), hue(green.in), accuracy: 1, "hue kept")
        XCTAssertLessThan(
            (green.out.y * green.out.y + green.out.z * green.out.z).squareRoot(),
            (green.in.y * green.in.y + green.in.z * green.in.z).squareRoot(), "chroma given up")
        XCTAssertEqual(min(r[0], g[0], b[0]), 0, accuracy: 2e-3)
        XCTAssertEqual([r[1], g[1], b[1]], [0.5, 0.5, 0.5], "a neutral in range is untouched")
        // The bright red ends within [0, 1], still clearly red, its hue kept.
        XCTAssertLessThanOrEqual(max(r[2], g[2], b[2]), 1)
        XCTAssertGreaterThan(r[2], g[2] * 3)
        XCTAssertEqual(hue(oklab(2, r, g, b)), hue(oklab(2, input.r, input.g, input.b)), accuracy: 2, "hue kept")
    }

    /// The colour stage maps only the marked pixels of a row, gathered into batches (groups of eight without a mark
    /// passed over, batches filled up to whole vectors): each marked pixel must come out as it does in a row of its
    /// own, and every other pixel as it was. Marks in every pattern: none in a group, one, all, a short last group, and
    /// more than a batch's worth in one row.
    func testBatchedGamutMappingMapsEachPixelAsAlone() {
        let count = 1003
        var seed: UInt64 = 0x5d_1f_7e
        func next() -> Float {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(seed >> 40) / Float(1 << 24)
        }
        // Colours outside BT.709 both ways: channels from −0.6 to 3.
        let (r, g, b) = (
            (0..<count).map { _ in next() * 3.6 - 0.6 }, (0..<count).map { _ in next() * 3.6 - 0.6 },
            (0..<count).map { _ in next() * 3.6 - 0.6 }
        )
        let marked = (0..<count).map { i -> Bool in
            switch (i / 8) % 5 {
            case 0: return false  // a whole group unmarked
            case 1: return i % 8 == 3  // one in a group
            case 2: return true  // a whole group
            default: return i % 3 == 0 || i >= count - 5  // scattered; the short last group all marked
            }
        }
        XCTAssertGreaterThan(marked.filter { $0 }.count, 300, "more than one batch of marks")
        let sentinel: Float16 = 7
        var out = (
            r: [Float16](repeating: sentinel, count: count), g: [Float16](repeating: sentinel, count: count),
            b: [Float16](repeating: sentinel, count: count)
        )
        for i in 0..<count where marked[i] { out.r[i] = 0; out.g[i] = 0; out.b[i] = 0 }
        LinearToneMap.gamutMapRow(r: r, g: g, b: b, marked: marked, into: &out)
        // Each alone: a row of one marked pixel (the same clone of the mapper, so the same arithmetic).
        for i in 0..<count {
            var alone = (r: [Float16(0)], g: [Float16(0)], b: [Float16(0)])
            if marked[i] { LinearToneMap.gamutMapRow(r: [r[i]], g: [g[i]], b: [b[i]], marked: [true], into: &alone) }
            let expected = marked[i] ? [alone.r[0], alone.g[0], alone.b[0]] : [sentinel, sentinel, sentinel]
            XCTAssertEqual([out.r[i], out.g[i], out.b[i]], expected, "pixel \(i)")
        }
        // And every mapped colour inside BT.709.
        for i in 0..<count where marked[i] {
            XCTAssertTrue([out.r[i], out.g[i], out.b[i]].allSatisfy { $0 >= 0 && $0 <= 1 }, "pixel \(i)")
        }
    }

    /// The gamut mapper's table of each hue's most saturated colour is built in (scripts/make-gamut-cusps), not
    /// searched for at every start: it must be, bit for bit, what the search finds.
    func testBuiltInCuspTableIsWhatTheSearchFinds() {
        for hue in 0..<LinearToneMap.cuspHues {
            let (table, search) = (LinearToneMap.cusp(hue: hue, searched: false), LinearToneMap.cusp(hue: hue, searched: true))
            XCTAssertEqual(table.lightness.bitPattern, search.lightness.bitPattern, "hue \(hue): lightness")
            XCTAssertEqual(table.chroma.bitPattern, search.chroma.bitPattern, "hue \(hue): chroma")
        }
        // The table's end repeats its start (the mapper interpolates across 360°).
        let (first, last) = (LinearToneMap.cusp(hue: 0, searched: false), LinearToneMap.cusp(hue: LinearToneMap.cuspHues, searched: false))
        XCTAssertEqual(first.lightness, last.lightness)
        XCTAssertEqual(first.chroma, last.chroma)
        // Plausible values: BT.709's red, green and blue lie near Oklab hues 29°, 142° and 264°.
        for (degrees, lightness) in [(29.0, 0.628), (142.0, 0.866), (264.0, 0.452)] {
            let cusp = LinearToneMap.cusp(hue: Int((degrees / 360 * 256).rounded()), searched: false)
            XCTAssertEqual(Double(cusp.lightness), lightness, accuracy: 0.03, "the cusp near \(degrees)°")
        }
    }

    /// The loop takes one of two ways per span (CKernels' tonemap.c: everything in one loop where most colours need
    /// placing inside BT.709, else the curve first and then only those): the same colours give the same bytes either
    /// way, with and without local contrast, whatever lies around them.
    func testBothWaysOfTheColourLoopGiveTheSameBytes() {
        let table = GainTable(curve: ToneCurve(.bt2390, sourcePeak: 1000), maxY: 1000.0 / 203)
        // One span of colours of every kind: inside, a channel under 0 (a little, clearly), over white (a little,
        // clearly, saturated), a channel of exactly 1, black, negative luminance and NaN.
        var state: UInt64 = 0x5D12_F00D
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        var colours: (r: [Float], g: [Float], b: [Float]) = ([], [], [])
        for i in 0..<1000 {
            var c = (next() * 1.2, next() * 1.2, next() * 1.2)
            switch i % 10 {
            case 0: c.0 = -0.02 - next() * 0.3
            case 1: c = (c.0 * 4, c.1 * 0.3, c.2 * 0.2)
            case 2: c.1 = 1
            case 3 where i % 100 == 3: c = (0, 0, 0)
            case 4 where i % 100 == 4: c = (-0.5, 0.01, 0.01)
            case 5 where i % 100 == 5: c.2 = .nan
            default: if i % 20 < 10 { c = (c.0 * 0.6, c.0 * 0.6, c.0 * 0.6) }  // runs of greys
            }
            colours.r.append(c.0); colours.g.append(c.1); colours.b.append(c.2)
        }
        let local = colours.r.indices.map { _ in next() * 2 - 1 }, weight = colours.r.indices.map { _ in next() }
        let dense = [Float](repeating: -0.3, count: 2048), grey = [Float](repeating: 0.5, count: 2048)
        func bits(_ out: (r: [Float16], g: [Float16], b: [Float16])) -> [UInt16] {
            (out.r + out.g + out.b).map(\.bitPattern)
        }
        for detail in [false, true] {
            func mapped() -> [UInt16] {
                bits(LinearToneMap.apply(table, r: colours.r, g: colours.g, b: colours.b, local: detail ? local : nil, weight: detail ? weight : nil))
            }
            _ = LinearToneMap.apply(table, r: grey, g: grey, b: grey)
            XCTAssertFalse(LinearToneMap.nextSpanTakesOneLoop, "after greys, two passes")
            let twoPasses = mapped()
            _ = LinearToneMap.apply(table, r: dense, g: [Float](repeating: 0.8, count: 2048), b: grey)
            XCTAssertTrue(LinearToneMap.nextSpanTakesOneLoop, "after colours all outside, one loop")
            let oneLoop = mapped()
            XCTAssertEqual(twoPasses.count, 3000)
            let differing = twoPasses.indices.filter { twoPasses[$0] != oneLoop[$0] }
            let first = differing.first.map { "colour \($0 % 1000), channel \($0 / 1000)" } ?? "-"
            XCTAssertEqual(differing.count, 0, "local contrast \(detail): first at \(first)")
        }
    }
}
