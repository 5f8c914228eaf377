import Foundation
@testable import SDRifyProbe
@testable import SDRifyRender
@testable import SDRifyValues
import XCTest

/// The time map (speed, slow motion) and the slow-motion rules, against androidx media3's own tests of its
/// SefSlowMotionFlattener (their layer sequences, segments and expected results).
final class RetimingTests: FolderTestCase {
    /// media3's layer sequence of a capture whose top layer is 3, repeated over the pictures.
    let layers = [0, 3, 2, 3, 1, 3, 2, 3]

    /// media3's test segments are given by picture index at 30 a second of file time: start at the first picture,
    /// end a millisecond before the picture after the last.
    func segment(_ first: Int, _ after: Int, _ divisor: Int) -> SlowMotion.Segment {
        SlowMotion.Segment(
            start: MediaTime(value: Int64(first * 1000 / 30), timescale: 1000), end: MediaTime(value: Int64(after * 1000 / 30 - 1), timescale: 1000),
            divisor: divisor)
    }

    func kept(rate: Int, segments: [SlowMotion.Segment], count: Int) -> [Int] {
        var sm = SlowMotion()
        sm.captureRate = rate
        sm.temporalLayers = 4
        sm.segments = segments
        guard let rule = SlowMotionThinning(sm) else { XCTFail("no thinning rule"); return [] }
        // media3 times its pictures in whole microseconds: i × 10⁶ / 30.
        return (0..<count).compactMap { i in
            let layer = layers[i % layers.count]
            return rule.keeps(layer: layer, at: MediaTime(value: Int64(i * 1_000_000 / 30), timescale: 1_000_000)) ? layer : nil
        }
    }

    func testThePicturesKeptAreMedia3s() {
        XCTAssertEqual(kept(rate: 240, segments: [segment(11, 17, 2), segment(31, 38, 8)], count: 46), [0, 0, 1, 0, 0, 1, 2, 3, 0, 3, 2, 3, 1, 3, 0])
        XCTAssertEqual(
            kept(rate: 120, segments: [segment(9, 17, 4), segment(31, 38, 8)], count: 46),
            [0, 1, 0, 3, 2, 3, 1, 3, 2, 3, 0, 1, 0, 1, 2, 3, 0, 3, 2, 3, 1, 3, 0, 1])
        XCTAssertEqual(kept(rate: 240, segments: [segment(11, 19, 2), segment(19, 22, 8)], count: 26), [0, 0, 1, 0, 2, 3, 1, 3, 0])
        let empty = [
            SlowMotion.Segment(start: MediaTime(value: 120, timescale: 1000), end: MediaTime(value: 130, timescale: 1000), divisor: 2),
            SlowMotion.Segment(start: MediaTime(value: 270, timescale: 1000), end: MediaTime(value: 280, timescale: 1000), divisor: 2)
        ]
        XCTAssertEqual(kept(rate: 240, segments: empty + [segment(11, 16, 2)], count: 16), [0, 0, 1])
    }

    func flattening(rate: Int, _ segments: [(Int64, Int64, Int)]) throws -> TimeMap {
        var sm = SlowMotion()
        sm.captureRate = rate
        sm.temporalLayers = 4
        sm.segments = segments.map {
            SlowMotion.Segment(start: MediaTime(value: $0.0, timescale: 1000), end: MediaTime(value: $0.1, timescale: 1000), divisor: $0.2)
        }
        return try XCTUnwrap(sm.flattening)
    }

    /// Output time of picture i (media3's microsecond input times), in microseconds rounded as media3 rounds.
    func outputMicroseconds(_ map: TimeMap, picture i: Int) -> Int64 {
        Int64((map.output(MediaTime(value: Int64(i * 1_000_000 / 30), timescale: 1_000_000)).seconds * 1e6).rounded())
    }

    func testPictureTimesAreMedia3s() throws {
        for rate in [240, 120] {
            let map = try flattening(rate: rate, [(50, 150, 2), (210, 360, 8)])
            // Inside the second segment, and after it.
            XCTAssertEqual(
                outputMicroseconds(map, picture: 9), Int64(((300.0 + 100 + (300 - 210) * 7) * 1000 * 30 / Double(rate)).rounded()), "\(rate)")
            XCTAssertEqual(
                outputMicroseconds(map, picture: 13), Int64(((433 + 1 / 3.0 + 100 + 150 * 7) * 1000 * 30 / Double(rate)).rounded()), "\(rate)")
        }
        let contiguous = try flattening(rate: 240, [(50, 210, 2), (210, 360, 8)])
        XCTAssertEqual(outputMicroseconds(contiguous, picture: 9), 136_250)
    }

