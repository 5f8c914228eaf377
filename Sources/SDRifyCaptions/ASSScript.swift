import Foundation
import SDRifyValues

/// The parts of an ASS script every generated one shares (captions from SRT/WebVTT, titles).
package enum ASSScript {
    /// Script info at the picture's own resolution, one style line (the fields after "Style: "), the events header.
    package static func head(width: Int, height: Int, style: String) -> String {
        """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: \(width)
        PlayResY: \(height)
        WrapStyle: 0
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
        Style: \(style)

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
    }

    /// &HAABBGGRR, for style lines (alpha 0 is opaque).
    package static func color(_ c: RGBColor, alpha: UInt8 = 0) -> String { String(format: "&H%02X%02X%02X%02X", alpha, c.b, c.g, c.r) }

    /// Text with the backslash escapes ASS would act on (\N, \n, \h) made literal.
    static func escaped(_ text: String) -> String { text.replacingOccurrences(of: "\\", with: "\\\u{2060}") }

    /// A dialogue line's fields up to its fourth (layer, start, end, the rest) and its times in seconds; nil for
    /// other lines. Start and end are the second and third fields in every script sdrify reads or writes.
    static func dialogue(_ line: Substring) -> (fields: [String], start: Double, end: Double)? {
        guard line.hasPrefix("Dialogue:") else { return nil }
        let f = line.dropFirst(9).split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        guard f.count == 4, let s = SubtitleParser.time(f[1]), let e = SubtitleParser.time(f[2]) else { return nil }
        return (f, s, e)
    }

    /// The seconds from the first dialogue line's start to the last one's end; nil for a script without any.
    package static func span(_ script: String) -> ClosedRange<Double>? {
        let times = script.split(separator: "\n").compactMap(dialogue)
        guard let first = times.map(\.start).min(), let last = times.map(\.end).max(), first <= last else { return nil }
        return first...last
    }

    /// A script with every dialogue line's times moved by `offset` seconds (lines ending before 0 dropped).
    package static func shifted(_ script: String, by offset: Double) -> String { retimed(script) { $0 + offset } }

    /// Every dialogue line's times moved by `time` (seconds to seconds, never backwards); lines that end before 0
    /// are dropped.
    package static func retimed(_ script: String, _ time: (Double) -> Double) -> String {
        script.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            guard let (fields, s, e) = dialogue(line) else { return String(line) }
            guard time(e) > 0 else { return nil }
            var f = fields
            f[1] = stamp(time(s)); f[2] = stamp(time(e))
            return "Dialogue:" + f.joined(separator: ",")
        }.joined(separator: "\n")
    }

    /// h:mm:ss.cc
    package static func stamp(_ t: Double) -> String {
        let cs = Int((min(max(t, 0), 359_999) * 100).rounded())
        return String(format: "%d:%02d:%02d.%02d", cs / 360000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
    }
}
