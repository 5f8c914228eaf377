import Foundation
import SDRifyValues

/// Facts of CEA-608 (line 21 captions) on data channel 1, as SCC files carry them: the character sets, the control
/// codes, odd parity, and the 29.97 fps drop-frame time code SCC is written in.
enum CEA608 {
    static let columns = 32
    static let rows = 15
    static let maxRows = 4  // a pop-on caption holds at most four rows

    // Miscellaneous control codes (first byte 0x14 on channel 1).
    static let resumeCaptionLoading: UInt8 = 0x20  // RCL: pop-on
    static let backspace: UInt8 = 0x21
    static let deleteToEndOfRow: UInt8 = 0x24
    static let rollUp2: UInt8 = 0x25, rollUp3: UInt8 = 0x26, rollUp4: UInt8 = 0x27
    static let resumeDirectCaptioning: UInt8 = 0x29  // RDC: paint-on
    static let eraseDisplayed: UInt8 = 0x2C  // EDM
    static let carriageReturn: UInt8 = 0x2D  // CR
    static let eraseNonDisplayed: UInt8 = 0x2E  // ENM
    static let endOfCaption: UInt8 = 0x2F  // EOC: swap memories (show the loaded caption)

    /// The basic set: ASCII except these positions.
    static let basicExceptions: [UInt8: Character] = [
        0x2A: "á", 0x5C: "é", 0x5E: "í", 0x5F: "ó", 0x60: "ú",
        0x7B: "ç", 0x7C: "÷", 0x7D: "Ñ", 0x7E: "ñ", 0x7F: "█"
    ]
    /// Special characters: 0x11 0x30…0x3F (0x39 is the transparent space).
    static let special: [Character] = ["®", "°", "½", "¿", "™", "¢", "£", "♪", "à", "\u{00A0}", "è", "â", "ê", "î", "ô", "û"]
    /// Extended characters: 0x12 0x20…0x3F (Spanish, French, miscellaneous) and 0x13 0x20…0x3F (Portuguese, German, Danish).
    static let extended12: [Character] = [
        "Á", "É", "Ó", "Ú", "Ü", "ü", "‘", "¡", "*", "’", "—", "©", "℠", "•", "“", "”",
        "À", "Â", "Ç", "È", "Ê", "Ë", "ë", "Î", "Ï", "ï", "Ô", "Ù", "ù", "Û", "«", "»"
    ]
    static let extended13: [Character] = [
        "Ã", "ã", "Í", "Ì", "ì", "Ò", "ò", "Õ", "õ", "{", "}", "\\", "^", "_", "|", "~",
        "Ä", "ä", "Ö", "ö", "ß", "¥", "¤", "¦", "Å", "å", "Ø", "ø", "┌", "┐", "└", "┘"
    ]

    /// A basic-set byte's character.
    static func basic(_ b: UInt8) -> Character? {
        guard b >= 0x20, b < 0x80 else { return nil }
        return basicExceptions[b] ?? Character(UnicodeScalar(b))
    }

    /// How a character is sent: one basic byte, or a two-byte code (special, or extended after a basic stand-in
    /// that decoders without the extended set keep), or not at all.
    enum Encoding: Equatable {
        case basic(UInt8)
        case special(UInt8)  // 0x11, b
        case extended(UInt8, UInt8, standIn: UInt8)  // first byte 0x12/0x13, b
    }

    static let encodings: [Character: Encoding] = {
        var m: [Character: Encoding] = [:]
        for b in UInt8(0x20)..<0x80 { if let c = basic(b) { m[c] = .basic(b) } }
        for (i, c) in special.enumerated() where m[c] == nil { m[c] = .special(0x30 + UInt8(i)) }
        for (table, first) in [(extended12, UInt8(0x12)), (extended13, UInt8(0x13))] {
            for (i, c) in table.enumerated() where m[c] == nil {
                m[c] = .extended(first, 0x20 + UInt8(i), standIn: standIn(c))
            }
        }
        return m
    }()

    /// The basic character a decoder without extended characters shows instead.
    static func standIn(_ c: Character) -> UInt8 {
        let folded = String(c).folding(options: [.diacriticInsensitive], locale: nil)
        if let a = folded.unicodeScalars.first, folded.unicodeScalars.count == 1, a.value >= 0x20, a.value < 0x7F,
            basicExceptions[UInt8(a.value)] == nil
        {
            return UInt8(a.value)
        }
        switch c {
        case "‘", "’": return 0x27
        case "“", "”", "«", "»": return 0x22
        case "—": return 0x2D
        default: return 0x20
        }
    }

