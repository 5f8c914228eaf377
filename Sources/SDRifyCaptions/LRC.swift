import Foundation
import SDRifyValues

/// LRC lyrics: lines of `[mm:ss.xx]text` (several time tags may share one text; minutes may pass 59), ID tags
/// (`[ar:…]`, `[ti:…]`, `[offset:±ms]`: positive shows the lyrics that much sooner, `[length:mm:ss]`), and the
/// enhanced form's per-word times (`<mm:ss.xx>` before each word), which are read and taken out of the text; a line
/// with word times but no line time starts at its first word. A line shows until the next one starts; a time tag
/// with no text ends the line before it (an instrumental break); the last line shows for the median length of the
/// others (2–8 s) or until `[length]`.
package enum LRC {
    /// Whether a file's first lines are LRC: a time tag opens one of the first lines that are not ID tags, and
    /// nothing in them looks like an SRT or WebVTT timing line.
    package static func looksLike(_ head: Substring) -> Bool {
        guard !head.contains("-->") else { return false }
        for raw in head.split(whereSeparator: \.isNewline).prefix(40) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else {
                if line.isEmpty { continue } else { return false }
            }
            if time(line[line.index(after: line.startIndex)..<close]) != nil { return true }
        }
        return false
    }

    package static func cues(_ text: String, path: String) throws -> [Cue] {
        var entries: [(time: Double, text: String)] = []
        var offset = 0.0, length: Double? = nil
        for raw in text.split(whereSeparator: \.isNewline) {
            var rest = Substring(raw.trimmingCharacters(in: .whitespaces))
            var times: [Double] = []
            // Leading tags: times, or an ID tag (letters, a colon, a value).
            while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<close]
                if let t = time(inside) {
                    times.append(t)
                } else if let colon = inside.firstIndex(of: ":"), inside[..<colon].allSatisfy(\.isLetter), !inside[..<colon].isEmpty {
                    let value = inside[inside.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    switch inside[..<colon].lowercased() {
                    case "offset": offset = (Double(value) ?? 0) / 1000
                    case "length": length = time(Substring(value))
                    default: break
                    }
                } else {
                    break  // a bracket that is part of the lyric
                }
                rest = rest[rest.index(after: close)...]
            }
            let (lyric, firstWord) = withoutWordTimes(rest)
            if times.isEmpty, let firstWord { times = [firstWord] }
            for t in times { entries.append((t, lyric.trimmingCharacters(in: .whitespaces))) }
            guard entries.count <= LRC.maxLines else { throw SDRifyError.invalidInput("\(path): more than \(LRC.maxLines) timed lyric lines") }
        }
        entries = entries.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        // Lines that share a time are one cue of several lines; each cue ends where the next time begins.
        var groups: [(time: Double, lines: [String])] = []
        for e in entries {
            if let last = groups.last, last.time == e.time {
                if !e.text.isEmpty { groups[groups.count - 1].lines.append(e.text) }
            } else {
                groups.append((e.time, e.text.isEmpty ? [] : [e.text]))
            }
        }
        let gaps = zip(groups.dropFirst(), groups).map { $0.time - $1.time }.sorted()
        let lastLength = gaps.isEmpty ? LRC.lonelyLine : min(max(gaps[gaps.count / 2], 2), 8)
        var cues: [Cue] = []
        for (i, g) in groups.enumerated() where !g.lines.isEmpty {
            let start = max(g.time - offset, 0)
            let next = i + 1 < groups.count ? groups[i + 1].time - offset : max(length ?? 0, g.time - offset + lastLength)
            guard next > start else { continue }
            cues.append(
                Cue(start: MediaTime(seconds: start), end: MediaTime(seconds: next), lines: g.lines.map(SubtitleParser.escapedMarkup)))
        }
        return cues
    }

    /// Cues as LRC: each line of a cue its own entry at the cue's start (so a reader joins them again), and an
    /// empty entry where a cue ends before the next begins.
    package static func text(_ cues: [Cue]) -> String {
        var out = ""
        for (i, c) in cues.enumerated() {
            for line in c.lines { out += "[\(clock(c.start.seconds))]\(SubtitleParser.plain(line))\n" }
            if i + 1 == cues.count || cues[i + 1].start > c.end { out += "[\(clock(c.end.seconds))]\n" }
        }
        return out
    }

    /// mm:ss.xx, minutes past 59 as they are.
    package static func clock(_ t: Double) -> String {
        let cs = Int((max(t, 0) * 100).rounded())
        return String(format: "%02d:%02d.%02d", cs / 6000, cs / 100 % 60, cs % 100)
    }

    /// `mm:ss`, `mm:ss.xx` (any number of fraction digits) or `mm:ss:xx` (hundredths), in seconds.
    static func time(_ tag: Substring) -> Double? {
        let parts = tag.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let minutes = Int(parts[0]), minutes >= 0, minutes < 100_000,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } })
        else { return nil }
        guard let seconds = Double(parts[1]), seconds < 60 else { return nil }
        var t = Double(minutes) * 60 + seconds
        if parts.count == 3 {
            guard !parts[1].contains("."), let hundredths = Int(parts[2]), hundredths < 100 else { return nil }
            t += Double(hundredths) / 100
        }
        return t
    }

    /// The text without its `<mm:ss.xx>` word times, and the first of them.
    static func withoutWordTimes(_ s: Substring) -> (String, Double?) {
        var out = "", first: Double? = nil, rest = s
        while let open = rest.firstIndex(of: "<") {
            out += rest[..<open]
            guard let close = rest[open...].firstIndex(of: ">") else { rest = rest[open...]; break }
            if let t = time(rest[rest.index(after: open)..<close]) {
                if first == nil { first = t }
            } else {
                out += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return (out + rest, first)
    }

    /// More timed lines than any song or talk has: a bigger file is not lyrics.
    package static let maxLines = 100_000
    /// How long the only line of a file shows (seconds).
    static let lonelyLine = 5.0
}
