import Foundation

/// Whether an ISO-BMFF/QuickTime movie box holds together: inside the boxes that hold nothing but boxes (moov, trak,
/// mdia, minf, stbl, edts, dinf, mvex), every child must fit within its parent. A damaged size (a box header
/// overwritten, say) makes the demuxer skip what follows without a word: a track loses its handler and is no
/// longer video, its sample table goes missing. What is left over at a container's end may only be zeros (the
/// 32-bit terminator QuickTime allows).
package enum MovieStructure {
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex"]

    /// What is wrong with the file's movie box, or nil (also for files that are not ISO-BMFF or have no movie box):
    /// its structure, then its edit lists.
    package static func problem(path: String) -> String? {
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return nil }
        return problem(in: moov, parent: "moov") ?? EditList.problem(inMovie: moov)
    }

    /// Where a QuickTime reference movie says its video samples are: each data reference of the video track that is
    /// not this file (its URL, or "an alias record"); empty for a self-contained movie and for other files.
    package static func externalVideoData(path: String) -> [String] {
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return [] }
        for trak in Boxes.children("trak", in: moov) {
            guard let mdia = Boxes.child("mdia", in: trak), let hdlr = Boxes.child("hdlr", in: mdia), hdlr.count >= 12,
                Boxes.fourcc(hdlr, 8) == "vide", let minf = Boxes.child("minf", in: mdia), let dinf = Boxes.child("dinf", in: minf),
                let dref = Boxes.child("dref", in: dinf)
            else { continue }
            var elsewhere: [String] = []
            // Full box (4 bytes), entry count (4), then the entries: each a full box whose flag 1 means "in this file".
            for type in ["url ", "alis", "urn "] {
                for entry in Boxes.children(type, in: dref, skip: 8) where entry.count >= 4 && entry[entry.startIndex + 3] & 1 == 0 {
                    let location = type == "alis" ? aliasPath(entry) : String(decoding: entry.dropFirst(4).prefix { $0 != 0 }, as: UTF8.self)
                    elsewhere.append(location.map { $0.isEmpty ? "an alias record" : "'\($0)'" } ?? "an alias record")
                }
            }
            return elsewhere
        }
        return []
    }

    /// The absolute path a QuickTime alias record names (its extra data of type 2, after the 150-byte record), if any.
    static func aliasPath(_ entry: Data) -> String? {
        var at = 4 + 150  // after the full box's version and flags, and the record's fixed part
        while at + 4 <= entry.count {
            let b = entry.startIndex + at
            let type = Int16(bitPattern: UInt16(entry[b]) << 8 | UInt16(entry[b + 1])), length = Int(entry[b + 2]) << 8 | Int(entry[b + 3])
            guard type != -1, at + 4 + length <= entry.count else { return nil }
            if type == 2 { return String(decoding: entry[(b + 4)..<(b + 4 + length)], as: UTF8.self) }
            at += 4 + length + (length & 1)
        }
        return nil
    }

    static func problem(in data: Data, parent: String) -> String? {
        typealias Q = QuickTimeMetadata
        var at = 0
        while at < data.count {
            let left = data.count - at
            if left < 8 || Q.u32(data, at) == 0 {
                let rest = data[(data.startIndex + at)...]
                return rest.allSatisfy({ $0 == 0 }) ? nil : "damaged container: bytes at the end of '\(parent)' that are no box"
            }
            var size = UInt64(Q.u32(data, at)), header = 8
            let type = String(decoding: data[(data.startIndex + at + 4)..<(data.startIndex + at + 8)], as: UTF8.self)
            if size == 1 {  // a 64-bit size follows the type
                guard left >= 16 else { return "damaged container: the '\(type)' box in '\(parent)' is cut short" }
                size = Q.u64(data, at + 8)
                header = 16
            }
            guard size >= UInt64(header), size <= UInt64(left) else {
                return "damaged container: the '\(type)' box in '\(parent)' runs past its parent's end"
            }
            if containers.contains(type) {
                let start = data.startIndex + at + header, end = data.startIndex + at + Int(size)
                if let p = problem(in: Data(data[start..<end]), parent: type) { return p }
            }
            at += Int(size)
        }
        return nil
    }
}
