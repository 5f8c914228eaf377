import Foundation
import SDRifyValues

/// What 608 cannot hold in a caption file, found by `SCCWriter` (repaired with `fix`).
struct CaptionProblem: Sendable {
    let cue: Int  // 1-based
    let time: Double  // the cue's start, seconds
    let message: String
    var line: String { "cue \(cue) (\(CEA608.timecode(frame: CEA608.frame(atSeconds: time)))): \(message)" }
}

/// Cues → Scenarist SCC: CEA-608 pop-on captions on channel 1 at 29.97 fps drop-frame time code. Each caption is
/// loaded into the hidden memory ahead of its start (RCL, ENM, a preamble address per row, the text, mid-row codes
/// for italics, underline and colour), shown by EOC on a line of its own at its start, and erased (EDM) at its end
/// unless the next one replaces it then. Control codes are sent twice, as decoders expect.
///
/// The validator reports what 608 cannot hold: rows longer than 32 columns, more than four rows, characters outside
/// the 608 sets, captions that overlap, and captions too close together to load at two bytes a frame. With `fix` it
/// repairs them (wraps, splits, maps characters, moves loads or starts) and says what it changed; without, the first
/// problem is the error.
enum SCCWriter {
    struct Result { let text: String; let repairs: [String] }

    package static func write(_ input: [Cue], fix: Bool) throws -> Result {
        var repairs: [String] = []
        func problem(_ index: Int, _ cue: Cue, _ message: String, repaired: String) throws {
            let p = CaptionProblem(cue: index + 1, time: cue.start.seconds, message: message)
            guard fix else { throw SDRifyError.invalidInput("SCC: \(p.line) (--fix repairs it)") }
            repairs.append("\(p.line): \(repaired)")
        }
        // 1. Text: characters 608 has, rows of at most 32 columns, at most four rows.
        var captions: [(cue: Cue, rows: [[TextRun]])] = []
        for (i, original) in input.enumerated() {
            var cue = original
            var rows: [[TextRun]] = []
            for line in cue.lines {
                var runs = SubtitleParser.runs(line)
                for k in runs.indices {
                    var text = ""
                    for c in runs[k].text {
                        if CEA608.encodings[c] != nil { text.append(c); continue }
                        if c == "\t" { text.append(" "); continue }
                        let mapped = CEA608.substitute(c) ?? "?"
                        try problem(
                            i, cue, "'\(c)' (U+\(String(c.unicodeScalars.first!.value, radix: 16, uppercase: true))) is not a 608 character",
                            repaired: "written as '\(mapped)'")
                        text += mapped
                    }
                    runs[k].text = text
                    if runs[k].bold { runs[k].bold = false }  // 608 has no bold: dropped without a word
                    if let c = runs[k].color, !CEA608.colors.contains(c) { runs[k].color = nil }
                }
                rows.append(runs)
            }
            if let long = rows.first(where: { width($0) > CEA608.columns }) {
                try problem(i, cue, "a row of \(width(long)) columns (608 has 32)", repaired: "wrapped at 32 columns")
                rows = wrap(rows)
            }
            if rows.count > CEA608.maxRows {
                try problem(
                    i, cue, "\(rows.count) rows (a 608 caption holds 4)", repaired: "split into \((rows.count + 3) / 4) captions over its time")
                let parts = stride(from: 0, to: rows.count, by: CEA608.maxRows).map { Array(rows[$0..<min($0 + CEA608.maxRows, rows.count)]) }
                let step = (cue.end - cue.start).seconds / Double(parts.count)
                for (k, part) in parts.enumerated() {
                    var piece = cue
                    piece.start = cue.start + MediaTime(seconds: Double(k) * step)
                    piece.end = piece.start + MediaTime(seconds: step)
                    captions.append((piece, part))
                }
                continue
            }
            cue.lines = rows.map { SubtitleParser.markup($0) }
            captions.append((cue, rows))
        }
        // 2. Time: one caption at a time, each loaded between the previous one's display and its own.
        var frames = captions.map { (start: CEA608.frame(atSeconds: $0.cue.start.seconds), end: CEA608.frame(atSeconds: $0.cue.end.seconds)) }
        let loads = captions.map { load(rows: $0.rows, settings: $0.cue.settings) }
        var lines: [(frame: Int, words: [UInt16])] = []
        for k in captions.indices {
            if k > 0, frames[k].start < frames[k - 1].end {
                try problem(
                    k, captions[k].cue, "starts before the previous caption ends (608 shows one pop-on caption at a time)",
                    repaired: "the previous one now ends where this one starts")
                frames[k - 1].end = frames[k].start
            }
            // The load goes after the previous caption is shown (its EOC line) and before this EOC. The previous caption's
            // erase may fall inside it: it is sent in the middle of the load (it clears the shown memory, the load fills
            // the hidden one), two frames more.
            let n = loads[k].count
            let previousShown = k > 0 ? frames[k - 1].start + 2 : 0
            let erase: Int? = k > 0 && frames[k - 1].end < frames[k].start ? frames[k - 1].end : nil
            /// Where a load that begins at `from` is split by the erase (words before it), or nil when it is not.
            func split(from: Int) -> Int? { erase.flatMap { $0 >= from && $0 < from + n ? $0 - from : nil } }
            func loadEnd(from: Int) -> Int { from + n + (split(from: from) == nil ? 0 : 2) }
            // The latest start that ends by this caption's start, if it is not before the previous one is shown.
            var from = frames[k].start - n
            if loadEnd(from: from) > frames[k].start { from -= 2 }
            if split(from: from) == nil, let e = erase, from < e + 2, from + n > e { from = e - n }  // before the erase, whole
            if from < previousShown {
                from = previousShown
                let start = max(loadEnd(from: from), frames[k].start + 1)
                try problem(
                    k, captions[k].cue, "needs \(loadEnd(from: from) - from) frames to load and has \(max(0, frames[k].start - from))",
                    repaired: String(format: "starts %.3f s later", CEA608.seconds(atFrame: start - frames[k].start)))
                frames[k].end = max(frames[k].end, start + 15)
                frames[k].start = start
            }
            let erasing = [word(0x14, CEA608.eraseDisplayed), word(0x14, CEA608.eraseDisplayed)]
            if let e = erase, let cut = split(from: from) {
                lines.append((from, Array(loads[k][..<cut])))
                lines.append((e, erasing + loads[k][cut...]))
            } else {
                if let e = erase { lines.append((e, erasing)) }
                lines.append((from, loads[k]))
            }
            lines.append((frames[k].start, [word(0x14, CEA608.endOfCaption), word(0x14, CEA608.endOfCaption)]))
        }
        if let last = frames.last { lines.append((last.end, [word(0x14, CEA608.eraseDisplayed), word(0x14, CEA608.eraseDisplayed)])) }
        lines.sort { $0.frame < $1.frame }
        var text = "Scenarist_SCC V1.0\n"
        for line in lines {
            text += "\n\(CEA608.timecode(frame: line.frame))\t" + line.words.map { String(format: "%04x", $0) }.joined(separator: " ") + "\n"
        }
        return Result(text: text, repairs: repairs)
    }

