import Foundation
import SDRifyValues

/// GoPro's GPMF telemetry ('gpmd' samples): nested key-length-value records (four-character key, type, structure
/// size, repeat count; data padded to four bytes). Each stream (STRM) carries its scale (SCAL) and one data record;
/// GPS5/GPS9 become positions, the rest (accelerometer, gyroscope, …) numbers.
package enum GPMF {
    struct Record {
        let key: String
        let type: UInt8  // 0: nested records
        let size: Int  // bytes of one structure
        let repeatCount: Int
        let payload: Data
    }

    static func records(_ data: Data) -> [Record] {
        var out: [Record] = []
        var i = data.startIndex
        while i + 8 <= data.endIndex {
            let key = String(decoding: data[i..<(i + 4)], as: UTF8.self)
            let type = data[i + 4], size = Int(data[i + 5]), count = Int(data[i + 6]) << 8 | Int(data[i + 7])
            let length = size * count, padded = (length + 3) & ~3
            guard i + 8 + length <= data.endIndex else { break }
            out.append(Record(key: key, type: type, size: size, repeatCount: count, payload: Data(data[(i + 8)..<(i + 8 + length)])))
            i += 8 + padded
        }
        return out
    }

    /// The numbers of a record, one array per structure, divided by `scale` (one divisor, or one per element).
    static func numbers(_ r: Record, scale: [Double]) -> [[Double]] {
        let width: Int
        switch r.type {
        case UInt8(ascii: "b"), UInt8(ascii: "B"): width = 1
        case UInt8(ascii: "s"), UInt8(ascii: "S"): width = 2
        case UInt8(ascii: "l"), UInt8(ascii: "L"), UInt8(ascii: "f"), UInt8(ascii: "q"): width = 4
        case UInt8(ascii: "d"), UInt8(ascii: "j"), UInt8(ascii: "J"), UInt8(ascii: "Q"): width = 8
        default: return []
        }
        guard r.size >= width else { return [] }
        let perStructure = r.size / width
        return (0..<r.repeatCount).map { k in
            (0..<perStructure).map { e in
                let at = r.payload.startIndex + k * r.size + e * width
                var raw: UInt64 = 0
                for b in r.payload[at..<(at + width)] { raw = raw << 8 | UInt64(b) }
                let value: Double
                switch r.type {
                case UInt8(ascii: "b"): value = Double(Int8(truncatingIfNeeded: raw))
                case UInt8(ascii: "s"): value = Double(Int16(truncatingIfNeeded: raw))
                case UInt8(ascii: "l"): value = Double(Int32(truncatingIfNeeded: raw))
                case UInt8(ascii: "j"): value = Double(Int64(bitPattern: raw))
                case UInt8(ascii: "f"): value = Double(Float(bitPattern: UInt32(raw)))
                case UInt8(ascii: "d"): value = Double(bitPattern: raw)
                case UInt8(ascii: "q"): value = Double(Int32(truncatingIfNeeded: raw)) / 65536
                case UInt8(ascii: "Q"): value = Double(Int64(bitPattern: raw)) / 4_294_967_296
                default: value = Double(raw)
                }
                let s = scale.isEmpty ? 1 : scale[min(e, scale.count - 1)]
                return s == 0 ? value : value / s
            }
        }
    }

    /// One sample's values spread evenly over its duration: (offset in seconds, key, value).
    package static func values(_ sample: Data, duration: Double) -> [(offset: Double, key: String, value: JSONValue)] {
        var out: [(offset: Double, key: String, value: JSONValue)] = []
        func streams(_ list: [Record]) {
            for r in list where r.type == 0 {
                if r.key == "STRM" { stream(GPMF.records(r.payload)) } else { streams(GPMF.records(r.payload)) }
            }
        }
        func stream(_ items: [Record]) {
            let scale = items.first { $0.key == "SCAL" }.map { numbers($0, scale: []).flatMap { $0 } } ?? []
            let skip: Set<String> = [
                "STMP", "TSMP", "STNM", "SIUN", "UNIT", "SCAL", "TYPE", "GPSF", "GPSU", "GPSP", "GPSA", "ORIN", "ORIO", "MTRX", "TMPC"
            ]
            guard let data = items.first(where: { !skip.contains($0.key) && $0.type != 0 }) else { return }
            let rows = numbers(data, scale: scale)
            for (k, row) in rows.enumerated() {
                let offset = rows.count > 0 ? duration * Double(k) / Double(rows.count) : 0
                if (data.key == "GPS5" || data.key == "GPS9"), row.count >= 5 {
                    out.append(
                        (
                            offset, "gps",
                            .object([
                                ("latitude", .double(row[0])), ("longitude", .double(row[1])),
                                ("altitude_m", .double(row[2])), ("speed_2d_mps", .double(row[3])),
                                ("speed_3d_mps", .double(row[4]))
                            ])
                        ))
                } else {
                    out.append((offset, data.key, .array(row.map { .double($0) })))
                }
            }
        }
        streams(records(sample))
        return out.sorted { $0.offset < $1.offset }
    }
}
