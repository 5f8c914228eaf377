import Foundation

/// Whether an ISO-BMFF/QuickTime movie box holds together: inside the boxes that hold nothing but boxes (moov, trak,
/// mdia, minf, stbl, edts, dinf, mvex), every child must fit within its parent. A damaged size (a box header
/// overwritten, say) makes the demuxer skip what follows without a word: a track loses its handler and is no
/// longer video, its sample table goes missing. What is left over at a container's end may only be zeros (the
/// 32-bit terminator QuickTime allows).
enum MovieStructure {
    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "mvex"]

    /// What is wrong with the file's movie box, or nil (also for files that are not ISO-BMFF or have no movie box):
    /// its structure, then its edit lists.
    static func problem(path: String) -> String? {
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return nil }
        return problem(in: moov, parent: "moov") ?? EditList.problem(inMovie: moov)
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
