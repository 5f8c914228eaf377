import Foundation
import SDRifyValues

/// The caption file formats sdrify reads and writes, told apart by extension (writing) or content (reading).
/// The caption formats sdrify reads and writes, described once: every list of them in a message, a help text, the
/// CLI and `tap` comes from this table. (Reading tells them apart by content, `CaptionFile.read`; writing is
/// `CaptionWriter`.)
package enum CaptionFormat: String, CaseIterable, Sendable {
    case srt, vtt, ass, ttml, itt, scc, lrc

    /// What people call it.
    package var name: String {
        switch self {
        case .srt: "SRT"
        case .vtt: "WebVTT"
        case .ass: "ASS"
        case .ttml: "TTML"
        case .itt: "iTT"
        case .scc: "SCC"
        case .lrc: "LRC"
        }
    }

    /// The extensions a file of it is named with, the one sdrify writes first.
    package var fileExtensions: [String] {
        switch self {
        case .srt: ["srt"]
        case .vtt: ["vtt", "webvtt"]
        case .ass: ["ass", "ssa"]
        case .ttml: ["ttml", "dfxp", "xml"]
        case .itt: ["itt"]
        case .scc: ["scc"]
        case .lrc: ["lrc"]
        }
    }

    /// Whether `tap` saves its timings in it: the formats whose lines people go on editing by hand (TTML, iTT and
    /// SCC are for delivery: `sdrify captions` makes them from a saved timing).
    package var savesTapTimings: Bool { [.srt, .ass, .lrc, .vtt].contains(self) }
    /// ".srt, .vtt, .ass or .lrc": the extensions `tap` saves a timing with.
    package static var tapTimingExtensions: String { extensions(allCases.filter(\.savesTapTimings)) }

    /// By the file's extension; nil for any other.
    package init?(path: String) {
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let format = CaptionFormat.allCases.first(where: { $0.fileExtensions.contains(ext) }) else { return nil }
        self = format
    }

    /// ".srt, .vtt, .ass, .ttml, .itt, .scc or .lrc": the extensions `formats` are written with.
    package static func extensions(_ formats: [CaptionFormat] = allCases) -> String {
        spokenList(formats.map { "." + $0.fileExtensions[0] })
    }

    /// "SRT, WebVTT, ASS, TTML, iTT, SCC or LRC" (`joiner` "and" for what is converted between).
    package static func names(_ joiner: String = "or") -> String { spokenList(allCases.map(\.name), joiner) }
}

/// A caption file read: an ASS script (rendered with its own styles) or cues in the common model (`Cue`: text with
/// <i>/<b>/<u>/<font color> markup and WebVTT-style placement).
package enum CaptionContent {
    case ass(String)
    case cues([Cue])
}

package enum CaptionFile {
    /// Reads and decodes a caption file of any supported format (by its content, so a misnamed file still reads).
    package static func read(_ path: String) throws -> CaptionContent {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.invalidInput("\(path): cannot read the captions") }
        let text = try decode(data, path: path)
        let head = text.prefix(4096)
        if head.contains("[Script Info]") { return .ass(text) }
        if head.hasPrefix("Scenarist_SCC") {
            let cues = try SCCReader.cues(text, path: path)
            guard !cues.isEmpty else { throw SDRifyError.invalidInput("\(path): no captions found in the SCC") }
            return .cues(cues)
        }
        if head.contains("<tt") && head.contains("http://www.w3.org/ns/ttml") || head.contains("<tt ") && text.contains("</tt>") {
            return .cues(try TimedTextReader.cues(data, path: path))
        }
        if LRC.looksLike(head) {
            let cues = try LRC.cues(text, path: path)
            guard !cues.isEmpty else { throw SDRifyError.invalidInput("\(path): no lyrics found in the LRC") }
            return .cues(cues)
        }
        let cues = SubtitleParser.cues(text)
        guard !cues.isEmpty else { throw SDRifyError.invalidInput("\(path): no captions found (expected SRT, WebVTT, ASS, TTML/iTT, SCC or LRC)") }
        return .cues(cues)
    }

    /// The cues of any caption file (an ASS script's dialogue lines with their basic overrides).
    package static func cues(_ path: String) throws -> [Cue] {
        switch try read(path) {
        case .cues(let c): c
        case .ass(let script): ASSReader.cues(script)
        }
    }

    /// The cues of a media file's text subtitle events (as libavformat gives them: ASS dialogue text, seconds).
    package static func cues(ofEvents events: [(start: Double, end: Double, text: String)]) -> [Cue] {
        events.compactMap { e in
            var settings: [String: String] = [:]
            let lines = ASSReader.markup(e.text, settings: &settings).components(separatedBy: "\n")
                .filter { !SubtitleParser.plain($0).trimmingCharacters(in: .whitespaces).isEmpty }
            return lines.isEmpty
                ? nil : Cue(start: MediaTime(seconds: e.start), end: MediaTime(seconds: e.end), lines: lines, settings: settings)
        }
    }

    /// UTF-16 with a byte-order mark (Windows tools write it), else UTF-8, else Windows-1252 (old SRT files).
    package static func decode(_ data: Data, path: String) throws -> String {
        let utf16 = data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF])
        guard
            let text = (utf16 ? String(data: data, encoding: .utf16) : nil) ?? String(data: data, encoding: .utf8)
                ?? String(data: data, encoding: .windowsCP1252) ?? String(data: data, encoding: .isoLatin1)
        else {
            throw SDRifyError.invalidInput("\(path): captions are not text")
        }
        return text.replacingOccurrences(of: "\u{FEFF}", with: "")
    }

    /// Times moved by `offset`; cues that end at or before 0 are dropped, those that start before 0 cut.
    package static func shifted(_ cues: [Cue], by offset: MediaTime) -> [Cue] {
        guard offset != .zero else { return cues }
        return retimed(cues) { $0 + offset }
    }

    /// Cues with their times moved by `time` (never backwards); those that end before 0 are dropped.
    package static func retimed(_ cues: [Cue], _ time: (MediaTime) -> MediaTime) -> [Cue] {
        cues.compactMap { c in
            var c = c
            c.start = time(c.start); c.end = time(c.end)
            guard c.end > .zero else { return nil }
            c.start = max(c.start, .zero)
            return c
        }
    }
}