    /// Characters 608 lacks, mapped to ones it has (a repair, reported).
    static func substitute(_ c: Character) -> String? {
        switch c {
        case "–", "‐", "‑", "−": return "-"
        case "…": return "..."
        case "′": return "'"
        case "″": return "\""
        case "\u{2009}", "\u{202F}", "\u{2002}", "\u{2003}": return " "
        case "€": return "EUR"
        default:
            let folded = String(c).folding(options: [.diacriticInsensitive], locale: nil)
            return folded.count == 1 && folded != String(c) && folded.allSatisfy({ encodings[$0] != nil }) ? folded : nil
        }
    }

    /// Odd parity in bit 7.
    static func parity(_ b: UInt8) -> UInt8 {
        let v = b & 0x7F
        return v.nonzeroBitCount % 2 == 0 ? v | 0x80 : v
    }

    /// The preamble address code for a row (1…15) at an indent (a multiple of 4 columns), with italics/underline.
    static func pac(row: Int, indent: Int = 0, italic: Bool = false, underline: Bool = false) -> (UInt8, UInt8) {
        let firsts: [(UInt8, Bool)] = [
            (0x11, false), (0x11, true), (0x12, false), (0x12, true), (0x15, false), (0x15, true),
            (0x16, false), (0x16, true), (0x17, false), (0x17, true), (0x10, false), (0x13, false),
            (0x13, true), (0x14, false), (0x14, true)
        ]
        let (first, high) = firsts[row - 1]
        var second: UInt8 = high ? 0x60 : 0x40
        if indent > 0 { second |= 0x10 | UInt8(indent / 4) << 1 } else if italic { second |= 0x0E }
        if underline { second |= 1 }
        return (first, second)
    }

    /// The row a preamble address code addresses (nil when the pair is not one).
    static func row(ofPAC first: UInt8, _ second: UInt8) -> Int? {
        guard (0x10...0x17).contains(first), second >= 0x40 else { return nil }
        let high = second >= 0x60
        switch first {
        case 0x10: return high ? nil : 11
        case 0x11: return high ? 2 : 1
        case 0x12: return high ? 4 : 3
        case 0x13: return high ? 13 : 12
        case 0x14: return high ? 15 : 14
        case 0x15: return high ? 6 : 5
        case 0x16: return high ? 8 : 7
        default: return high ? 10 : 9
        }
    }

    /// The 608 colours (mid-row and PAC attributes 0, 2, …, 12).
    static let colors: [RGBColor?] = [
        nil, RGBColor(r: 0, g: 255, b: 0), RGBColor(r: 0, g: 0, b: 255), RGBColor(r: 0, g: 255, b: 255),
        RGBColor(r: 255, g: 0, b: 0), RGBColor(r: 255, g: 255, b: 0), RGBColor(r: 255, g: 0, b: 255)
    ]

    // 29.97 fps drop-frame time code: frames 0 and 1 of every minute are skipped, except each tenth minute.
    static let frameRate = 30000.0 / 1001.0

    static func frame(atSeconds t: Double) -> Int { Int((t * frameRate).rounded()) }
    package static func seconds(atFrame f: Int) -> Double { Double(f) / frameRate }
    static func time(atFrame f: Int) -> MediaTime { MediaTime(seconds: seconds(atFrame: f)) }

    /// `HH:MM:SS;FF` for a frame count.
    static func timecode(frame n: Int) -> String {
        let tenMinutes = n / 17982, rest = n % 17982
        let f = n + 18 * tenMinutes + (rest > 1 ? 2 * ((rest - 2) / 1798) : 0)
        return String(format: "%02d:%02d:%02d;%02d", f / 108000, f / 1800 % 60, f / 30 % 60, f % 30)
    }

    /// The frame count of `HH:MM:SS;FF` (drop frame) or `HH:MM:SS:FF` (frames counted at 29.97 without drops).
    static func frame(timecode s: String) -> Int? {
        let drop = s.contains(";") || s.contains(".")
        let parts = s.split(whereSeparator: { $0 == ":" || $0 == ";" || $0 == "." }).compactMap { Int($0) }
        guard parts.count == 4, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]), (0..<60).contains(parts[2]),
            (0..<30).contains(parts[3])
        else { return nil }
        let minutes = parts[0] * 60 + parts[1]
        var n = (minutes * 60 + parts[2]) * 30 + parts[3]
        if drop { n -= 2 * (minutes - minutes / 10) }
        return n
    }
}