    /// One transmitted word: two bytes with odd parity.
    static func word(_ a: UInt8, _ b: UInt8) -> UInt16 { UInt16(CEA608.parity(a)) << 8 | UInt16(CEA608.parity(b)) }

    /// Whether a mid-row code goes before run `k` (a change of style; at the row's start, any styling).
    static func changesStyle(_ runs: [TextRun], at k: Int) -> Bool {
        k == 0 ? runs[0].italic || runs[0].underline || runs[0].color != nil : !runs[k].sameStyle(as: runs[k - 1])
    }

    /// A mid-row code shows as a space: the space before it in the text is not sent again.
    static func spaced(_ runs: [TextRun]) -> [TextRun] {
        var out = runs
        for k in out.indices.dropFirst() where changesStyle(out, at: k) && out[k - 1].text.hasSuffix(" ") { out[k - 1].text.removeLast() }
        return out
    }

    /// Columns a row takes: its characters and a space for each change of style (a mid-row code).
    package static func width(_ input: [TextRun]) -> Int {
        let runs = spaced(input)
        return runs.indices.reduce(0) { n, k in n + runs[k].text.count + (changesStyle(runs, at: k) ? 1 : 0) }
    }

    /// Rows re-flowed word by word into rows of at most 32 columns (style kept per word).
    static func wrap(_ rows: [[TextRun]]) -> [[TextRun]] {
        var out: [[TextRun]] = []
        var current: [TextRun] = []
        for run in rows.flatMap({ $0 + [TextRun(text: " ")] }) {
            for word in run.text.split(separator: " ", omittingEmptySubsequences: true) {
                var piece = run
                piece.text = String(word)
                var candidate = current
                if !candidate.isEmpty { candidate.append(TextRun(text: " ", italic: run.italic, underline: run.underline, color: run.color)) }
                candidate.append(piece)
                if width(candidate) > CEA608.columns && !current.isEmpty {
                    out.append(current)
                    current = [piece]
                } else {
                    current = candidate
                }
                while width(current) > CEA608.columns {  // a word longer than a row
                    var head = current[current.count - 1]
                    head.text = String(head.text.prefix(CEA608.columns - 1))
                    out.append([head])
                    current[current.count - 1].text = String(current[current.count - 1].text.dropFirst(CEA608.columns - 1))
                }
            }
        }
        if !current.isEmpty { out.append(current) }
        return out.map(merge)
    }

