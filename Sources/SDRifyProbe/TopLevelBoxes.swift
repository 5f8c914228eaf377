import Foundation

/// The top-level boxes of an ISO-BMFF/QuickTime file, read from their headers only (nothing else is loaded).
package struct TopLevelBoxes {
    package struct Box { package let type: String; package let offset: UInt64; package let size: UInt64; package let headerSize: UInt64 }
    package let boxes: [Box]
    let fileSize: UInt64
    /// false when a box claims more bytes than the file has left (or a header is cut): the chain does not reach
    /// the end of the file exactly.
    package let complete: Bool

    package init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        fileSize = size
        var found: [Box] = [], offset: UInt64 = 0, whole = true
        while offset < size {
            guard (try? handle.seek(toOffset: offset)) != nil, let head = try? handle.read(upToCount: 16), head.count >= 8 else {
                whole = false; break
            }
            let bytes = [UInt8](head)
            var length = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var header: UInt64 = 8
            if length == 1 {  // a 64-bit size follows the type
                guard bytes.count == 16 else { whole = false; break }
                length = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                header = 16
            } else if length == 0 {
                length = size - offset  // "to the end of the file"
            }
            guard length >= header, length <= size - offset else { whole = false; break }
            found.append(Box(type: String(decoding: bytes[4..<8], as: UTF8.self), offset: offset, size: length, headerSize: header))
            offset += length
        }
        boxes = found
        complete = whole
    }

    /// A box's payload (after its header), read on demand; nil past `limit` bytes.
    package func payload(of box: Box, path: String, limit: Int = 1 << 20) -> Data? {
        guard box.size - box.headerSize <= UInt64(limit), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: box.offset + box.headerSize)) != nil else { return nil }
        return try? handle.read(upToCount: Int(box.size - box.headerSize))
    }

    /// Where the fragments a top-level segment index ('sidx') lists end: the first byte after the last one it
    /// references (its anchor, the byte after the box, plus first_offset plus every referenced size). nil without
    /// a sidx. A file shorter than that was cut short, even at a fragment boundary.
    package func indexedEnd(path: String) -> UInt64? {
        var end: UInt64? = nil
        for box in boxes where box.type == "sidx" {
            guard let p = payload(of: box, path: path), p.count >= 4 else { continue }
            let b = [UInt8](p)
            func be(_ at: Int, _ n: Int) -> UInt64? { at + n <= b.count ? b[at..<(at + n)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } : nil }
            let wide = b[0] == 1  // version 1: 64-bit earliest time and first offset
            let afterTimescale = 4 + 4 + 4
            let firstOffsetAt = afterTimescale + (wide ? 8 : 4)
            guard let firstOffset = be(firstOffsetAt, wide ? 8 : 4), let count = be(firstOffsetAt + (wide ? 8 : 4) + 2, 2) else { continue }
            var at = firstOffsetAt + (wide ? 8 : 4) + 4
            var total = box.offset + box.size + firstOffset
            for _ in 0..<count {
                guard let word = be(at, 4) else { break }
                total += word & 0x7FFF_FFFF
                at += 12
            }
            end = max(end ?? 0, total)
        }
        return end
    }
}
