import Foundation
import SDRifyMedia
import SDRifyProbe
import SDRifyValues

/// Where a data-driven title reads its numbers: a timed-metadata track of the input, or a GPX file.
package enum DataSource: Equatable, Sendable {
    case track(Int)
    case gpx(String)
}

/// Numbers over time (GPS positions, speeds, telemetry) read from a source, interpolated linearly between samples
/// and held at the ends, to fill a title's template per frame.
package struct DataSeries {
    private(set) var samples: [(t: Double, fields: [String: Double])]
    private let columns: [String: [(t: Double, v: Double)]]  // per field, in time order

    var fieldNames: Set<String> { Set(columns.keys) }
    var span: ClosedRange<Double> { (samples.first?.t ?? 0)...(samples.last?.t ?? 0) }

    package init(samples: [(t: Double, fields: [String: Double])]) {
        self.samples = samples.sorted { $0.t < $1.t }
        var c: [String: [(t: Double, v: Double)]] = [:]
        for s in self.samples { for (k, v) in s.fields where v.isFinite { c[k, default: []].append((s.t, v)) } }
        columns = c
    }

    static func load(_ source: DataSource, input: String?, label: String) throws -> DataSeries {
        let series: DataSeries
        switch source {
        case .gpx(let path): series = try gpx(path)
        case .track(let n):
            guard let input else { throw SDRifyError.usage("\(label): a track source reads the input of convert (compose has none to read)") }
            series = try track(n, of: input)
        }
        guard !series.samples.isEmpty else { throw SDRifyError.invalidInput("\(label): the source holds no numbers") }
        return series
    }

    /// The fields at `t`: each interpolated between the samples around it that have it.
    func fields(at t: Double) -> [String: Double] {
        var out: [String: Double] = [:]
        for (name, column) in columns {
            guard let first = column.first, let last = column.last else { continue }
            if t <= first.t { out[name] = first.v; continue }
            if t >= last.t { out[name] = last.v; continue }
            var lo = 0, hi = column.count - 1  // column[lo].t <= t < column[hi].t
            while hi - lo > 1 { let mid = (lo + hi) / 2; if column[mid].t <= t { lo = mid } else { hi = mid } }
            let (a, b) = (column[lo], column[hi])
            out[name] = a.v + (b.v - a.v) * (b.t > a.t ? (t - a.t) / (b.t - a.t) : 0)
        }
        return out
    }

    /// Speeds in every unit a template may ask for, from metres per second.
    static func withSpeeds(_ f: [String: Double]) -> [String: Double] {
        var f = f
        if f["speed_mps"] == nil { f["speed_mps"] = f["speed_2d_mps"] ?? f["speed_3d_mps"] }
        if let v = f["speed_mps"] { f["speed_kmh"] = v * 3.6; f["speed_mph"] = v * 2.236936 }
        return f
    }

    /// Timed-metadata values of track `n`: positions and other objects by their numeric fields, numbers by the last
    /// part of their key, arrays by key and index.
    package static func track(_ n: Int, of path: String) throws -> DataSeries {
        var samples: [(t: Double, fields: [String: Double])] = []
        for line in try TimedMetadata.lines(path: path, track: n) {
            guard case .object(let o) = line else { continue }
            let d = Dictionary(o.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
            guard case .double(let t)? = d["t"], case .string(let key)? = d["key"], let value = d["value"] else { continue }
            let name = key.split(separator: ".").last.map(String.init) ?? key
            var fields: [String: Double] = [:]
            func number(_ v: JSONValue) -> Double? {
                switch v {
                case .double(let x): x;
                case .int(let i): Double(i);
                default: nil
                }
            }
            switch value {
            case .object(let parts): for (k, v) in parts { if let x = number(v) { fields[k] = x } }
            case .array(let items): for (i, v) in items.enumerated() { if let x = number(v) { fields["\(name)_\(i)"] = x } }
            default: if let x = number(value) { fields[name] = x }
            }
            if let i = samples.lastIndex(where: { $0.t == t }) { samples[i].fields.merge(fields) { $1 } } else { samples.append((t, fields)) }
        }
        return DataSeries(samples: samples.map { ($0.t, withSpeeds($0.fields)) })
    }

    /// A GPX track: each point's position, elevation and time (seconds from the first point); speed from the
    /// distance to the previous point (or the point's own speed element).
    package static func gpx(_ path: String) throws -> DataSeries {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.invalidInput("\(path): cannot read the GPX file") }
        let reader = GPXReader()
        try XMLReader.read(data, path: path, what: "GPX", handler: reader)
        let points = reader.points.filter { $0.time != nil }
        guard let t0 = points.first?.time else { throw SDRifyError.invalidInput("\(path): no timed track points") }
        var samples: [(t: Double, fields: [String: Double])] = []
        for (i, p) in points.enumerated() {
            var f: [String: Double] = ["latitude": p.lat, "longitude": p.lon]
            if let e = p.ele { f["altitude_m"] = e }
            if let s = p.speed {
                f["speed_mps"] = s
            } else if i > 0, let dt = p.time.map({ $0.timeIntervalSince(points[i - 1].time!) }), dt > 0 {
                f["speed_mps"] = distance(points[i - 1].lat, points[i - 1].lon, p.lat, p.lon) / dt
            }
            samples.append((p.time!.timeIntervalSince(t0), withSpeeds(f)))
        }
        if samples.count > 1, samples[0].fields["speed_mps"] == nil {
            samples[0].fields = withSpeeds(samples[0].fields.merging(["speed_mps": samples[1].fields["speed_mps"] ?? 0]) { $1 })
        }
        return DataSeries(samples: samples)
    }

    /// Great-circle distance in metres.
    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8, rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad, dLon = (lon2 - lon1) * rad
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }

    final class GPXReader: XMLHandler {
        struct Point { var lat: Double, lon: Double; var ele: Double? = nil; var time: Date? = nil; var speed: Double? = nil }
        var points: [Point] = []
        private var current: Point? = nil
        private var text = ""
        private let iso = ISO8601DateFormatter()
        private let isoFraction: ISO8601DateFormatter = {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f
        }()

        func start(_ name: String, attributes a: [String: String]) {
            text = ""
            if name == "trkpt" || name == "rtept", let lat = a["lat"].flatMap(Double.init), let lon = a["lon"].flatMap(Double.init) {
                current = Point(lat: lat, lon: lon)
            }
        }
        func text(_ string: String) { text += string }
        func end(_ name: String) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name.split(separator: ":").last.map(String.init) ?? name {
            case "ele": current?.ele = Double(value)
            case "time": current?.time = iso.date(from: value) ?? isoFraction.date(from: value)
            case "speed": current?.speed = Double(value)
            case "trkpt", "rtept": if let p = current { points.append(p) }; current = nil
            default: break
            }
        }
    }
}

/// A title template: `{name}` or `{name:.Nf}` filled from a data series.
enum TitleTemplate {
    static let pattern = "\\{([A-Za-z_][A-Za-z0-9_-]*)(?::\\.([0-9])f)?\\}"

    static func fields(in text: String) -> [String] {
        let re = try! NSRegularExpression(pattern: pattern)
        return re.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }

    static func fill(_ text: String, with values: [String: Double]) -> String {
        let re = try! NSRegularExpression(pattern: pattern)
        var out = text
        for m in re.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            let name = String(text[Range(m.range(at: 1), in: text)!])
            let digits = Range(m.range(at: 2), in: text).map { Int(text[$0])! } ?? 1
            let value = values[name].map { String(format: "%.\(digits)f", $0) } ?? "–"
            out.replaceSubrange(Range(m.range, in: out)!, with: value)
        }
        return out
    }
}
