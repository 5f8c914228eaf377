import Foundation
import SDRifyValues

/// The key table of QuickTime timed-metadata tracks ('mebx' sample entries), read from the file's movie box: per
/// track ID, each local key ID with its namespace, name and declared data type (FFmpeg 5.1 does not expose them).
/// Also decodes one sample: a run of boxes, each typed by a local key ID, holding one value.
package struct QuickTimeMetadata {
    package struct Key: Equatable {
        let id: UInt32
        let namespace: String  // "mdta" (reverse-DNS names) or another four-character code
        package let name: String
        let dataType: UInt32?  // a well-known type (1 UTF-8, 23 float32, 24 float64, 65… integers, 70/71/72 points, sizes, rectangles)

        package init(id: UInt32, namespace: String, name: String, dataType: UInt32?) {
            self.id = id
            self.namespace = namespace
            self.name = name
            self.dataType = dataType
        }
    }

    /// Keys per track ID, for every 'mebx' track (empty when the file has none or is not ISO-BMFF).
    package let keys: [Int: [Key]]

    package init(path: String) {
        // Only the movie box is read into memory (it is small next to the media).
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let body = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { keys = [:]; return }
        var found: [Int: [Key]] = [:]
        for trak in QuickTimeMetadata.children(body, type: "trak") {
            guard let tkhd = QuickTimeMetadata.children(trak, type: "tkhd").first, tkhd.count >= 16 else { continue }
            let id = Int(QuickTimeMetadata.u32(tkhd, tkhd[tkhd.startIndex] == 1 ? 20 : 12))
            var stsd = [trak]
            for type in ["mdia", "minf", "stbl", "stsd"] { stsd = stsd.flatMap { QuickTimeMetadata.children($0, type: type) } }
            guard let entries = stsd.first, entries.count > 16 else { continue }
            let entry = entries.dropFirst(8)  // version, flags, entry count
            guard entry.count > 16, entry.dropFirst(4).prefix(4).elementsEqual("mebx".utf8) else { continue }
            let inner = entry.dropFirst(16).prefix(Int(QuickTimeMetadata.u32(entry, 0)) - 16)  // after the sample entry header
            guard let keysBox = QuickTimeMetadata.children(Data(inner), type: "keys").first else { continue }
            found[id] = QuickTimeMetadata.boxes(keysBox).compactMap { type, payload in
                guard let keyd = QuickTimeMetadata.children(payload, type: "keyd").first, keyd.count >= 4 else { return nil }
                let ns = String(decoding: keyd.prefix(4), as: UTF8.self)
                let name = String(decoding: keyd.dropFirst(4), as: UTF8.self)
                let dtyp = QuickTimeMetadata.children(payload, type: "dtyp").first
                let dataType = dtyp.flatMap { $0.count >= 8 && QuickTimeMetadata.u32($0, 0) == 0 ? QuickTimeMetadata.u32($0, 4) : nil }
                return Key(id: type, namespace: ns, name: name, dataType: dataType)
            }
        }
        keys = found
    }

    /// The boxes inside `data`, as (type as a number, payload).
    static func boxes(_ data: Data) -> [(UInt32, Data)] {
        var out: [(UInt32, Data)] = []
        var i = data.startIndex
        while i + 8 <= data.endIndex {
            let size = Int(u32(data, i - data.startIndex))
            guard size >= 8, i + size <= data.endIndex else { break }
            out.append((u32(data, i - data.startIndex + 4), Data(data[(i + 8)..<(i + size)])))
            i += size
        }
        return out
    }

    static func children(_ data: Data, type: String) -> [Data] {
        let code = type.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return boxes(data).filter { $0.0 == code }.map(\.1)
    }

    package static func u32(_ d: Data, _ at: Int) -> UInt32 {
        let s = d.startIndex + at
        guard s + 4 <= d.endIndex else { return 0 }
        return d[s..<(s + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    package static func u64(_ d: Data, _ at: Int) -> UInt64 { UInt64(u32(d, at)) << 32 | UInt64(u32(d, at + 4)) }

    /// One sample's values: each box's local key ID looked up in `keys`, its payload decoded by the declared type.
    package static func values(_ sample: Data, keys: [Key]) -> [(key: String, value: JSONValue)] {
        boxes(sample).compactMap { id, payload in
            guard let key = keys.first(where: { $0.id == id }) else { return nil }
            return (key.name, decode(payload, type: key.dataType, name: key.name))
        }
    }

    /// A value of a well-known QuickTime data type (big-endian numbers).
    package static func decode(_ p: Data, type: UInt32?, name: String) -> JSONValue {
        func f32(_ at: Int) -> Double { Double(Float(bitPattern: u32(p, at))) }
        func int(_ bytes: Int, signed: Bool) -> JSONValue {
            guard p.count >= bytes else { return .null }
            var v: UInt64 = 0
            for b in p.prefix(bytes) { v = v << 8 | UInt64(b) }
            if signed, bytes < 8, v & (1 << (UInt64(bytes) * 8 - 1)) != 0 { return .int(Int64(v) - Int64(1) << (Int64(bytes) * 8)) }
            return .int(Int64(bitPattern: v))
        }
        switch type {
        case 1?:
            let text = String(decoding: p, as: UTF8.self)
            if name.hasSuffix("ISO6709"), let location = ISO6709.parse(text) { return location }
            return .string(text)
        case 23?: return p.count >= 4 ? .double(f32(0)) : .null
        case 24?: return p.count >= 8 ? .double(Double(bitPattern: u64(p, 0))) : .null
        case 65?: return int(1, signed: true)
        case 66?: return int(2, signed: true)
        case 67?: return int(4, signed: true)
        case 74?: return int(8, signed: true)
        case 75?: return int(1, signed: false)
        case 76?: return int(2, signed: false)
        case 77?: return int(4, signed: false)
        case 78?: return int(8, signed: false)
        case 70?: return p.count >= 8 ? .object([("x", .double(f32(0))), ("y", .double(f32(4)))]) : .null
        case 71?: return p.count >= 8 ? .object([("width", .double(f32(0))), ("height", .double(f32(4)))]) : .null
        case 72?:
            return p.count >= 16
                ? .object([("x", .double(f32(0))), ("y", .double(f32(4))), ("width", .double(f32(8))), ("height", .double(f32(12)))]) : .null
        default: return .string(p.map { String(format: "%02x", $0) }.joined())
        }
    }

    package init(keys: [Int: [Key]]) {
        self.keys = keys
    }
}

/// ISO 6709 locations as phones write them: "+51.5334-000.1255+026.756/" (latitude, longitude, altitude in metres).
enum ISO6709 {
    static func parse(_ text: String) -> JSONValue? {
        var numbers: [Double] = []
        var current = ""
        for c in text {
            if c == "+" || c == "-" || c == "/" {
                if let v = Double(current) { numbers.append(v) }
                current = c == "/" ? "" : String(c)
            } else {
                current.append(c)
            }
        }
        if let v = Double(current) { numbers.append(v) }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        var fields: [(String, JSONValue)] = [("latitude", .double(numbers[0])), ("longitude", .double(numbers[1]))]
        if numbers.count >= 3 { fields.append(("altitude_m", .double(numbers[2]))) }
        return .object(fields)
    }
}