    private static func merge(_ runs: [TextRun]) -> [TextRun] {
        var out: [TextRun] = []
        for r in runs {
            if let last = out.last, last.sameStyle(as: r) { out[out.count - 1].text += r.text } else { out.append(r) }
        }
        return out
    }

    /// The words that load one caption into the hidden memory: RCL, ENM, then each row's address and text.
    static func load(rows: [[TextRun]], settings: [String: String]) -> [UInt16] {
        var words: [UInt16] = []
        func control(_ a: UInt8, _ b: UInt8) { words += [word(a, b), word(a, b)] }
        control(0x14, CEA608.resumeCaptionLoading)
        control(0x14, CEA608.eraseNonDisplayed)
        // WebVTT's line: a line number (0 and down from the top) or a percentage of the height.
        let line = (settings["line"] ?? "").split(separator: ",").first.map(String.init) ?? ""
        let percent = line.hasSuffix("%") ? Double(line.dropLast()) : nil
        let top = Int(line).map { $0 >= 0 } ?? (percent.map { $0 < 33 } ?? false)
        let middle = percent.map { $0 >= 33 && $0 < 66 } ?? false
        let first = top ? 1 : middle ? 8 - rows.count / 2 : CEA608.rows + 1 - rows.count
        for (r, row) in rows.enumerated() {
            let w = width(row)
            let runs = spaced(row)
            let column = max(0, (CEA608.columns - w) / 2)
            control(CEA608.pac(row: first + r, indent: column / 4 * 4).0, CEA608.pac(row: first + r, indent: column / 4 * 4).1)
            if column % 4 > 0 { control(0x17, 0x20 + UInt8(column % 4)) }
            var pending: UInt8? = nil
            func byte(_ b: UInt8) {
                if let p = pending { words.append(word(p, b)); pending = nil } else { pending = b }
            }
            func flush() { if let p = pending { words.append(word(p, 0)); pending = nil } }
            for (k, run) in runs.enumerated() {
                if changesStyle(runs, at: k) {
                    flush()
                    let code: UInt8 = run.italic ? 0x2E : 0x20 + 2 * UInt8(CEA608.colors.firstIndex(of: run.color) ?? 0)
                    control(0x11, code | (run.underline ? 1 : 0))
                }
                for c in run.text {
                    switch CEA608.encodings[c] {
                    case .basic(let b): byte(b)
                    case .special(let b): flush(); control(0x11, b)
                    case .extended(let f, let b, let standIn): byte(standIn); flush(); control(f, b)
                    case nil: byte(0x20)
                    }
                }
            }
            flush()
        }
        return words
    }
}

