import Foundation
import SDRifyValues

/// sdrify's mark on the files it writes, and finding it again: `-y` replaces only a file that carries it (see
/// `ExistingOutput`). Each format carries it where that format names the program that made a file: a movie's
/// encoder tag (`©too`, in `moov/udta`), a JPEG comment segment, a PNG `Software` text chunk, a WebP's XMP
/// `xmp:CreatorTool`. Caption text has no such place; it is recognised by its form instead (`ExistingOutput`).
package enum OutputMark {
    /// What every mark says: the program and its version.
    package static var text: String { "sdrify \(SDRifyVersion.number)" }
    /// What a mark begins with, whatever version wrote it.
    static let prefix = Array("sdrify ".utf8)

    /// The encoder tag a movie is written with (libavformat's own name kept after ours).
    package static func movieEncoder(libavformat: String) -> String { "\(text) (\(libavformat))" }

    // MARK: Writing

    /// `bytes` (a JPEG, PNG or WebP file as its encoder made it) with the mark added; unchanged if the format is
    /// none of those.
    package static func stamped(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.starts(with: [0xFF, 0xD8]) { return stampedJPEG(bytes) }
        if bytes.starts(with: pngSignature) { return stampedPNG(bytes) }
        if isWebP(bytes) { return stampedWebP(bytes) ?? bytes }
        return bytes
    }

    /// A comment segment after SOI and the JFIF segment (which must come first).
    private static func stampedJPEG(_ b: [UInt8]) -> [UInt8] {
        var at = 2
        if b.count > 6, b[2] == 0xFF, b[3] == 0xE0 { at = 4 + (Int(b[4]) << 8 | Int(b[5])) }
        guard at <= b.count else { return b }
        let comment = Array(text.utf8)
        let segment: [UInt8] = [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment
        return Array(b[..<at]) + segment + Array(b[at...])
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A `tEXt` chunk "Software" right after the header chunk.
    private static func stampedPNG(_ b: [UInt8]) -> [UInt8] {
        let afterHeader = 8 + 8 + 13 + 4  // signature, IHDR's length and type, its 13 bytes, its CRC
        guard b.count >= afterHeader else { return b }
        let body = Array("tEXtSoftware".utf8) + [0] + Array(text.utf8)
        let chunk = be32(UInt32(body.count - 4)) + body + be32(CRC32.of(body))
        return Array(b[..<afterHeader]) + chunk + Array(b[afterHeader...])
    }

    private static func isWebP(_ b: [UInt8]) -> Bool {
        b.count >= 20 && b[0..<4].elementsEqual("RIFF".utf8) && b[8..<12].elementsEqual("WEBP".utf8)
    }

    /// The simple format (one VP8 or VP8L chunk) turned into the extended one (VP8X first) with an XMP chunk after
    /// the picture, as the WebP container specification orders them.
    private static func stampedWebP(_ b: [UInt8]) -> [UInt8]? {
        let chunk = String(decoding: b[12..<16], as: UTF8.self)
        guard chunk == "VP8 " || chunk == "VP8L", let (width, height) = webPSize(b, chunk: chunk) else { return nil }
        let xmp = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="\(text)"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }
        func riffChunk(_ fourcc: String, _ payload: [UInt8]) -> [UInt8] {
            let n = UInt32(payload.count)
            return Array(fourcc.utf8) + [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)] + payload
                + (payload.count % 2 == 1 ? [0] : [])
        }
        let vp8x = riffChunk("VP8X", [0x04, 0, 0, 0] + le24(width - 1) + le24(height - 1))  // 0x04: XMP present
        let body = Array("WEBP".utf8) + vp8x + Array(b[12...]) + riffChunk("XMP ", xmp)
        let n = UInt32(body.count)
        return Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)] + body
    }

    /// The picture's size from its VP8 frame header or VP8L header.
    private static func webPSize(_ b: [UInt8], chunk: String) -> (Int, Int)? {
        if chunk == "VP8 " {
            guard b.count >= 30, b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return ((Int(b[26]) | Int(b[27]) << 8) & 0x3FFF, (Int(b[28]) | Int(b[29]) << 8) & 0x3FFF)
        }
        guard b.count >= 25, b[20] == 0x2F else { return nil }
        let bits = UInt32(b[21]) | UInt32(b[22]) << 8 | UInt32(b[23]) << 16 | UInt32(b[24]) << 24
        return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
    }

    // MARK: Reading

    /// What a file's first bytes say it is, as far as marks go.
    package enum Kind: Equatable {
        case movie  // ISO-BMFF or QuickTime with a movie box
        case segment  // a media segment of a segmented movie (moof first): no metadata of its own
        case jpeg, png, webp
        case other
    }

    package static func kind(head b: [UInt8]) -> Kind {
        if b.starts(with: [0xFF, 0xD8]) { return .jpeg }
        if b.starts(with: pngSignature) { return .png }
        if isWebP(b) { return .webp }
        if b.count >= 8 {
            let type = String(decoding: b[4..<8], as: UTF8.self)
            if ["styp", "moof", "sidx"].contains(type) { return .segment }
            if ["ftyp", "moov", "wide", "mdat", "free", "skip"].contains(type) { return .movie }
        }
        return .other
    }

    /// Whether the file at `path` carries the mark, read through its own structure (never libavformat: this runs
    /// before the sandbox closes, on a file nobody vouched for).
    package static func isMarked(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 1 << 16)) ?? Data())
        switch kind(head: head) {
        case .movie:
            guard let boxes = TopLevelBoxes(path: path), let moov = boxes.boxes.first(where: { $0.type == "moov" }),
                let payload = boxes.payload(of: moov, path: path, limit: 64 << 20)
            else { return false }
            return movieMetadataIsMarked(payload)
        case .jpeg: return jpegIsMarked(head)
        case .png: return pngIsMarked(head)
        case .webp: return webPIsMarked(handle: handle, head: head)
        case .segment, .other: return false
        }
    }

    /// The encoder tag among a movie's metadata: MP4's `udta/meta/ilst/©too`, QuickTime's `udta/©swr`, or a
    /// metadata key's value in `moov/meta`. The tag's own text is looked for ("sdrify N… (Lavf…"), not its path, so
    /// that each of the three layouts libavformat writes is read the same way.
    static func movieMetadataIsMarked(_ moov: Data) -> Bool {
        let tail = Array(" (Lavf".utf8)
        for box in Boxes.children("udta", in: moov) + Boxes.children("meta", in: moov) {
            let bytes = [UInt8](box)
            var from = 0
            while let at = firstIndex(of: prefix, in: bytes, from: from) {
                let rest = bytes[(at + prefix.count)...].prefix(64)
                if let digit = rest.first, (48...57).contains(digit), firstIndex(of: tail, in: Array(rest), from: 0) != nil { return true }
                from = at + 1
            }
        }
        return false
    }

    private static func firstIndex(of needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard needle.count <= hay.count, from <= hay.count - needle.count else { return nil }
        return (from...(hay.count - needle.count)).first { i in hay[i..<(i + needle.count)].elementsEqual(needle) }
    }

    /// A comment segment before the scan.
    static func jpegIsMarked(_ b: [UInt8]) -> Bool {
        guard let segments = try? GainMapJPEG.segments(b, from: 0) else { return false }
        return segments.contains { $0.marker == 0xFE && Array(b[$0.payload]).starts(with: prefix) }
    }

    /// A `tEXt` chunk "Software" before the picture data.
    static func pngIsMarked(_ b: [UInt8]) -> Bool {
        var at = 8
        while at + 8 <= b.count {
            let length = Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { return false }
            guard length >= 0, at + 12 + length <= b.count else { return false }
            if type == "tEXt", Array(b[(at + 8)..<(at + 8 + length)]).starts(with: Array("Software".utf8) + [0] + prefix) { return true }
            at += 12 + length
        }
        return false
    }

    /// The XMP chunk (after the picture, so read from where the chunks say it is).
    static func webPIsMarked(handle: FileHandle, head: [UInt8]) -> Bool {
        var at: UInt64 = 12
        while true {
            guard (try? handle.seek(toOffset: at)) != nil, let h = try? handle.read(upToCount: 8), h.count == 8 else { return false }
            let b = [UInt8](h)
            let size = UInt64(b[4]) | UInt64(b[5]) << 8 | UInt64(b[6]) << 16 | UInt64(b[7]) << 24
            if String(decoding: b[0..<4], as: UTF8.self) == "XMP " {
                guard size < 1 << 20, let x = try? handle.read(upToCount: Int(size)) else { return false }
                return String(decoding: x, as: UTF8.self).contains("xmp:CreatorTool=\"sdrify ")
            }
            at += 8 + size + size % 2
        }
    }

    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
}

/// The CRC-32 of PNG chunks (ISO 3309, the reflected polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func of(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { c, b in table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    }
}
