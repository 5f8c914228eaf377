import Foundation

/// What may be handed to Foundation's `XMLParser`: it traps (ends the process) on an element or attribute name that
/// is not valid UTF-8, which libxml2 passes on from a document it reads as UTF-8. A document read as UTF-8 (no
/// byte-order mark, no other encoding declared) must therefore be valid UTF-8; one in UTF-16 or a declared legacy
/// encoding is converted by libxml2 itself, which always hands over valid UTF-8.
enum XMLInput {
    /// `data` itself, or an invalid-input error naming `path` and `what` it should have been.
    static func checked(_ data: Data, path: String, what: String) throws -> Data {
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) { return data }
        if String(validating: data, as: UTF8.self) != nil { return data }
        if let encoding = declaredEncoding(data), !["utf-8", "utf8"].contains(encoding.lowercased()) { return data }
        throw SDRifyError.invalidInput("\(path): damaged \(what) (not UTF-8 text)")
    }

    /// The encoding named in the XML declaration (`<?xml … encoding="…"?>`), if any.
    static func declaredEncoding(_ data: Data) -> String? {
        let head = String(decoding: data.prefix(200), as: UTF8.self)
        guard head.hasPrefix("<?xml"), let end = head.range(of: "?>"), let e = head[..<end.lowerBound].range(of: "encoding=") else {
            return nil
        }
        let rest = head[e.upperBound..<end.lowerBound]
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return rest.dropFirst().prefix { $0 != quote }.description
    }
}
