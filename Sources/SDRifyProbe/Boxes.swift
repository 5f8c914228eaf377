import Foundation

/// Walking the boxes of ISO-BMFF/QuickTime bytes held in memory (a movie box, a HEIF meta box): the one home for it.
/// `children` is lenient (it stops at the first malformed size, for reading what a file may or may not have);
/// `all` is strict (a box running past its parent is damage, for structures that must hold together).
package enum Boxes {
    package struct Box {
        package let type: String, payload: Data

        package init(type: String, payload: Data) { self.type = type; self.payload = payload }
    }

    /// The payloads of every `type` box among the boxes of `data`, in order (after `skip` bytes: a full box's
    /// header), up to the first malformed size.
    package static func children(_ type: String, in data: Data, skip: Int = 0) -> [Data] {
        var at = skip, found: [Data] = []
        while at + 8 <= data.count {
            let size = Int(QuickTimeMetadata.u32(data, at))
            guard size >= 8, size <= data.count - at else { break }
            if fourcc(data, at + 4) == type { found.append(Data(data[(data.startIndex + at + 8)..<(data.startIndex + at + size)])) }
            at += size
        }
        return found
    }

    /// The payload of the first `type` box among the boxes of `data`.
    package static func child(_ type: String, in data: Data, skip: Int = 0) -> Data? { children(type, in: data, skip: skip).first }

    /// Every box in `data` from `from`; one running past its parent throws `damage` (at a file's top level a cut-short
    /// media data box at the end is let be when `tolerateTail`: it is checked where it is read).
    package static func all(_ data: Data, from: Int = 0, in parent: String, tolerateTail: Bool = false, damage: (String) -> Error) throws -> [Box] {
        var out: [Box] = [], at = from
        while at + 8 <= data.count {
            var size = UInt64(QuickTimeMetadata.u32(data, at)), header = 8
            let type = fourcc(data, at + 4)
            if size == 1 {
                guard at + 16 <= data.count else { throw damage("the '\(type)' box in \(parent) is cut short") }
                size = QuickTimeMetadata.u64(data, at + 8)
                header = 16
            } else if size == 0 {
                size = UInt64(data.count - at)
            }
            guard size >= UInt64(header) else { throw damage("the '\(type)' box in \(parent) has a size of \(size)") }
            guard size <= UInt64(data.count - at) else {
                if tolerateTail && type == "mdat" { break }
                throw damage("the '\(type)' box in \(parent) runs past its end")
            }
            out.append(Box(type: type, payload: Data(data[(data.startIndex + at + header)..<(data.startIndex + at + Int(size))])))
            at += Int(size)
        }
        return out
    }

    /// The four characters at `at` (unprintable bytes as '?').
    package static func fourcc(_ d: Data, _ at: Int) -> String {
        String(decoding: d[(d.startIndex + at)..<(d.startIndex + at + 4)].map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self)
    }
}
