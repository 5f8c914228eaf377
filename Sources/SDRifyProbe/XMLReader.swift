import Foundation
import SDRifyValues

/// What an XML reader tells as it goes: elements opening (with their attributes, names as written, prefixes kept)
/// and closing, and the text between them (entities decoded, CDATA as text).
package protocol XMLHandler: AnyObject {
    func start(_ name: String, attributes: [String: String])
    func end(_ name: String)
    func text(_ text: String)
}

/// A small XML reader for the documents sdrify reads from strangers (TTML/iTT captions, GPX tracks), written here
/// because Foundation's `XMLParser` ends the process on some malformed input (a name that is not UTF-8, a processing
/// instruction without data). One pass, linear in the document's size; no DTD is read and no entity but the five
/// predefined ones and character references is expanded (so no entity bombs); the document must be well formed
/// (every element closed in order, one root). Comments, processing instructions and the document type are skipped.
package enum XMLReader {
    package struct Problem: Error { let line: Int; let message: String }

    /// Reads `data` (UTF-8, UTF-16 with its byte-order mark, or Latin-1 / Windows-1252 as its declaration says),
    /// telling `handler`. Throws an invalid-input error naming `path` and `what` the document should have been.
    package static func read(_ data: Data, path: String, what: String, handler: XMLHandler) throws {
        let bytes = Array(try utf8(data, path: path, what: what))
        do {
            try read(bytes, handler: handler)
        } catch let p as Problem {
            throw SDRifyError.invalidInput("\(path): malformed \(what) (line \(p.line): \(p.message))")
        }
    }

    /// The document as UTF-8 bytes: as it is when it is valid UTF-8, converted from UTF-16 (byte-order mark) or
    /// from a declared Latin-1 / Windows-1252; anything else is damaged.
    static func utf8(_ data: Data, path: String, what: String) throws -> Data {
        let encoding: String.Encoding
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            encoding = .utf16
        } else if String(validating: data, as: UTF8.self) != nil {
            return data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        } else {
            switch declaredEncoding(data)?.lowercased() {
            case "iso-8859-1", "latin1", "iso_8859-1": encoding = .isoLatin1
            case "windows-1252", "cp1252": encoding = .windowsCP1252
            default: throw SDRifyError.invalidInput("\(path): damaged \(what) (not UTF-8 text)")
            }
        }
        guard let text = String(data: data, encoding: encoding) else { throw SDRifyError.invalidInput("\(path): damaged \(what) (not text)") }
        return Data(text.replacingOccurrences(of: "\u{FEFF}", with: "").utf8)
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

    static func read(_ b: [UInt8], handler: XMLHandler) throws {
        var at = 0
        var open: [ArraySlice<UInt8>] = []
        var sawRoot = false
        func problem(_ message: String) -> Problem { Problem(line: 1 + b[..<min(at, b.count)].count { $0 == 0x0A }, message: message) }
        /// The index of `marker` at or after `from` (one forward scan), or a problem.
        func find(_ marker: [UInt8], from: Int, _ what: String) throws -> Int {
            var i = from
            while i + marker.count <= b.count {
                if b[i] == marker[0] && b[i..<(i + marker.count)].elementsEqual(marker) { return i }
                i += 1
            }
            throw problem("\(what) not closed")
        }
        func starts(_ s: String, at i: Int) -> Bool { b[i...].starts(with: s.utf8) }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func isNameByte(_ c: UInt8) -> Bool { !isSpace(c) && !"<>/=\"'&?!".utf8.contains(c) }

        while at < b.count {
            guard b[at] == UInt8(ascii: "<") else {
                let next = b[at...].firstIndex(of: UInt8(ascii: "<")) ?? b.count
                let text = b[at..<next]
                if open.isEmpty {
                    guard text.allSatisfy(isSpace) else { throw problem("text outside the root element") }
                } else {
                    handler.text(try decode(text, problem))
                }
                at = next
                continue
            }
            if starts("<?", at: at) {
                at = try find(Array("?>".utf8), from: at + 2, "a processing instruction") + 2
            } else if starts("<!--", at: at) {
                at = try find(Array("-->".utf8), from: at + 4, "a comment") + 3
            } else if starts("<![CDATA[", at: at) {
                guard !open.isEmpty else { throw problem("CDATA outside the root element") }
                let end = try find(Array("]]>".utf8), from: at + 9, "CDATA")
                handler.text(String(decoding: b[(at + 9)..<end], as: UTF8.self))
                at = end + 3
            } else if starts("<!", at: at) {
                // A document type: its internal subset (between [ and ]) is skipped whole, never read.
                let close = try find(Array(">".utf8), from: at + 2, "a declaration")
                if let bracket = b[(at + 2)..<close].firstIndex(of: UInt8(ascii: "[")) {
                    at = try find(Array("]".utf8), from: bracket + 1, "a document type")
                    at = try find(Array(">".utf8), from: at, "a document type") + 1
                } else {
                    at = close + 1
                }
            } else if starts("</", at: at) {
                var i = at + 2
                while i < b.count, isNameByte(b[i]) { i += 1 }
                let name = b[(at + 2)..<i]
                while i < b.count, isSpace(b[i]) { i += 1 }
                guard i < b.count, b[i] == UInt8(ascii: ">") else { throw problem("a closing tag not closed") }
                guard let top = open.last, top.elementsEqual(name) else {
                    throw problem("</\(String(decoding: name, as: UTF8.self))> closes nothing open")
                }
                open.removeLast()
                handler.end(String(decoding: name, as: UTF8.self))
                at = i + 1
            } else {
                var i = at + 1
                while i < b.count, isNameByte(b[i]) { i += 1 }
                let name = b[(at + 1)..<i]
                guard !name.isEmpty else { throw problem("a tag without a name") }
                guard !(open.isEmpty && sawRoot) else { throw problem("a second root element") }
                var attributes: [String: String] = [:]
                var selfClosing = false
                while true {
                    while i < b.count, isSpace(b[i]) { i += 1 }
                    guard i < b.count else { throw problem("a tag not closed") }
                    if b[i] == UInt8(ascii: ">") { i += 1; break }
                    if b[i] == UInt8(ascii: "/"), i + 1 < b.count, b[i + 1] == UInt8(ascii: ">") { selfClosing = true; i += 2; break }
                    let nameStart = i
                    while i < b.count, isNameByte(b[i]) { i += 1 }
                    let attribute = String(decoding: b[nameStart..<i], as: UTF8.self)
                    while i < b.count, isSpace(b[i]) { i += 1 }
                    guard !attribute.isEmpty, i < b.count, b[i] == UInt8(ascii: "=") else { throw problem("an attribute without a value") }
                    i += 1
                    while i < b.count, isSpace(b[i]) { i += 1 }
                    guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
                        throw problem("an attribute value without quotes")
                    }
                    let quote = b[i]
                    guard let close = b[(i + 1)...].firstIndex(of: quote) else { throw problem("an attribute value not closed") }
                    let value = b[(i + 1)..<close]
                    guard !value.contains(UInt8(ascii: "<")) else { throw problem("'<' in an attribute value") }
                    guard attributes.updateValue(try decode(value, problem), forKey: attribute) == nil else {
                        throw problem("attribute '\(attribute)' given twice")
                    }
                    i = close + 1
                }
                sawRoot = true
                handler.start(String(decoding: name, as: UTF8.self), attributes: attributes)
                if selfClosing { handler.end(String(decoding: name, as: UTF8.self)) } else { open.append(name) }
                at = i
            }
        }
        guard open.isEmpty else { throw problem("<\(String(decoding: open.last!, as: UTF8.self))> not closed") }
        guard sawRoot else { throw problem("no element") }
    }

    /// Text with its entity and character references decoded (only the predefined five: no DTD is read).
    package static func decode(_ s: ArraySlice<UInt8>, _ problem: (String) -> Problem) throws -> String {
        guard s.contains(UInt8(ascii: "&")) else { return String(decoding: s, as: UTF8.self) }
        var out = ""
        var i = s.startIndex
        while let amp = s[i...].firstIndex(of: UInt8(ascii: "&")) {
            out += String(decoding: s[i..<amp], as: UTF8.self)
            guard let semi = s[amp...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw problem("'&' that starts no reference") }
            let name = String(decoding: s[(amp + 1)..<semi], as: UTF8.self)
            switch name {
            case "lt": out += "<"
            case "gt": out += ">"
            case "amp": out += "&"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = name.hasPrefix("#x") ? UInt32(name.dropFirst(2), radix: 16) : name.hasPrefix("#") ? UInt32(name.dropFirst()) : nil
                guard let number, let scalar = Unicode.Scalar(number), number != 0 else { throw problem("unknown reference &\(name);") }
                out.unicodeScalars.append(scalar)
            }
            i = semi + 1
        }
        return out + String(decoding: s[i...], as: UTF8.self)
    }
}
