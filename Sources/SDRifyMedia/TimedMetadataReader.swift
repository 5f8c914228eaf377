import Foundation
import SDRifyProbe
import SDRifyValues

/// `sdrify probe FILE --timed-metadata`: every value of the timed-metadata tracks as JSON Lines.
package enum TimedMetadata {
    /// One line per value: {"t", "duration", "track", "key", "value"}. QuickTime 'mebx' values decoded by their
    /// declared types (ISO 6709 locations as latitude/longitude/altitude); GPMF GPS as positions and its other
    /// streams as numbers; other data tracks' samples as hex.
    package static func lines(path: String, track: Int? = nil) throws -> [JSONValue] {
        let demuxer = try Demuxer(path: path)
        if let track {
            guard demuxer.isDataTrack(track) else {
                throw SDRifyError.usage("\(path): track \(track) is not a timed-metadata (data) track")
            }
        }
        let table = QuickTimeMetadata(path: path)
        var out: [JSONValue] = []
        for sample in try demuxer.dataSamples(only: track) {
            let t = demuxer.track(sample.track)
            func line(_ key: String, _ value: JSONValue) -> JSONValue {
                .object([
                    ("t", .seconds(sample.time)),
                    ("duration", .seconds(sample.duration)),
                    ("track", .int(Int64(sample.track))), ("key", .string(key)), ("value", value)
                ])
            }
            if t.codecTag == "mebx", let keys = table.keys[demuxer.containerTrackID(sample.track)] {
                out += QuickTimeMetadata.values(sample.bytes, keys: keys).map { line($0.key, $0.value) }
            } else if t.codecTag == "gpmd" {
                let duration = sample.duration.seconds  // GPMF spreads its values over the sample by fractions of it
                let values = GPMF.values(sample.bytes, duration: duration)
                out += values.enumerated().map { k, v in
                    let next = k + 1 < values.count && values[k + 1].key == v.key ? values[k + 1].offset : duration
                    return .object([
                        ("t", .seconds(sample.time.seconds + v.offset)),
                        ("duration", .seconds(max(0, next - v.offset))),
                        ("track", .int(Int64(sample.track))), ("key", .string(v.key)), ("value", v.value)
                    ])
                }
            } else {
                out.append(line(t.codecTag ?? "data", .string(sample.bytes.map { String(format: "%02x", $0) }.joined())))
            }
        }
        return out
    }
}
