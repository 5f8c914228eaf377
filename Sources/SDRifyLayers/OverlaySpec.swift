import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyValues

/// One keyframe; t in seconds from the sticker's start. Absent properties take the sticker's own values.
struct StickerKeyframe: Equatable, Sendable {
    var t: Double
    var easing: Easing = .linear  // the approach to this keyframe from the one before
    var x: Length? = nil, y: Length? = nil
    var scale: Double? = nil  // × the sticker's size, about its centre
    var rotation: Double? = nil  // degrees clockwise, about its centre
    var opacity: Double? = nil  // × the sticker's opacity
}

package struct StickerSpec: Equatable, Sendable {
    package var image: String
    var x: Length, y: Length  // top-left of the unscaled, unrotated sticker
    package var width: Length? = nil, height: Length? = nil
    package var start: Double = 0  // seconds of output
    package var end: Double? = nil
    var opacity: Double = 1
    var fadeIn: Double = 0, fadeOut: Double = 0
    var keyframes: [StickerKeyframe] = []
}

/// What `--overlays FILE.json` and `--sticker` describe, checked completely before any output is written.
package struct OverlaySpec: Equatable, Sendable {
    package var effects: [EffectSpec] = []  // applied first, in list order
    package var stickers: [StickerSpec] = []
    package var titles: [TitleSpec] = []  // after the stickers
    package var captions: [CaptionTrack] = []  // SRT, WebVTT or ASS files; drawn last
    package var background: Background? = nil  // behind letterboxed pictures; wins over the output's

    package init(stickers: [StickerSpec] = [], captions: [CaptionTrack] = []) { self.stickers = stickers; self.captions = captions }

    /// No layers to draw (a background is not a layer: it shows only behind letterboxed pictures).
    package var isEmpty: Bool { effects.isEmpty && stickers.isEmpty && titles.isEmpty && captions.isEmpty }

    /// Every file the layers read (the sandbox lets a run read these and no others of the user's).
    package var filesRead: [String] {
        var files = stickers.map(\.image) + captions.filter { $0.inputTrack == nil }.map(\.file)
        files += titles.compactMap { if case .gpx(let path)? = $0.source { path } else { nil } }
        return files + (background?.file.map { [$0] } ?? [])
    }

    /// Reads and validates an overlay description; every problem is a usage error naming the file and the
    /// JSON path. Image paths are relative to the JSON file.
    package static func load(jsonFile path: String) throws -> OverlaySpec {
        var (parser, root) = try Parser.open(path, what: "the overlay description")
        if let top = root as? [String: Any], top["clips"] != nil {
            throw parser.fail("", "this is a timeline (it has clips), not overlays: give it to compose --timeline")
        }
        return try parse(root, at: "$", parser: &parser)
    }

    /// The keys of an overlay description.
    package static let keys: Set<String> = ["effects", "stickers", "titles", "captions", "background"]

    /// An overlay description already read from JSON (also the `overlays` of a timeline file), at `at`.
    package static func parse(_ root: Any, at path: String, parser: inout Parser) throws -> OverlaySpec {
        let object = try parser.object(root, at: path, allowed: keys)
        var spec = OverlaySpec()
        spec.background = try parser.background(object["background"], at: "\(path).background")
        if let list = object["effects"] {
            for (i, item) in try parser.array(list, at: "\(path).effects").enumerated() {
                spec.effects.append(try parser.effect(item, at: "\(path).effects[\(i)]"))
            }
        }
        if let list = object["captions"] {
            for (i, item) in try parser.array(list, at: "\(path).captions").enumerated() {
                let at = "\(path).captions[\(i)]"
                let o = try parser.object(item, at: at, allowed: Parser.captionStyleKeys.union(["file"]))
                var file: String? = nil
                if let name = o["file"] as? String, CaptionTrack(file: name).inputTrack != nil {
                    file = name
                } else {
                    file = try parser.file(o["file"], at: "\(at).file")
                }
                guard let file else { throw parser.fail("\(at).file", "expected a caption file name or input:N") }
                spec.captions.append(try parser.captionTrack(o, file: file, at: at))
            }
        }
        if let list = object["titles"] {
            for (i, item) in try parser.array(list, at: "\(path).titles").enumerated() {
                spec.titles.append(try parser.title(item, at: "\(path).titles[\(i)]"))
            }
        }
        if let list = object["stickers"] {
            for (i, item) in try parser.array(list, at: "\(path).stickers").enumerated() {
                spec.stickers.append(try parser.sticker(item, at: "\(path).stickers[\(i)]"))
            }
        }
        return spec
    }

    /// `FILE@X,Y[,WxH][,START-END]`: X, Y (and W, H) in pixels or percent, START/END in seconds.
    package static func sticker(shorthand text: String) throws -> StickerSpec {
        let bad = SDRifyError.usage("--sticker \(text): expected FILE@X,Y[,WxH][,START-END]")
        guard let at = text.lastIndex(of: "@") else { throw bad }
        let file = String(text[..<at])
        let fields = text[text.index(after: at)...].split(separator: ",").map(String.init)
        guard !file.isEmpty, fields.count >= 2, fields.count <= 4,
            let x = Parser.length(fields[0]), let y = Parser.length(fields[1])
        else { throw bad }
        var s = StickerSpec(image: file, x: x, y: y)
        for field in fields.dropFirst(2) {
            if field.contains("x") {
                let wh = field.split(separator: "x").map(String.init)
                guard wh.count == 2, let w = Parser.length(wh[0]), let h = Parser.length(wh[1]) else { throw bad }
                s.width = w; s.height = h
            } else if field.contains("-") {
                let se = field.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
                guard se.count == 2, let a = Double(se[0]), let b = Double(se[1]) else { throw bad }
                s.start = a; s.end = b
            } else {
                throw bad
            }
        }
        let parser = Parser(file: "--sticker \(text)")
        try parser.check(s, at: "")
        return s
    }
}
