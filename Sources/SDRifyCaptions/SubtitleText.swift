import Foundation
import SDRifyValues

/// One timed caption from an SRT or WebVTT file: its lines with their markup, and WebVTT's cue settings.
package struct Cue: Equatable {
    package var start: MediaTime, end: MediaTime
    package var lines: [String]
    package var settings: [String: String] = [:]  // WebVTT: line, position, align (size and vertical are not honoured)

    package init(start: MediaTime, end: MediaTime, lines: [String], settings: [String: String] = [:]) {
        self.start = start
        self.end = end
        self.lines = lines
        self.settings = settings
    }
}

/// A stretch of caption text in one style.
struct TextRun: Equatable {
    package var text: String
    var italic = false, bold = false, underline = false
    package var color: RGBColor? = nil
    func sameStyle(as o: TextRun) -> Bool { italic == o.italic && bold == o.bold && underline == o.underline && color == o.color }
}

/// SRT and WebVTT → cues. The timing line defines a cue; the lines after it, up to a blank line, are its text.
package enum SubtitleParser {
    package static func cues(_ text: String) -> [Cue] {
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
            var text = lines[(timing + 1)...].filter { !plain($0).trimmingCharacters(in: .whitespaces).isEmpty }
            // SRT's {\anN} placement becomes the cue's settings (as WebVTT writes them).
            for (i, line) in text.enumerated() {
                guard let r = line.range(of: "\\{\\\\an[1-9]\\}", options: .regularExpression),
                    let n = line[r].dropLast().last?.wholeNumberValue
                else { continue }
                text[text.startIndex + i].removeSubrange(r)
                settings["line"] = n >= 7 ? "0" : n >= 4 ? "50%,center" : settings["line"]
                if n % 3 != 2 { settings["align"] = n % 3 == 1 ? "start" : "end" }
            }
            if !text.isEmpty { cues.append(Cue(start: MediaTime(seconds: start), end: MediaTime(seconds: end), lines: text, settings: settings)) }
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
        entities(withoutTags(line).replacingOccurrences(of: "\\{\\\\an[1-9]\\}", with: "", options: .regularExpression))
    }

    /// Text without its `<…>` tags, in one pass: a "<" with no ">" after it anywhere is text (a pattern like
    /// `<[^>]*>` would scan to the end again from every such "<": hours on a hostile line of them).
    static func withoutTags(_ line: String) -> String {
        guard let lastClose = line.lastIndex(of: ">") else { return line }
        var out = ""
        var i = line.startIndex
        while i < line.endIndex {
            if line[i] == "<", i < lastClose, let close = line[i...].firstIndex(of: ">") {
                i = line.index(after: close)
                continue
            }
            out.append(line[i])
            i = line.index(after: i)
        }
        return out
    }

    /// Plain text as markup: the characters markup gives meaning to, as entities.
    static func escapedMarkup(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A line's markup as runs of text with their styling (tags this model does not know are dropped).
    static func runs(_ line: String) -> [TextRun] {
        var runs: [TextRun] = []
        var style = TextRun(text: "")
        var colors: [RGBColor?] = []
        var rest = Substring(line.replacingOccurrences(of: "\\{\\\\an[1-9]\\}", with: "", options: .regularExpression))
        func emit(_ text: Substring) {
            guard !text.isEmpty else { return }
            var r = style
            r.text = entities(String(text))
            if let last = runs.last, last.sameStyle(as: r) { runs[runs.count - 1].text += r.text } else { runs.append(r) }
        }
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            emit(rest[..<open])
            let body = rest[rest.index(after: open)..<close]
            let closing = body.hasPrefix("/")
            switch body.drop(while: { $0 == "/" }).prefix(while: \.isLetter).lowercased() {
            case "i": style.italic = !closing
            case "b": style.bold = !closing
            case "u": style.underline = !closing
            case "font":
                if closing {
                    style.color = colors.popLast() ?? nil
                } else {
                    colors.append(style.color)
                    if let m = body.range(of: "#[0-9A-Fa-f]{6}", options: .regularExpression) { style.color = RGBColor(hex: String(body[m])) }
                }
            default: break
            }
            rest = rest[rest.index(after: close)...]
        }
        emit(rest)
        return runs
    }

    /// Runs back to markup.
    /// `escaped: false` for SRT, where & and < are plain text.
    static func markup(_ runs: [TextRun], escaped: Bool = true) -> String {
        runs.map { r in
            var s = escaped ? escapedMarkup(r.text) : r.text
            if let c = r.color { s = "<font color=\"\(c.hex)\">\(s)</font>" }
            if r.underline { s = "<u>\(s)</u>" }
            if r.bold { s = "<b>\(s)</b>" }
            if r.italic { s = "<i>\(s)</i>" }
            return s
        }.joined()
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
    package static func assText(_ line: String) -> String {
        var out = ""
        var rest = Substring(line)
        // A bracket closes only if its closer comes later at all: asking saves a scan of the rest for every unclosed
        // one (quadratic on a hostile line of them).
        let lastBrace = line.lastIndex(of: "}"), lastAngle = line.lastIndex(of: ">")
        while let open = rest.firstIndex(where: { $0 == "<" || $0 == "{" }) {
            out += ASSScript.escaped(entities(String(rest[..<open])))
            let tail = rest[open...]
            if tail.hasPrefix("{"), let last = lastBrace, last > open, let close = tail.firstIndex(of: "}") {
                let inner = tail[tail.index(after: open)..<close]
                if inner.count == 4, inner.hasPrefix("\\an"), let n = inner.last?.wholeNumberValue, (1...9).contains(n) {
                    out += "{\\an\(n)}"
                } else {
                    out += "(" + ASSScript.escaped(String(inner)) + ")"
                }
                rest = tail[tail.index(after: close)...]
            } else if tail.hasPrefix("<"), let last = lastAngle, last > open, let close = tail.firstIndex(of: ">") {
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
        default: return ""  // c.class, v Voice, lang, ruby, rt, timestamps
        }
    }
}