/// Scenarist SCC → cues: a CEA-608 decoder for channel 1 (pop-on, roll-up and paint-on), with the display's
/// memory, preamble addresses, tab offsets, mid-row styling, special and extended characters. A cue is what the
/// screen shows between two changes; roll-up and paint-on captions change at the end of each line of the file.
package enum SCCReader {
    struct Cell: Equatable { var char: Character = " "; var italic = false, underline = false; var color: RGBColor? = nil }
    typealias Screen = [[Cell?]]

    package static func cues(_ text: String, path: String) throws -> [Cue] {
        var displayed = blank(), hidden = blank()
        var mode = 0  // 0 pop-on, 1 roll-up, 2 paint-on
        var rollRows = 2
        var row = CEA608.rows, column = 0
        var style = Cell()
        var previous: UInt16? = nil
        var cues: [Cue] = []
        var showing: (start: Int, screen: Screen)? = nil
        var lastFrame = 0

        func settle(at frame: Int) {
            if showing?.screen == displayed { return }
            if let s = showing, let cue = cue(s.screen, from: s.start, to: frame) { cues.append(cue) }
            showing = isBlank(displayed) ? nil : (frame, displayed)
        }
        func put(_ c: Character) {
            guard column < CEA608.columns else { return }
            var cell = style
            cell.char = c
            if mode == 0 { hidden[row - 1][column] = cell } else { displayed[row - 1][column] = cell }
            column += 1
        }
        func backspace() {
            guard column > 0 else { return }
            column -= 1
            if mode == 0 { hidden[row - 1][column] = nil } else { displayed[row - 1][column] = nil }
        }

        for raw in text.split(whereSeparator: \.isNewline) {
            let fields = raw.split(whereSeparator: { $0 == "\t" || $0 == " " }).map(String.init)
            guard let first = fields.first, let start = CEA608.frame(timecode: first) else { continue }
            for (i, hex) in fields.dropFirst().enumerated() {
                guard hex.count == 4, let w = UInt16(hex, radix: 16) else {
                    throw SDRifyError.invalidInput("\(path): '\(hex)' at \(first) is not a 608 byte pair")
                }
                let frame = start + i
                lastFrame = max(lastFrame, frame)
                let a = UInt8(w >> 8) & 0x7F, b = UInt8(w & 0xFF) & 0x7F
                if a >= 0x10 && a < 0x20 {
                    if previous == w { previous = nil; continue }  // the repeat of a control code
                    previous = w
                    guard a < 0x18 else { continue }  // channel 2
                    switch (a, b) {
                    case (0x14, CEA608.resumeCaptionLoading): mode = 0
                    case (0x14, CEA608.rollUp2...CEA608.rollUp4):
                        if mode != 1 { displayed = blank(); row = CEA608.rows; settle(at: frame) }
                        mode = 1; rollRows = Int(b - CEA608.rollUp2) + 2; column = 0
                    case (0x14, CEA608.resumeDirectCaptioning): mode = 2
                    case (0x14, CEA608.eraseDisplayed): displayed = blank(); settle(at: frame)
                    case (0x14, CEA608.eraseNonDisplayed): hidden = blank()
                    case (0x14, CEA608.endOfCaption): swap(&displayed, &hidden); settle(at: frame)
                    case (0x14, CEA608.carriageReturn) where mode == 1:
                        let base = max(row, rollRows)
                        for r in (base - rollRows)..<(base - 1) { displayed[r] = displayed[r + 1] }
                        displayed[base - 1] = Array(repeating: nil, count: CEA608.columns)
                        for r in 0..<(base - rollRows) { displayed[r] = Array(repeating: nil, count: CEA608.columns) }
                        column = 0
                    case (0x14, CEA608.backspace): backspace()
                    case (0x14, CEA608.deleteToEndOfRow):
                        for c in column..<CEA608.columns { if mode == 0 { hidden[row - 1][c] = nil } else { displayed[row - 1][c] = nil } }
                    case (0x17, 0x21...0x23): column = min(column + Int(b - 0x20), CEA608.columns - 1)
                    case (0x11, 0x20...0x2F):  // mid-row: style, and a space
                        style = attributes(b & 0x0F)
                        put(" ")
                    case (0x11, 0x30...0x3F): put(CEA608.special[Int(b - 0x30)])
                    case (0x12, 0x20...0x3F): backspace(); put(CEA608.extended12[Int(b - 0x20)])
                    case (0x13, 0x20...0x3F): backspace(); put(CEA608.extended13[Int(b - 0x20)])
                    default:
                        if let r = CEA608.row(ofPAC: a, b) {
                            if mode == 1 && r != row {  // roll-up moves its window to the new base row
                                displayed = blank()
                            }
                            row = r
                            let attr = b & 0x1F
                            if attr >= 0x10 {
                                column = Int((attr & 0x0E) >> 1) * 4; style = Cell(underline: attr & 1 == 1)
                            } else {
                                column = 0; style = attributes(attr)
                            }
                        }
                    }
                } else {
                    previous = nil
                    for byte in [a, b] where byte >= 0x20 { if let c = CEA608.basic(byte) { put(c) } }
                }
            }
            // Roll-up and paint-on show as they are written: what the screen holds at the end of the line is a cue.
            if mode != 0 { settle(at: start) }
        }
        if let s = showing, let cue = cue(s.screen, from: s.start, to: max(lastFrame + 1, s.start + 60)) { cues.append(cue) }
        return cues
    }

    static func blank() -> Screen { Array(repeating: Array(repeating: nil, count: CEA608.columns), count: CEA608.rows) }
    static func isBlank(_ s: Screen) -> Bool { s.allSatisfy { $0.allSatisfy { $0 == nil || $0!.char == " " } } }

    static func attributes(_ attr: UInt8) -> Cell {
        if attr & 0x0E == 0x0E { return Cell(italic: true, underline: attr & 1 == 1) }
        return Cell(underline: attr & 1 == 1, color: CEA608.colors[Int(attr >> 1)])
    }

    /// The screen as a cue: its non-empty rows top to bottom, styled; placed at the top when its first row is in
    /// the upper half.
    static func cue(_ screen: Screen, from start: Int, to end: Int) -> Cue? {
        guard end > start else { return nil }
        var lines: [String] = []
        var firstRow: Int? = nil
        for (r, cells) in screen.enumerated() {
            let runs = cells.reduce(into: [TextRun]()) { runs, cell in
                let c = cell ?? Cell()
                let run = TextRun(text: String(c.char), italic: c.italic, underline: c.underline, color: c.color)
                if let last = runs.last, last.sameStyle(as: run) || c.char == " " { runs[runs.count - 1].text += run.text } else { runs.append(run) }
            }
            let text = runs.map(\.text).joined()
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            var trimmed = runs
            while let f = trimmed.first, f.text.trimmingCharacters(in: .whitespaces).isEmpty { trimmed.removeFirst() }
            while let l = trimmed.last, l.text.trimmingCharacters(in: .whitespaces).isEmpty { trimmed.removeLast() }
            if !trimmed.isEmpty {
                trimmed[0].text = String(trimmed[0].text.drop(while: { $0 == " " }))
                let k = trimmed.count - 1
                trimmed[k].text = String(trimmed[k].text.reversed().drop(while: { $0 == " " }).reversed())
            }
            firstRow = firstRow ?? r + 1
            lines.append(SubtitleParser.markup(trimmed))
        }
        guard !lines.isEmpty else { return nil }
        let settings: [String: String] = (firstRow ?? 15) <= 7 ? ["line": "0"] : [:]
        return Cue(start: CEA608.time(atFrame: start), end: CEA608.time(atFrame: end), lines: lines, settings: settings)
    }
}
