import CAss
import Foundation

/// One timed caption from an SRT or WebVTT file.
struct Cue: Equatable {
    var start: Double, end: Double   // seconds
    var lines: [String]
}

/// SRT and WebVTT → cues. Markup tags (<i>, <b>, <c.x>, …) are dropped; the timing line is what defines a cue.
enum SubtitleParser {
    static func cues(_ text: String) -> [Cue] {
        var cues: [Cue] = []
        let body = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .replacingOccurrences(of: "\u{FEFF}", with: "")
        for block in body.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let timing = lines.firstIndex(where: { $0.contains("-->") }) else { continue }
            let parts = lines[timing].components(separatedBy: "-->")
            guard parts.count == 2, let start = time(parts[0]),
                  let end = time(parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""),
                  end > start else { continue }
            let text = lines[(timing + 1)...].map(stripTags).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            if !text.isEmpty { cues.append(Cue(start: start, end: end, lines: text)) }
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

    static func stripTags(_ line: String) -> String {
        line.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
    }
}

/// Burned-in captions through libass: ASS/SSA files keep their own styles (scaled to the output), SRT and
/// WebVTT get the default style: centred in the bottom third, at most two lines, white with a dark outline,
/// about 5 % of the frame high. Fonts come from fontconfig (CJK through its fallback). The bitmaps are turned
/// into a tile only when libass says the picture changed.
final class CaptionLayer: @unchecked Sendable {
    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private let track: UnsafeMutablePointer<ASS_Track>
    private let frameWidth: Int, frameHeight: Int
    private var tile: StickerTile?

