import CAss
import Foundation
import SDRifyCaptions
import SDRifyValues

/// Burned-in captions through libass: ASS/SSA files keep their own styles (scaled to the output), SRT and
/// WebVTT are set in a `CaptionStyle` (by default white with a dark outline at the bottom, 5.5 % of the short edge
/// high, at most two lines), their italics, bold and colours kept, WebVTT's line/position/align honoured. Fonts come
/// from fontconfig (CJK through its fallback). The bitmaps are turned into a tile only when libass says the picture
/// changed.
package final class CaptionLayer: @unchecked Sendable {
    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private let track: UnsafeMutablePointer<ASS_Track>
    private let frameWidth: Int, frameHeight: Int
    private let signal: LayerSignal
    private var tile: StickerTile?
    /// Where burned-in captions show, for the titles that make room for them: the edge, the room they take there
    /// (the margin and two lines), and the seconds of output from their first cue to their last (nil: titles).
    package private(set) var occupies: (edge: CaptionStyle.Position, room: Int, shown: ClosedRange<Double>)? = nil

    /// `input`: the media file whose subtitle track `input:N` names (convert's input). A file beyond
    /// `CaptionLimits` is cut to them, with one warning.
    package convenience init(
        track: CaptionTrack, frameWidth: Int, frameHeight: Int, signal: LayerSignal = .sdr, input: String? = nil, warn: WarningHandler = { _ in }
    ) throws {
        let script: String
        let content: CaptionContent
        if let n = track.inputTrack {
            guard let input else { throw SDRifyError.usage("captions input:\(n): only convert has an input to read") }
            content = .cues(try CaptionFile.cues(ofTrack: n, in: input))
        } else {
            content = try CaptionFile.read(track.file)
        }
        let label = track.inputTrack.map { "captions input:\($0)" } ?? track.file
        switch content {
        case .ass(let text):
            let (capped, warning) = CaptionLimits.capped(script: text, label: label)
            if let warning { warn(warning) }
            script =
                if let clock = track.clock {
                    ASSScript.retimed(capped) { clock.output(MediaTime(seconds: $0 + track.offset)).seconds }
                } else {
                    track.offset == 0 ? capped : ASSScript.shifted(capped, by: track.offset)
                }
        case .cues(let cues):
            let (capped, warning) = CaptionLimits.capped(cues, label: label)
            if let warning { warn(warning) }
            var shifted = CaptionFile.shifted(capped, by: MediaTime(seconds: track.offset))
            if let clock = track.clock { shifted = CaptionFile.retimed(shifted, clock.output) }
            script = try CaptionLayer.assScript(shifted, style: track.style, width: frameWidth, height: frameHeight)
        }
        try self.init(script: script, label: track.file, frameWidth: frameWidth, frameHeight: frameHeight, signal: signal)
        occupies = CaptionLayer.room(of: track.style, script: script, width: frameWidth, height: frameHeight)
    }

    /// The room captions in `style` take at their edge: the margin, two lines and half a line's gap; over the span of
    /// the script's events (an ASS file's own styles are read as the default bottom placement).
    static func room(of style: CaptionStyle, script: String, width: Int, height: Int) -> (CaptionStyle.Position, Int, ClosedRange<Double>)? {
        guard style.position != .center, let shown = ASSScript.span(script) else { return nil }
        let size = style.look.pixels(width: width, height: height)
        let room = style.pixels(style.margin, width: width, height: height) + Double(CaptionStyle.maxLines) * size * 1.25 + size * 0.5
        return (style.position, Int(room.rounded(.up)), shown)
    }

    /// Renders an ASS script (captions converted to one, or titles) at the output's size; `label` names it in errors.
    package init(script: String, label: String, frameWidth: Int, frameHeight: Int, signal: LayerSignal = .sdr) throws {
        self.frameWidth = frameWidth
        self.signal = signal
        self.frameHeight = frameHeight
        (library, renderer) = try CaptionLayer.startLibass(width: frameWidth, height: frameHeight)
        guard let t = CaptionLayer.track(script, library) else {
            ass_renderer_done(renderer); ass_library_done(library)
            throw SDRifyError.invalidInput("\(label): malformed captions")
        }
        track = t
    }

    /// A libass library and a renderer for pictures of this size, fonts from fontconfig.
    static func startLibass(width: Int, height: Int) throws -> (OpaquePointer, OpaquePointer) {
        guard let lib = ass_library_init() else { throw SDRifyError.conversion("libass could not start") }
        cass_silence(lib)
        guard let r = ass_renderer_init(lib) else { ass_library_done(lib); throw SDRifyError.conversion("libass could not start") }
        ass_set_frame_size(r, Int32(width), Int32(height))
        ass_set_storage_size(r, Int32(width), Int32(height))
        ass_set_fonts(r, nil, "DejaVu Sans", Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
        return (lib, r)
    }

    /// An ASS script read into a libass track (nil: malformed); the caller frees it.
    package static func track(_ script: String, _ library: OpaquePointer) -> UnsafeMutablePointer<ASS_Track>? {
        var bytes = Array(script.utf8CString)
        return bytes.withUnsafeMutableBufferPointer { ass_read_memory(library, $0.baseAddress, $0.count - 1, nil) }
    }

    deinit {
        ass_free_track(track)
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// ASS for SRT/WebVTT cues in `style`, at the output's own resolution. A cue of more than two lines flows as one
    /// paragraph; one that would take more than two lines is set smaller (measured by libass).
    static func assScript(_ cues: [Cue], style: CaptionStyle, width: Int, height: Int) throws -> String {
        let head = ASSScript.head(width: width, height: height, style: style.assStyle(width: width, height: height))
        let texts = cues.map { cue in
            (cue.lines.count <= CaptionStyle.maxLines ? cue.lines : [cue.lines.joined(separator: " ")]).map(SubtitleParser.assText)
        }
        // One measuring pass for every line of every cue, unwrapped.
        let widths = try lineWidths(texts.flatMap { $0 }, style: style, width: width, height: height)
        let px = style.look.pixels(width: width, height: height)
        let available = Double(width) - 2 * style.pixels(style.margin, width: width, height: height)
        var s = head
        var k = 0
        for (cue, lines) in zip(cues, texts) {
            let w = widths[k..<(k + lines.count)]
            k += lines.count
            // Room for two lines: one line may wrap once (with slack for whole words), two must not wrap.
            var scale = lines.count == 1 ? 2 * available * 0.9 / (w.first ?? 1) : available * 0.98 / (w.max() ?? 1)
            scale = max(min(scale, 1), CaptionStyle.smallest)
            var (tags, marginV) = style.placement(cue.settings, width: width, height: height)
            if scale < 1 { tags += String(format: "\\fs%.1f", px * scale) }
            let prefix = tags.isEmpty ? "" : "{\(tags)}"
            s +=
                "Dialogue: 0,\(ASSScript.stamp(cue.start.seconds)),\(ASSScript.stamp(cue.end.seconds)),Default,,0,0,\(marginV ?? 0),,\(prefix)\(lines.joined(separator: "\\N"))\n"
        }
        return s
    }

    /// The width in pixels of each ASS line set on one line (no wrapping), as libass draws it. Measured at a quarter
    /// of the size, so lines up to four frames wide fit in the frame.
    static func lineWidths(_ lines: [String], style: CaptionStyle, width: Int, height: Int) throws -> [Double] {
        guard !lines.isEmpty else { return [] }
        let shrink = 4.0
        var small = style
        small.look.size = .pixels(style.look.pixels(width: width, height: height) / shrink)
        small.look.outline = style.look.outlinePixels(width: width, height: height) / shrink
        let head = ASSScript.head(width: width, height: height, style: small.assStyle(width: width, height: height))
            .replacingOccurrences(of: "WrapStyle: 0", with: "WrapStyle: 2")
        let (library, renderer) = try startLibass(width: width, height: height)
        defer { ass_renderer_done(renderer); ass_library_done(library) }
        // A track of its own for every few hundred lines: libass looks through all of a track's events for each
        // picture, so one track of every line would make the pass quadratic in the cue count.
        var widths: [Double] = []
        for chunk in stride(from: 0, to: lines.count, by: 256) {
            let part = lines[chunk..<min(chunk + 256, lines.count)]
            var script = head
            for (i, line) in part.enumerated() {
                script += "Dialogue: 0,\(ASSScript.stamp(Double(i))),\(ASSScript.stamp(Double(i) + 0.5)),Default,,0,0,0,,{\\an7\\pos(0,0)}\(line)\n"
            }
            guard let track = track(script, library) else { throw SDRifyError.invalidInput("captions: malformed captions") }
            defer { ass_free_track(track) }
            for i in part.indices {
                var changed: Int32 = 0
                var node = ass_render_frame(renderer, track, Int64(i - chunk) * 1000 + 250, &changed)
                var minX = Int.max, maxX = Int.min
                while let img = node?.pointee {
                    if img.w > 0 { minX = min(minX, Int(img.dst_x)); maxX = max(maxX, Int(img.dst_x + img.w)) }
                    node = img.next
                }
                widths.append(maxX > minX ? Double(maxX - minX) * shrink : 0)
            }
        }
        return widths
    }

    /// The caption picture at `t` seconds, or nil when nothing shows.
    package func tile(at t: Double) -> StickerTile? {
        var changed: Int32 = 0
        let images = ass_render_frame(renderer, track, Int64((t * 1000).rounded()), &changed)
        if changed == 0 { return tile }
        tile = CaptionLayer.flatten(images, frameWidth: frameWidth, frameHeight: frameHeight, signal: signal)
        return tile
    }

    /// Composites libass's alpha bitmaps, in order, into one premultiplied tile.
    static func flatten(_ first: UnsafeMutablePointer<ASS_Image>?, frameWidth: Int, frameHeight: Int, signal: LayerSignal) -> StickerTile? {
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
        return StickerTile(premultipliedRGBA: canvas, x0: x0, y0: y0, width: w, height: h, signal: signal)
    }
}

/// The libass version this process runs with (for `--version`): its number is written in hex digits, 0xMmmpp000.
package func libassVersion() -> String {
    let v = UInt32(bitPattern: ass_library_version())
    return "\(String(v >> 28, radix: 16)).\(String((v >> 20) & 0xFF, radix: 16)).\(String((v >> 12) & 0xFF, radix: 16))"
}
