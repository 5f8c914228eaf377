import Foundation
import SDRifyValues

/// Cues → SRT, WebVTT, ASS, TTML, iTT, SCC or LRC text.
package enum CaptionWriter {
    package static func text(_ cues: [Cue], format: CaptionFormat, fix: Bool) throws -> (text: String, repairs: [String]) {
        switch format {
        case .srt: return (srt(cues), [])
        case .vtt: return (vtt(cues), [])
        case .ass: return (ass(cues), [])
        case .ttml: return (timedText(cues, apple: false), [])
        case .itt: return (timedText(cues, apple: true), [])
        case .lrc: return (LRC.text(cues), [])
        case .scc:
            let r = try SCCWriter.write(cues, fix: fix)
            return (r.text, r.repairs)
        }
    }

    /// h:mm:ss,mmm (SRT) or hh:mm:ss.mmm (WebVTT, TTML).
    package static func clock(_ t: Double, separator: Character) -> String {
        let ms = Int((max(t, 0) * 1000).rounded())
        return String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, String(separator), ms % 1000)
    }

    static func srt(_ cues: [Cue]) -> String {
        cues.enumerated().map { i, c in
            // SRT's own placement: {\an8} for a caption at the top.
            let top = c.settings["line"].map { $0 == "0" || $0.hasPrefix("0%") } ?? false
            let lines = c.lines.enumerated().map { k, l in
                (k == 0 && top ? "{\\an8}" : "") + SubtitleParser.markup(SubtitleParser.runs(l), escaped: false)
            }
            return
                "\(i + 1)\n\(clock(c.start.seconds, separator: ",")) --> \(clock(c.end.seconds, separator: ","))\n\(lines.joined(separator: "\n"))\n"
        }.joined(separator: "\n")
    }

    /// WebVTT: <i>, <b>, <u> as they are; a colour as the nearest of WebVTT's colour classes where one matches.
    package static func vtt(_ cues: [Cue]) -> String {
        let classes: [RGBColor: String] = [
            RGBColor(r: 255, g: 0, b: 0): "red", RGBColor(r: 0, g: 255, b: 0): "lime",
            RGBColor(r: 0, g: 0, b: 255): "blue", RGBColor(r: 0, g: 255, b: 255): "cyan",
            RGBColor(r: 255, g: 255, b: 0): "yellow", RGBColor(r: 255, g: 0, b: 255): "magenta",
            RGBColor(r: 0, g: 0, b: 0): "black"
        ]
        var out = "WEBVTT\n"
        for c in cues {
            let settings = ["line", "position", "align"].compactMap { k in c.settings[k].map { "\(k):\($0)" } }.joined(separator: " ")
            out +=
                "\n\(clock(c.start.seconds, separator: ".")) --> \(clock(c.end.seconds, separator: "."))\(settings.isEmpty ? "" : " " + settings)\n"
            for line in c.lines {
                out +=
                    SubtitleParser.runs(line).map { r in
                        var s = SubtitleParser.escapedMarkup(r.text)
                        if let color = r.color, let name = classes[color] { s = "<c.\(name)>\(s)</c>" }
                        if r.underline { s = "<u>\(s)</u>" }
                        if r.bold { s = "<b>\(s)</b>" }
                        if r.italic { s = "<i>\(s)</i>" }
                        return s
                    }.joined() + "\n"
            }
        }
        return out
    }

    static func ass(_ cues: [Cue]) -> String {
        let (w, h) = (1920, 1080)
        var s = ASSScript.head(width: w, height: h, style: CaptionStyle().assStyle(width: w, height: h))
        for c in cues {
            let tags = CaptionStyle().placement(c.settings, width: w, height: h)
            let prefix = tags.tags.isEmpty ? "" : "{\(tags.tags)}"
            s +=
                "Dialogue: 0,\(ASSScript.stamp(c.start.seconds)),\(ASSScript.stamp(c.end.seconds)),Default,,0,0,\(tags.marginV ?? 0),,"
                + prefix + c.lines.map(SubtitleParser.assText).joined(separator: "\\N") + "\n"
        }
        return s
    }

    /// TTML 1.0; `apple`: the iTT profile (Apple's namespaces and parameters, a sans-serif normal style, top and
    /// bottom regions, times as media clock times).
    static func timedText(_ cues: [Cue], apple: Bool) -> String {
        func xml(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                .replacingOccurrences(of: "\"", with: "&quot;")
        }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" xmlns:ttm="http://www.w3.org/ns/ttml#metadata" \
            xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:timeBase="media"\(apple ? " ttp:frameRate=\"30\" ttp:frameRateMultiplier=\"1000 1001\"" : "") xml:lang="en">
              <head>
                <styling>
                  <style xml:id="normal" tts:fontFamily="sansSerif" tts:fontWeight="normal" tts:fontStyle="normal" tts:color="white" tts:fontSize="100%"/>
                </styling>
                <layout>
                  <region xml:id="top" tts:origin="0% 0%" tts:extent="100% 15%" tts:textAlign="center" tts:displayAlign="before"/>
                  <region xml:id="middle" tts:origin="0% 42.5%" tts:extent="100% 15%" tts:textAlign="center" tts:displayAlign="center"/>
                  <region xml:id="bottom" tts:origin="0% 85%" tts:extent="100% 15%" tts:textAlign="center" tts:displayAlign="after"/>
                </layout>
              </head>
              <body region="bottom" style="normal">
                <div>

            """
        for c in cues {
            let line = (c.settings["line"] ?? "").split(separator: ",").first.map(String.init) ?? ""
            let percent = line.hasSuffix("%") ? Double(line.dropLast()) : nil
            let region =
                (Int(line).map { $0 >= 0 } ?? (percent.map { $0 < 33 } ?? false))
                ? " region=\"top\""
                : (percent.map { $0 >= 33 && $0 < 66 } ?? false) ? " region=\"middle\"" : ""
            let body = c.lines.map { l in
                SubtitleParser.runs(l).map { r -> String in
                    var attrs = ""
                    if r.italic { attrs += " tts:fontStyle=\"italic\"" }
                    if r.bold { attrs += " tts:fontWeight=\"bold\"" }
                    if r.underline { attrs += " tts:textDecoration=\"underline\"" }
                    if let color = r.color { attrs += " tts:color=\"\(color.hex)\"" }
                    return attrs.isEmpty ? xml(r.text) : "<span\(attrs)>\(xml(r.text))</span>"
                }.joined()
            }.joined(separator: "<br/>")
            out +=
                "      <p begin=\"\(clock(c.start.seconds, separator: "."))\" end=\"\(clock(c.end.seconds, separator: "."))\"\(region)>\(body)</p>\n"
        }
        return out + "    </div>\n  </body>\n</tt>\n"
    }
}
