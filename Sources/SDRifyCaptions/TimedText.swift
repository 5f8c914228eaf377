import Foundation
import SDRifyProbe
import SDRifyValues

/// TTML (and Apple's iTT profile of it) → cues: every `p` with its timing (begin/end/dur, nested time containers,
/// clock times, frames, ticks and offsets), its text with `br` breaks, its styling (italic, bold, underline, colour,
/// from referenced styles or inline) and its region's placement (top, middle or bottom).
package enum TimedTextReader {
    package static func cues(_ data: Data, path: String) throws -> [Cue] {
        let reader = Reader()
        try XMLReader.read(data, path: path, what: "TTML", handler: reader)
        if let problem = reader.problem { throw SDRifyError.invalidInput("\(path): \(problem)") }
        guard !reader.cues.isEmpty else { throw SDRifyError.invalidInput("\(path): no captions found in the TTML") }
        return reader.cues.sorted { $0.start < $1.start }
    }

    /// Styling that children inherit.
    struct Style {
        var italic = false, bold = false, underline = false
        var color: RGBColor? = nil
        var region: String? = nil

        mutating func apply(_ a: [String: String]) {
            if let v = a["tts:fontStyle"] { italic = v == "italic" || v == "oblique" }
            if let v = a["tts:fontWeight"] { bold = v == "bold" }
            if let v = a["tts:textDecoration"] { underline = v.contains("underline") && !v.contains("noUnderline") }
            if let v = a["tts:color"], let c = TimedTextReader.color(v) { color = c == RGBColor(r: 255, g: 255, b: 255) ? nil : c }
            if let v = a["region"] { region = v }
        }
    }

    final class Reader: XMLHandler {
        package var cues: [Cue] = []
        var problem: String? = nil
        private var frameRate = 30.0, subFrameRate = 1.0, tickRate = 1.0
        private var styles: [String: [String: String]] = [:]
        private var regions: [String: [String: String]] = [:]
        private var stack: [(name: String, style: Style, begin: Double, end: Double?)] = []
        private var paragraph: (start: Double, end: Double, runs: [[TextRun]], style: Style)? = nil
        private var inHead = false, currentRegion: String? = nil

        private func local(_ name: String) -> String { name.split(separator: ":").last.map(String.init) ?? name }

        package func start(_ name: String, attributes a: [String: String]) {
            let tag = local(name)
            switch tag {
            case "tt":
                if let r = a["ttp:frameRate"].flatMap(Double.init) { frameRate = r }
                if let m = a["ttp:frameRateMultiplier"]?.split(separator: " ").compactMap({ Double($0) }), m.count == 2, m[1] != 0 {
                    frameRate *= m[0] / m[1]
                }
                if let s = a["ttp:subFrameRate"].flatMap(Double.init) { subFrameRate = s }
                tickRate = a["ttp:tickRate"].flatMap(Double.init) ?? (a["ttp:frameRate"] != nil ? frameRate : 1)
            case "head": inHead = true
            case "style" where inHead:
                if let id = a["xml:id"] {
                    var merged: [String: String] = [:]
                    for ref in (a["style"] ?? "").split(separator: " ") { merged.merge(styles[String(ref)] ?? [:]) { $1 } }
                    merged.merge(a) { $1 }
                    if let region = currentRegion { regions[region]?.merge(merged) { _, new in new } } else { styles[id] = merged }
                } else if let region = currentRegion {
                    regions[region]?.merge(a) { $1 }
                }
            case "region" where inHead:
                if let id = a["xml:id"] { regions[id] = a; currentRegion = id }
            default: break
            }
            guard !inHead else { return }
            var style = stack.last?.style ?? Style()
            for ref in (a["style"] ?? "").split(separator: " ") { style.apply(styles[String(ref)] ?? [:]) }
            style.apply(a)
            let parentBegin = stack.last?.begin ?? 0
            let begin = parentBegin + (a["begin"].flatMap(time) ?? 0)
            var end: Double? = a["end"].flatMap(time).map { parentBegin + $0 }
            if let d = a["dur"].flatMap(time) { end = min(end ?? .infinity, begin + d) }
            if let parentEnd = stack.last?.end { end = min(end ?? parentEnd, parentEnd) }
            stack.append((tag, style, begin, end))
            if tag == "p" { paragraph = (begin, end ?? begin, [[]], style) }
            if tag == "br", paragraph != nil { paragraph!.runs.append([]) }
        }

        package func end(_ name: String) {
            let tag = local(name)
            if tag == "head" { inHead = false; return }
            if tag == "region" { currentRegion = nil }
            guard !inHead, !stack.isEmpty else { return }
            let closed = stack.removeLast()
            guard tag == "p", let p = paragraph else { return }
            paragraph = nil
            guard closed.end != nil, p.end > p.start else {
                if closed.end == nil && problem == nil { problem = "a caption without an end or duration (p at \(p.start) s)" }
                return
            }
            let lines = p.runs.map { runs -> String in
                var r = runs
                if let i = r.indices.first { r[i].text = String(r[i].text.drop(while: { $0 == " " })) }
                if let i = r.indices.last { r[i].text = String(r[i].text.reversed().drop(while: { $0 == " " }).reversed()) }
                return SubtitleParser.markup(r.filter { !$0.text.isEmpty })
            }.filter { !$0.isEmpty }
            guard !lines.isEmpty else { return }
            cues.append(
                Cue(start: MediaTime(seconds: p.start), end: MediaTime(seconds: p.end), lines: lines, settings: placement(p.style.region)))
        }

        package func text(_ string: String) {
            guard paragraph != nil, let style = stack.last?.style else { return }
            // XML whitespace: runs of it are one space.
            let text = string.replacingOccurrences(of: "[ \\t\\r\\n]+", with: " ", options: .regularExpression)
            guard !text.isEmpty else { return }
            var run = TextRun(text: text, italic: style.italic, bold: style.bold, underline: style.underline, color: style.color)
            if let last = paragraph!.runs[paragraph!.runs.count - 1].last, last.sameStyle(as: run) {
                run.text = last.text + text
                paragraph!.runs[paragraph!.runs.count - 1].removeLast()
            }
            paragraph!.runs[paragraph!.runs.count - 1].append(run)
        }

        /// A region high on the picture places its captions at the top, one in the middle in the middle.
        private func placement(_ region: String?) -> [String: String] {
            guard let region, let r = regions[region] else { return [:] }
            let origin = r["tts:origin"]?.split(separator: " ").compactMap { Double($0.replacingOccurrences(of: "%", with: "")) } ?? []
            let extent = r["tts:extent"]?.split(separator: " ").compactMap { Double($0.replacingOccurrences(of: "%", with: "")) } ?? []
            guard origin.count == 2, r["tts:origin"]?.contains("%") == true else {
                return r["tts:displayAlign"] == "before" ? ["line": "0"] : [:]
            }
            let height = extent.count == 2 ? extent[1] : 100 - origin[1]
            let centre = origin[1] + height / 2
            if centre < 33 { return ["line": "0"] }
            if centre < 66 { return ["line": "50%,center"] }
            return [:]
        }

        /// A TTML time expression in seconds.
        func time(_ s: String) -> Double? {
            let t = s.trimmingCharacters(in: .whitespaces)
            let units: [(String, Double)] = [("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1), ("f", 1 / frameRate), ("t", 1 / tickRate)]
            for (unit, scale) in units where t.hasSuffix(unit) {
                if let v = Double(t.dropLast(unit.count)), v >= 0 { return v * scale }
                if unit == "ms" { continue }
                return nil
            }
            let parts = t.split(separator: ":").map(String.init)
            guard parts.count == 3 || parts.count == 4, let h = Double(parts[0]), let m = Double(parts[1]), let sec = Double(parts[2]) else {
                return nil
            }
            var seconds = h * 3600 + m * 60 + sec
            if parts.count == 4 {
                let f = parts[3].split(separator: ".").compactMap { Double($0) }
                guard let frames = f.first else { return nil }
                seconds += (frames + (f.count > 1 ? f[1] / subFrameRate : 0)) / frameRate
            }
            return seconds
        }
    }

    /// `#RRGGBB`, `#RRGGBBAA`, `rgb(…)`, `rgba(…)` or a TTML colour name.
    package static func color(_ v: String) -> RGBColor? {
        let t = v.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasPrefix("#"), t.count >= 7 { return RGBColor(hex: String(t.prefix(7))) }
        if t.hasPrefix("rgb") {
            let n = t.drop(while: { $0 != "(" }).dropFirst().prefix(while: { $0 != ")" }).split(separator: ",")
                .compactMap { UInt8($0.trimmingCharacters(in: .whitespaces)) }
            return n.count >= 3 ? RGBColor(r: n[0], g: n[1], b: n[2]) : nil
        }
        let names: [String: String] = [
            "white": "#FFFFFF", "black": "#000000", "red": "#FF0000", "lime": "#00FF00", "green": "#008000",
            "blue": "#0000FF", "yellow": "#FFFF00", "cyan": "#00FFFF", "aqua": "#00FFFF",
            "magenta": "#FF00FF", "fuchsia": "#FF00FF", "gray": "#808080", "silver": "#C0C0C0"
        ]
        return names[t].flatMap { RGBColor(hex: $0) }
    }
}
