@testable import SDRifyLayers
import XCTest

/// Data-driven titles: a GPX track read, interpolated and filled into the template per step.
final class DataSeriesTests: FolderTestCase {
    func gpx() throws -> String {
        // Six points a second apart, each 0.0001° further north (11.12 m), climbing 2 m a second.
        let points = (0..<6).map { i in
            String(
                format: "<trkpt lat=\"%.4f\" lon=\"-0.1\"><ele>%d</ele><time>2026-05-01T10:00:0%dZ</time></trkpt>", 51.5 + Double(i) * 0.0001,
                20 + 2 * i, i)
        }.joined()
        let path = file("track.gpx")
        try Data("<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk><trkseg>\(points)</trkseg></trk></gpx>".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testGPXIsInterpolatedAndSpeedsComeFromDistance() throws {
        let path = try gpx()
        let series = try DataSeries.gpx(path)
        XCTAssertEqual(series.span, 0...5)
        let f = series.fields(at: 2.5)
        XCTAssertEqual(f["altitude_m"] ?? 0, 25, accuracy: 1e-9)
        XCTAssertEqual(f["latitude"] ?? 0, 51.50025, accuracy: 1e-9)
        XCTAssertEqual(f["speed_mps"] ?? 0, 11.12, accuracy: 0.01, "0.0001° of latitude a second")
        XCTAssertEqual(f["speed_kmh"] ?? 0, 40.03, accuracy: 0.05)
        XCTAssertEqual(series.fields(at: 99)["altitude_m"], 30, "held after the last point")
        XCTAssertEqual(TitleTemplate.fill("{speed_kmh:.0f} km/h  {altitude_m:.1f} m {nothing}", with: f), "40 km/h  25.0 m –")
        XCTAssertEqual(TitleTemplate.fields(in: "{a} {b-c:.2f} {d"), ["a", "b-c"])
    }

    func testTitleEventsFollowTheDataOnTheOutputClock() throws {
        let path = try gpx()
        var title = TitleSpec(text: "{altitude_m:.0f} m")
        title.source = .gpx(path)
        title.sourceOffset = 1  // the ride's 0 s is the output's 1 s
        let script = title.assScript(width: 640, height: 360, data: try DataSeries.gpx(path))
        let events = script.split(separator: "\n").filter { $0.hasPrefix("Dialogue:") }.map(String.init)
        // 20 m until 1 s, then a whole metre more every half second or so, then 30 m held to the end.
        XCTAssertTrue(events.first?.hasPrefix("Dialogue: 0,0:00:00.00,0:00:01.") == true, events.first ?? "")
        XCTAssertTrue(events.first?.hasSuffix("}20 m") == true, events.first ?? "")
        XCTAssertTrue(events.contains { $0.contains(",0:00:03.") && $0.hasSuffix("}24 m") }, "\(events)")
        XCTAssertTrue(events.last?.hasSuffix("}30 m") == true)
        XCTAssertTrue(events.last?.contains(",99:59:59.00,") == true, "the last value holds: \(events.last ?? "")")
        XCTAssertEqual(events.count, 11, "one event per distinct text: \(events)")
    }
}