    convenience init(path: String, frameWidth: Int, frameHeight: Int) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.usage("\(path): cannot read the captions") }
        // UTF-16 with a byte-order mark (Windows tools write it), else UTF-8, else Windows-1252 (old SRT files).
        let utf16 = data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF])
        guard let text = (utf16 ? String(data: data, encoding: .utf16) : nil) ?? String(data: data, encoding: .utf8)
                ?? String(data: data, encoding: .windowsCP1252) ?? String(data: data, encoding: .isoLatin1) else {
            throw SDRifyError.usage("\(path): captions are not text")
        }
        let isASS = text.contains("[Script Info]")
        var script = text
        if !isASS {
            let cues = SubtitleParser.cues(text)
            guard !cues.isEmpty else { throw SDRifyError.usage("\(path): no captions found (expected SRT, WebVTT or ASS)") }
            script = CaptionLayer.assScript(cues, width: frameWidth, height: frameHeight)
        }
        try self.init(script: script, label: path, frameWidth: frameWidth, frameHeight: frameHeight)
    }

    /// Renders an ASS script (captions converted to one, or titles) at the output's size; `label` names it in errors.
    init(script: String, label: String, frameWidth: Int, frameHeight: Int) throws {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        guard let lib = ass_library_init() else { throw SDRifyError.conversion("libass could not start") }
        cass_silence(lib)
        guard let r = ass_renderer_init(lib) else { ass_library_done(lib); throw SDRifyError.conversion("libass could not start") }
        library = lib
        renderer = r
        ass_set_frame_size(r, Int32(frameWidth), Int32(frameHeight))
        ass_set_storage_size(r, Int32(frameWidth), Int32(frameHeight))
        ass_set_fonts(r, nil, "DejaVu Sans", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
        var bytes = Array(script.utf8CString)
        guard let t = bytes.withUnsafeMutableBufferPointer({ ass_read_memory(lib, $0.baseAddress, $0.count - 1, nil) }) else {
            ass_renderer_done(r); ass_library_done(lib)
            throw SDRifyError.usage("\(label): malformed captions")
        }
        track = t
    }

    deinit {
        ass_free_track(track)
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// ASS for SRT/WebVTT cues in the default style, at the output's own resolution.
    static func assScript(_ cues: [Cue], width: Int, height: Int) -> String {
        let size = max(8, Int((Double(height) * 0.055).rounded()))
        let outline = max(1, Double(height) / 300)
        let margin = max(4, height / 20)
        var s = ASSScript.head(width: width, height: height, style:
            "Default,DejaVu Sans,\(size),&H00FFFFFF,&H00FFFFFF,&H00101010,&H80000000,0,0,0,0,100,100,0,0,1,\(String(format: "%.1f", outline)),0,2,\(margin),\(margin),\(margin),1")
        for cue in cues {
            // At most two lines: any further lines join the second.
            let lines = cue.lines.count <= 2 ? cue.lines : [cue.lines[0], cue.lines[1...].joined(separator: " ")]
            let text = lines.map { $0.replacingOccurrences(of: "{", with: "(").replacingOccurrences(of: "}", with: ")") }
                .joined(separator: "\\N")
            s += "Dialogue: 0,\(ASSScript.stamp(cue.start)),\(ASSScript.stamp(cue.end)),Default,,0,0,0,,\(text)\n"
        }
        return s
    }

    /// The caption picture at `t` seconds, or nil when nothing shows.
    func tile(at t: Double) -> StickerTile? {
        var changed: Int32 = 0
        let images = ass_render_frame(renderer, track, Int64((t * 1000).rounded()), &changed)
        if changed == 0 { return tile }
        tile = CaptionLayer.flatten(images, frameWidth: frameWidth, frameHeight: frameHeight)
        return tile
    }

    /// Composites libass's alpha bitmaps, in order, into one premultiplied tile.
    static func flatten(_ first: UnsafeMutablePointer<ASS_Image>?, frameWidth: Int, frameHeight: Int) -> StickerTile? {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        var node = first
        while let img = node?.pointee {
            if img.w > 0 && img.h > 0 {
                minX = min(minX, Int(img.dst_x)); minY = min(minY, Int(img.dst_y))
                maxX = max(maxX, Int(img.dst_x + img.w)); maxY = max(maxY, Int(img.dst_y + img.h))
            }
            node = img.next
        }
        guard minX < maxX, minY < maxY else { return nil }
        let x0 = max(minX, 0) & ~1, y0 = max(minY, 0) & ~1
        let w = (min(maxX, frameWidth) - x0 + 1) & ~1, h = (min(maxY, frameHeight) - y0 + 1) & ~1
        guard w > 0, h > 0 else { return nil }
        var canvas = [Float](repeating: 0, count: w * h * 4)
        node = first
        while let img = node?.pointee {
            let c = img.color
            let (r, g, b) = (Float(c >> 24 & 0xFF) / 255, Float(c >> 16 & 0xFF) / 255, Float(c >> 8 & 0xFF) / 255)
            let opacity = Float(255 - (c & 0xFF)) / 255
            for y in 0..<Int(img.h) {
                let cy = Int(img.dst_y) + y - y0
                guard cy >= 0, cy < h, let bitmap = img.bitmap else { continue }
                for x in 0..<Int(img.w) {
                    let cx = Int(img.dst_x) + x - x0
                    guard cx >= 0, cx < w else { continue }
                    let a = Float(bitmap[y * Int(img.stride) + x]) / 255 * opacity
                    guard a > 0 else { continue }
                    let i = (cy * w + cx) * 4
                    canvas[i] = r * a + canvas[i] * (1 - a)
                    canvas[i + 1] = g * a + canvas[i + 1] * (1 - a)
                    canvas[i + 2] = b * a + canvas[i + 2] * (1 - a)
                    canvas[i + 3] = a + canvas[i + 3] * (1 - a)
                }
            }
            node = img.next
        }
        return StickerTile(premultipliedRGBA: canvas, x0: x0, y0: y0, width: w, height: h)
    }
}

/// The parts of an ASS script every generated one shares (captions from SRT/WebVTT, titles).
enum ASSScript {
    /// Script info at the picture's own resolution, one style line (the fields after "Style: "), the events header.
    static func head(width: Int, height: Int, style: String) -> String {
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

    /// h:mm:ss.cc
    static func stamp(_ t: Double) -> String {
        let cs = Int((min(max(t, 0), 359_999) * 100).rounded())
        return String(format: "%d:%02d:%02d.%02d", cs / 360000, cs / 6000 % 60, cs / 100 % 60, cs % 100)
    }
}