/// ASS/SSA dialogue lines as cues: text with \N breaks, \i \b \u \c overrides as markup, \an as placement.
package enum ASSReader {
    package static func cues(_ script: String) -> [Cue] {
        var format: [String] = []
        var cues: [Cue] = []
        var inEvents = false
        for raw in script.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { inEvents = line.lowercased() == "[events]"; continue }
            guard inEvents else { continue }
            if line.hasPrefix("Format:") {
                format = line.dropFirst(7).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                continue
            }
            guard line.hasPrefix("Dialogue:"), let textIndex = format.firstIndex(of: "text") else { continue }
            let fields = line.dropFirst(9).split(separator: ",", maxSplits: format.count - 1, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == format.count,
                let s = format.firstIndex(of: "start").flatMap({ SubtitleParser.time(fields[$0]) }),
                let e = format.firstIndex(of: "end").flatMap({ SubtitleParser.time(fields[$0]) }), e > s
            else { continue }
            var settings: [String: String] = [:]
            let text = markup(fields[textIndex], settings: &settings)
            let lines = text.components(separatedBy: "\n").filter { !SubtitleParser.plain($0).trimmingCharacters(in: .whitespaces).isEmpty }
            if !lines.isEmpty { cues.append(Cue(start: MediaTime(seconds: s), end: MediaTime(seconds: e), lines: lines, settings: settings)) }
        }
        return cues.sorted { $0.start < $1.start }
    }

    /// An ASS text field as cue markup.
    static func markup(_ text: String, settings: inout [String: String]) -> String {
        var out = ""
        var rest = Substring(
            text.replacingOccurrences(of: "\\N", with: "\n").replacingOccurrences(of: "\\n", with: "\n")
                .replacingOccurrences(of: "\\h", with: "\u{00A0}"))
        var open: [String] = []
        while let brace = rest.firstIndex(of: "{") {
            out += SubtitleParser.escapedMarkup(String(rest[..<brace]))
            // No "}" after this brace means none after any later one: the rest is text (one scan, not one per brace).
            guard let close = rest[brace...].firstIndex(of: "}") else { rest = rest[brace...]; break }
            for tag in rest[rest.index(after: brace)..<close].split(separator: "\\") {
                let t = String(tag)
                for (name, mark) in [("i", "i"), ("b", "b"), ("u", "u")] where t == "\(name)1" || t == "\(name)0" {
                    if t.hasSuffix("1") {
                        out += "<\(mark)>"; open.append(mark)
                    } else if let k = open.lastIndex(of: mark) {
                        open.remove(at: k); out += "</\(mark)>"
                    }
                }
                if t.hasPrefix("an"), let n = Int(t.dropFirst(2)), (1...9).contains(n) {
                    settings["line"] = n >= 7 ? "0" : n >= 4 ? "50%,center" : "-1"
                    settings["align"] = ["start", "center", "end"][(n - 1) % 3]
                }
            }
            rest = rest[rest.index(after: close)...]
        }
        out += SubtitleParser.escapedMarkup(String(rest))
        for mark in open.reversed() { out += "</\(mark)>" }
        return out
    }
}

/// Where a time on an input's clock (a caption's, as its file gives it) shows once the input is cut at `cut` and
/// retimed by `map` (a speed, slow motion): the input's time `origin + t − cut` mapped, less where the output's 0 maps.
package struct CueClock: Equatable, Sendable {
    package let map: TimeMap
    package let origin: MediaTime  // the source time that becomes the output's 0
    let cut: MediaTime  // the input's time that becomes the output's 0

    package init(map: TimeMap, origin: MediaTime, cut: MediaTime) { self.map = map; self.origin = origin; self.cut = cut }

    package func output(_ t: MediaTime) -> MediaTime { map.output(origin + t - cut) - map.output(origin) }

    /// The input's time shown at output time `o` (the inverse).
    package func input(_ o: MediaTime) -> MediaTime { map.source(ofOutput: o + map.output(origin)) - origin + cut }
}
