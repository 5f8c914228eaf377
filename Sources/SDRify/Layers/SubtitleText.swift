import Foundation

/// One timed caption from an SRT or WebVTT file: its lines with their markup, and WebVTT's cue settings.
struct Cue: Equatable {
    var start: Double, end: Double   // seconds
    var lines: [String]
    var settings: [String: String] = [:]   // WebVTT: line, position, align (size and vertical are not honoured)

    /// The text without markup (for measuring and messages).
    var plainLines: [String] { lines.map(SubtitleParser.plain) }
}

/// SRT and WebVTT → cues. The timing line defines a cue; the lines after it, up to a blank line, are its text.
enum SubtitleParser {
    static func cues(_ text: String) -> [Cue] {
        var cues: [Cue] = []
        let body = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\u{FEFF}", with: "")
        for block in body.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { continue }
            let parts = lines[timing].components(separatedBy: "-->")
            guard parts.count == 2 else { continue }
            let after = parts[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let start = time(parts[0]), let end = after.first.flatMap(time), end > start else { continue }
            var settings: [String: String] = [:]
            for field in after.dropFirst() {
                let kv = field.split(separator: ":", maxSplits: 1).map(String.init)
                if kv.count == 2 { settings[kv[0]] = kv[1] }
            }
            let text = lines[(timing + 1)...].filter { !plain($0).trimmingCharacters(in: .whitespaces).isEmpty }
            if !text.isEmpty { cues.append(Cue(start: start, end: end, lines: text, settings: settings)) }
        }
        return cues
    }

    /// "HH:MM:SS,mmm", "HH:MM:SS.mmm" or "MM:SS.mmm".
    static func time(_ s: String) -> Double? {
        let fields = s.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: ".").split(separator: ":")
        guard (2...3).contains(fields.count) else { return nil }
        var seconds = 0.0
        for f in fields {
            guard let v = Double(f), v >= 0 else { return nil }
            seconds = seconds * 60 + v
        }
        return seconds
    }

    /// A line without tags, with entities decoded.
    static func plain(_ line: String) -> String {
        entities(line.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
                     .replacingOccurrences(of: "\\{\\\\an[1-9]\\}", with: "", options: .regularExpression))
    }

    static func entities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&nbsp;", with: "\u{00A0}").replacingOccurrences(of: "&lrm;", with: "\u{200E}")
            .replacingOccurrences(of: "&rlm;", with: "\u{200F}").replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// A line's markup as ASS overrides: <i> <b> <u> <s> and <font color> become styling, an SRT `{\anN}` keeps
    /// its placement, WebVTT's classes, voices, ruby and timestamps are dropped; other braces become parentheses
    /// (ASS would read them as overrides).
    static func assText(_ line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let open = rest.firstIndex(where: { $0 == "<" || $0 == "{" }) {
            out += ASSScript.escaped(entities(String(rest[..<open])))
            let tail = rest[open...]
            if tail.hasPrefix("{"), let close = tail.firstIndex(of: "}") {
                let inner = tail[tail.index(after: open)..<close]
                if inner.count == 4, inner.hasPrefix("\\an"), let n = inner.last?.wholeNumberValue, (1...9).contains(n) { out += "{\\an\(n)}" }
                else { out += "(" + ASSScript.escaped(String(inner)) + ")" }
                rest = tail[tail.index(after: close)...]
            } else if tail.hasPrefix("<"), let close = tail.firstIndex(of: ">") {
                out += tag(String(tail[tail.index(after: open)..<close]))
                rest = tail[tail.index(after: close)...]
            } else {
                out += tail.hasPrefix("{") ? "(" : "<"
                rest = tail.dropFirst()
            }
        }
        return out + ASSScript.escaped(entities(String(rest)))
    }

    private static func tag(_ body: String) -> String {
        let closing = body.hasPrefix("/")
        let name = body.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter }).lowercased()
        switch name {
        case "i", "b", "u", "s": return "{\\\(name)\(closing ? 0 : 1)}"
        case "font":
            if closing { return "{\\c}" }
            guard let m = body.range(of: "#[0-9A-Fa-f]{6}", options: .regularExpression), let c = RGBColor(hex: String(body[m])) else { return "" }
            return String(format: "{\\c&H%02X%02X%02X&}", c.b, c.g, c.r)
        default: return ""   // c.class, v Voice, lang, ruby, rt, timestamps
        }
    }
}
