import Foundation
import SDRifyValues

/// What one caption file may ask of the burn-in: libass lays out every event on screen against all the others, so a
/// hostile file (200,000 cues within one second, one line of 5 MB) would hold a conversion for minutes. No real
/// caption comes near these; beyond them cues are cut or dropped, with one warning naming the file.
package enum CaptionLimits {
    static let charactersPerCue = 2_000
    static let cuesOnScreen = 16

    /// `cues` within the limits (in their order), and the warning to give, if any.
    package static func capped(_ cues: [Cue], label: String) -> (cues: [Cue], warning: String?) {
        let shown = fitting(cues.map { ($0.start, $0.end) })
        var cut = 0
        let kept = cues.indices.filter { shown[$0] }.map { i -> Cue in
            var cue = cues[i], left = charactersPerCue
            guard cue.lines.reduce(0, { $0 + $1.count }) > left else { return cue }
            cut += 1
            cue.lines = cue.lines.compactMap { line in
                guard left > 0 else { return nil }
                defer { left -= line.count }
                return line.count <= left ? line : String(line.prefix(left))
            }
            return cue
        }
        return (kept, warning(label, dropped: cues.count - kept.count, cut: cut))
    }

    /// An ASS script within the limits: dialogue lines cut to `charactersPerCue` past their fields, those beyond
    /// `cuesOnScreen` at once dropped.
    package static func capped(script: String, label: String) -> (script: String, warning: String?) {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false)
        var dialogue: [(line: Int, start: MediaTime, end: MediaTime)] = []
        var cut = 0
        for (n, line) in lines.enumerated() {
            guard let (_, s, e) = ASSScript.dialogue(line) else { continue }
            dialogue.append((n, MediaTime(seconds: s), MediaTime(seconds: e)))
            if line.count > charactersPerCue + 200 {  // room for the fields before the text
                lines[n] = line.prefix(charactersPerCue + 200)
                cut += 1
            }
        }
        let shown = fitting(dialogue.map { ($0.start, $0.end) })
        let dropped = Set(dialogue.indices.filter { !shown[$0] }.map { dialogue[$0].line })
        guard !dropped.isEmpty || cut > 0 else { return (script, nil) }
        let kept = lines.indices.filter { !dropped.contains($0) }.map { lines[$0] }
        return (kept.joined(separator: "\n"), warning(label, dropped: dropped.count, cut: cut))
    }

    /// Which of the spans fit: taken in order of start, a span is kept while fewer than `cuesOnScreen` kept ones
    /// still show at its start. One sort, then linear (at most `cuesOnScreen` are ever showing).
    static func fitting(_ spans: [(start: MediaTime, end: MediaTime)]) -> [Bool] {
        var keep = [Bool](repeating: false, count: spans.count)
        var showing: [MediaTime] = []  // the ends of the kept spans still on screen
        for i in spans.indices.sorted(by: { spans[$0].start < spans[$1].start || spans[$0].start == spans[$1].start && $0 < $1 }) {
            showing.removeAll { $0 <= spans[i].start }
            guard showing.count < cuesOnScreen else { continue }
            showing.append(spans[i].end)
            keep[i] = true
        }
        return keep
    }

    static func warning(_ label: String, dropped: Int, cut: Int) -> String? {
        var parts: [String] = []
        if dropped > 0 { parts.append("\(dropped) cue\(dropped == 1 ? "" : "s") left out (more than \(cuesOnScreen) on screen at once)") }
        if cut > 0 { parts.append("\(cut) cue\(cut == 1 ? "" : "s") cut to \(charactersPerCue) characters") }
        return parts.isEmpty ? nil : "\(label): \(parts.joined(separator: ", "))"
    }
}
