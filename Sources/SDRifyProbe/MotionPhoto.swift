import Foundation
import SDRifyValues

/// A motion photo: a still (JPEG or HEIC) with a short movie (MP4) inside the same file, as Google's and Samsung's
/// cameras write them. Where the movie lies, from what the file says, in this order:
/// - a HEIF file's top-level `mpvd` box (Samsung HEIC);
/// - the XMP of Google's format: `Container:Directory` with a `MotionPhoto` item and its `Item:Length` (the movie
///   is that many bytes at the end of the file, before any `Item:Padding`), or the older `GCamera:MicroVideoOffset`
///   (the movie starts that many bytes before the end);
/// - Samsung's SEF trailer entry `MotionPhoto_Data` (the movie follows the entry's name);
/// and in each case the bytes found must start with an MP4 `ftyp` box. A photo that says it has a movie where
/// there is none is damage.
package struct MotionPhoto: Sendable, Equatable {
    package let format: String  // how the file says it: "Google XMP", "Google MicroVideo", "Samsung SEF", "HEIF mpvd"
    package let offset: UInt64, length: UInt64  // the movie's bytes

    /// An FFmpeg URL reading the movie alone out of `path` (its subfile protocol: no copy; `file:` so a colon in
    /// the path is not read as a protocol).
    package func movieURL(_ path: String) -> String { "subfile,,start,\(offset),end,\(offset + length),,:file:\(path)" }

    /// A message as people read it: a motion photo's movie named by its photo and where it lies in it, not by the
    /// URL it is read through ("subfile,,start,N,end,M,,:file:PATH" → "PATH (its movie, bytes N–M)").
    package static func readable(_ text: String) -> String {
        guard text.contains("subfile,,start,"),
            let pattern = try? NSRegularExpression(pattern: #"subfile,,start,([0-9]+),end,([0-9]+),,:file:(.+?)(?=: |\)|,|$)"#)
        else { return text }
        let range = NSRange(text.startIndex..., in: text)
        return pattern.stringByReplacingMatches(in: text, range: range, withTemplate: "$3 (its movie, bytes $1–$2)")
    }

    static func failure(_ path: String, _ what: String) -> SDRifyError { .invalidInput("\(path): damaged motion photo: \(what)") }

    /// Whether `path` starts as a photo that may hold a movie (a JPEG or a HEIF still): a video file is never one.
    package static func mayHoldAMovie(path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 64)) ?? Data()
        return head.starts(with: [0xFF, 0xD8]) || HEIFFile.looksLike(head)
    }

    /// The movie of `path`, nil when it is no motion photo; damage throws.
    package static func find(path: String) throws -> MotionPhoto? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        guard let size = try? h.seekToEnd(), size >= 16 else { return nil }
        func read(_ at: UInt64, _ n: Int) -> Data? {
            guard at < size, (try? h.seek(toOffset: at)) != nil else { return nil }
            return try? h.read(upToCount: n)
        }
        func isMovie(_ at: UInt64) -> Bool {
            guard let head = read(at, 12), head.count == 12 else { return false }
            let boxSize = QuickTimeMetadata.u32(head, 0)
            return Boxes.fourcc(head, 4) == "ftyp" && boxSize >= 12 && UInt64(boxSize) <= size - at
        }
        // Every place the file names, in order; the first that holds an MP4 wins (a Samsung photo can carry Google's
        // XMP and its own trailer, the movie before the trailer). Named places that all fail are damage.
        var claims: [(format: String, start: UInt64, end: UInt64)] = []
        let head = read(0, 1 << 18) ?? Data()
        if HEIFFile.looksLike(head), let top = TopLevelBoxes(path: path), let mpvd = top.boxes.first(where: { $0.type == "mpvd" }) {
            claims.append(("HEIF mpvd", mpvd.offset + mpvd.headerSize, mpvd.offset + mpvd.size))
        }
        let text = String(decoding: head, as: UTF8.self)
        var xmpDamage: String? = nil
        if text.contains("MotionPhoto") || text.contains("MicroVideo") {
            if let item = googleItemLength(text) {
                if item.length > 0, item.length + item.padding <= size {
                    claims.append(("Google XMP", size - item.padding - item.length, size - item.padding))
                } else {
                    xmpDamage = "its XMP gives the movie \(item.length) bytes"
                }
            } else if let offset = number(after: "MicroVideoOffset", in: text), offset > 0 {
                if offset <= size {
                    claims.append(("Google MicroVideo", size - offset, size))
                } else {
                    xmpDamage = "its XMP puts the movie before the file's start"
                }
            }
        }
        var trailerDamage: String? = nil
        do {
            if let entry = try SEFTrailer.entry("MotionPhoto_Data", path: path) {
                claims.append(("Samsung SEF", entry.offset, entry.offset + entry.length))
            }
        } catch let e as SDRifyError {
            trailerDamage = e.message
        }
        for c in claims where c.start < c.end && c.end <= size && isMovie(c.start) {
            return MotionPhoto(format: c.format, offset: c.start, length: c.end - c.start)
        }
        if let c = claims.first { throw failure(path, "the \(c.format) movie is not where the file says") }
        if let what = xmpDamage ?? (text.contains("MotionPhoto") ? trailerDamage : nil) { throw failure(path, what) }
        return nil
    }

    /// The `MotionPhoto` item of a Google `Container:Directory`: its `Item:Length`, and the padding after it.
    static func googleItemLength(_ xmp: String) -> (length: UInt64, padding: UInt64)? {
        guard let semantic = xmp.range(of: "Item:Semantic=\"MotionPhoto\"") ?? xmp.range(of: "<Item:Semantic>MotionPhoto</Item:Semantic>") else {
            return nil
        }
        // The item's attributes sit around its semantic, within its own element.
        let start = xmp[..<semantic.lowerBound].range(of: "<", options: .backwards)?.lowerBound ?? semantic.lowerBound
        let end = xmp[semantic.upperBound...].range(of: ">")?.upperBound ?? xmp.endIndex
        let element = String(xmp[start..<end])
        guard let length = number(after: "Item:Length", in: element) else { return nil }
        return (length, number(after: "Item:Padding", in: element) ?? 0)
    }

    /// The unsigned number in `name="…"` (or `<name>…</name>`).
    package static func number(after name: String, in text: String) -> UInt64? {
        for opener in ["\(name)=\"", "<\(name)>"] {
            guard let r = text.range(of: opener) else { continue }
            return UInt64(text[r.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }
}