    func testSpeedAndItsComposition() {
        let twice = TimeMap.speed(Speed(2)!)
        XCTAssertEqual(twice.output(MediaTime(value: 3, timescale: 1)), MediaTime(value: 3, timescale: 2))
        let quarter = TimeMap.speed(Speed(0.25)!)
        XCTAssertEqual(quarter.output(MediaTime(value: 1, timescale: 1)), MediaTime(value: 4, timescale: 1))
        XCTAssertTrue(TimeMap.speed(.normal).isIdentity)
        XCTAssertNil(Speed(0))
        XCTAssertNil(Speed(10))
        XCTAssertNil(Speed(.nan))
        // A flattened slow motion played twice as fast: every output time halves.
        let map = (try? flattening(rate: 240, [(100, 500, 8)])) ?? .identity
        let both = map.then(Speed(2)!)
        for ms in [0, 50, 100, 300, 500, 900] as [Int64] {
            let t = MediaTime(value: ms, timescale: 1000)
            XCTAssertEqual(both.output(t), map.output(t).scaled(1, 2), "\(ms) ms")
        }
        // Real speed outside (an eighth of file time), file speed inside an 8× segment.
        XCTAssertEqual(map.output(MediaTime(value: 100, timescale: 1000)).seconds, 0.0125, accuracy: 1e-12)
        XCTAssertEqual(
            (map.output(MediaTime(value: 500, timescale: 1000)) - map.output(MediaTime(value: 100, timescale: 1000))).seconds, 0.4, accuracy: 1e-12)
        XCTAssertEqual(map.rate(at: MediaTime(value: 200, timescale: 1000)), 1)
        // The inverse, exactly, on both sides of each piece's edge.
        for ms in [0, 50, 100, 101, 300, 499, 500, 900] as [Int64] {
            let t = MediaTime(value: ms, timescale: 1000)
            XCTAssertEqual(map.source(ofOutput: map.output(t)), t, "\(ms) ms")
            XCTAssertEqual(both.source(ofOutput: both.output(t)), t, "\(ms) ms, twice as fast")
        }
        XCTAssertEqual(map.pieceEnd(after: MediaTime(value: 200, timescale: 1000)), MediaTime(value: 500, timescale: 1000))
    }

    /// Samsung's smta box in the movie's user data, also when another tool wrote a user-data box before it.
    func testSmtaIsFoundInAnyUserDataBox() {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let n = UInt32(8 + payload.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + payload
        }
        let saut = box("saut", [0, 0, 0, 0, 0, 13, 1, 3])
        let moov =
            box("mvhd", [UInt8](repeating: 0, count: 20)) + box("udta", box("meta", [0, 0, 0, 0])) + box("udta", box("smta", [0, 0, 0, 0] + saut))
        let smta = SlowMotion.smta(inMovie: Data(moov))
        XCTAssertEqual(smta?.captureRate, 120)
        XCTAssertEqual(smta?.layers, 3)
        XCTAssertNil(SlowMotion.smta(inMovie: Data(box("udta", box("smta", [0, 0, 0, 0] + box("saut", [0, 0, 0, 0, 0, 99, 1, 3]))))))
    }

    /// Phones tag ordinary 60 fps recordings with their capture rate too: only slow-motion rates count.
    func testOnlySlowMotionRatesCount() {
        var sm = SlowMotion()
        sm.captureRate = 60
        XCTAssertFalse(sm.isSlowMotion)
        sm.captureRate = 120
        XCTAssertTrue(sm.isSlowMotion)
        XCTAssertFalse(sm.canFlatten, "no segments: the file's own timing")
    }

    func testSlowMotionSegmentsParse() throws {
        let s = try SEFTrailer.segments("88:879:2*1255:1970:4")
        XCTAssertEqual(s.map(\.divisor), [2, 8])
        XCTAssertEqual(s.map(\.start.seconds), [0.088, 1.255])
        for bad in ["88:879", "88:x:2", "879:88:2", "1:2:9", "1:2:0", "-1:2:2"] {
            XCTAssertThrowsError(try SEFTrailer.segments(bad), bad)
        }
        XCTAssertEqual(try SEFTrailer.segments("").count, 0)
    }

    /// A trailer written as Samsung writes it reads back; every cut or overwritten length is damage, never a
    /// crash or a guess.
    func testSEFTrailerReadsAndRefusesDamage() throws {
        let dir: URL = work
        func le(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let name = Array("SlowMotion_Data".utf8), body = Array("100:900:3".utf8)
        let datum = [0, 0, 0x90, 0x08] + le(name.count) + name + body
        let media = [UInt8](repeating: 7, count: 64)
        let directory = [0, 0, 0x90, 0x08] + le(datum.count) + le(datum.count)
        let trailer = Array("SEFH".utf8) + le(106) + le(1) + directory
        let file = media + datum + trailer + le(trailer.count) + Array("SEFT".utf8)
        let path = dir.appendingPathComponent("a.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(file)))
        let read = try XCTUnwrap(try SEFTrailer(path: path))
        XCTAssertEqual(read.segments.map(\.divisor), [4])
        XCTAssertEqual(read.segments.first?.end.seconds, 0.9)
        // Overwrite each byte of the trailer's numbers in turn: read or refused, never anything else.
        var refused = 0
        for at in (media.count + datum.count)..<file.count - 4 {
            var damaged = file
            damaged[at] ^= 0xA5
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
            do { _ = try SEFTrailer(path: path) } catch { refused += 1 }
        }
        XCTAssertGreaterThan(refused, 10)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(file.suffix(20))))
        XCTAssertThrowsError(try SEFTrailer(path: path), "a trailer longer than the file")
    }
}
