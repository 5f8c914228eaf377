import Foundation

/// One keyframe; t in seconds from the sticker's start. Absent properties take the sticker's own values.
public struct StickerKeyframe: Equatable, Sendable {
    public var t: Double
    public var easing: Easing = .linear  // the approach to this keyframe from the one before
    public var x: Length? = nil, y: Length? = nil
    public var scale: Double? = nil  // × the sticker's size, about its centre
    public var rotation: Double? = nil  // degrees clockwise, about its centre
    public var opacity: Double? = nil  // × the sticker's opacity
}

public struct StickerSpec: Equatable, Sendable {
    public var image: String
    public var x: Length, y: Length  // top-left of the unscaled, unrotated sticker
    public var width: Length? = nil, height: Length? = nil
    public var start: Double = 0  // seconds of output
    public var end: Double? = nil
    public var opacity: Double = 1
    public var fadeIn: Double = 0, fadeOut: Double = 0
    public var keyframes: [StickerKeyframe] = []
}

/// What `--overlays FILE.json` and `--sticker` describe, checked completely before any output is written.
public struct OverlaySpec: Equatable, Sendable {
    public var effects: [EffectSpec] = []  // applied first, in list order
    public var stickers: [StickerSpec] = []
    public var titles: [TitleSpec] = []  // after the stickers
    public var captions: [CaptionTrack] = []  // SRT, WebVTT or ASS files; drawn last
    public var background: Background? = nil  // behind letterboxed pictures; wins over the output's
    public init(stickers: [StickerSpec] = [], captions: [CaptionTrack] = []) { self.stickers = stickers; self.captions = captions }

    /// No layers to draw (a background is not a layer: it shows only behind letterboxed pictures).
    public var isEmpty: Bool { effects.isEmpty && stickers.isEmpty && titles.isEmpty && captions.isEmpty }

    /// Every file the layers read (the sandbox lets a run read these and no others of the user's).
    public var filesRead: [String] {
        var files = stickers.map(\.image) + captions.filter { $0.inputTrack == nil }.map(\.file)
        files += titles.compactMap { if case .gpx(let path)? = $0.source { path } else { nil } }
        return files + (background?.file.map { [$0] } ?? [])
    }

    /// Reads and validates an overlay description; every problem is a usage error naming the file and the
    /// JSON path. Image paths are relative to the JSON file.
    public static func load(jsonFile path: String) throws -> OverlaySpec {
        var (parser, root) = try Parser.open(path, what: "the overlay description")
        return try parse(root, at: "$", parser: &parser)
    }

    /// An overlay description already read from JSON (also the `overlays` of a timeline file), at `at`.
    static func parse(_ root: Any, at path: String, parser: inout Parser) throws -> OverlaySpec {
        let object = try parser.object(root, at: path, allowed: ["effects", "stickers", "titles", "captions", "background"])
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
    public static func sticker(shorthand text: String) throws -> StickerSpec {
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
        var parser = Parser(file: "--sticker \(text)")
        try parser.check(s, at: "")
        return s
    }
}

/// JSON walking with the path of every value, for one-line errors.
struct Parser {
    let file: String
    var base: URL? = nil  // relative image paths are resolved against the JSON file's folder

    /// Reads and parses a JSON file: the parser for it (paths relative to its folder) and its root value.
    static func open(_ path: String, what: String) throws -> (Parser, Any) {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.usage("\(path): cannot read \(what)") }
        do {
            return (Parser(file: path, base: URL(fileURLWithPath: path).deletingLastPathComponent()), try JSONSerialization.jsonObject(with: data))
        } catch {
            throw SDRifyError.usage("\(path): malformed JSON")
        }
    }

    func fail(_ path: String, _ what: String) -> SDRifyError {
        SDRifyError.usage(path.isEmpty ? "\(file): \(what)" : "\(file): \(path): \(what)")
    }

    func object(_ v: Any, at path: String, allowed: Set<String>) throws -> [String: Any] {
        guard let o = v as? [String: Any] else { throw fail(path, "expected an object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) { throw fail("\(path).\(unknown)", "unknown key") }
        return o
    }

    func array(_ v: Any, at path: String) throws -> [Any] {
        guard let a = v as? [Any] else { throw fail(path, "expected an array") }
        return a
    }

    func number(_ v: Any?, at path: String) throws -> Double? {
        guard let v else { return nil }
        // JSON true/false also arrive as NSNumber; their type code is "c".
        guard let n = v as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue.isFinite else {
            throw fail(path, "expected a number")
        }
        return n.doubleValue
    }

    static func length(_ s: String) -> Length? { Length(parsing: s) }

    func length(_ v: Any?, at path: String) throws -> Length? {
        guard let v else { return nil }
        if let s = v as? String {
            guard s.hasSuffix("%"), let l = Parser.length(s) else { throw fail(path, "expected pixels or a percentage like \"5%\"") }
            return l
        }
        return try number(v, at: path).map { .pixels($0) }
    }

    mutating func sticker(_ v: Any, at path: String) throws -> StickerSpec {
        let o = try object(
            v, at: path,
            allowed: [
                "image", "x", "y", "width", "height", "start", "end", "opacity",
                "fade_in", "fade_out", "keyframes"
            ])
        guard var image = o["image"] as? String, !image.isEmpty else { throw fail("\(path).image", "expected an image file name") }
        if let base, !image.hasPrefix("/") { image = base.appendingPathComponent(image).path }
        guard let x = try length(o["x"], at: "\(path).x") else { throw fail("\(path).x", "missing") }
        guard let y = try length(o["y"], at: "\(path).y") else { throw fail("\(path).y", "missing") }
        var s = StickerSpec(image: image, x: x, y: y)
        s.width = try length(o["width"], at: "\(path).width")
        s.height = try length(o["height"], at: "\(path).height")
        s.start = try number(o["start"], at: "\(path).start") ?? 0
        s.end = try number(o["end"], at: "\(path).end")
        s.opacity = try number(o["opacity"], at: "\(path).opacity") ?? 1
        s.fadeIn = try number(o["fade_in"], at: "\(path).fade_in") ?? 0
        s.fadeOut = try number(o["fade_out"], at: "\(path).fade_out") ?? 0
        if let list = o["keyframes"] {
            for (i, item) in try array(list, at: "\(path).keyframes").enumerated() {
                let kp = "\(path).keyframes[\(i)]"
                let k = try object(item, at: kp, allowed: ["t", "x", "y", "scale", "rotation", "opacity", "easing"])
                guard let t = try number(k["t"], at: "\(kp).t") else { throw fail("\(kp).t", "missing") }
                var f = StickerKeyframe(t: t)
                f.easing = try easing(k["easing"], at: "\(kp).easing")
                f.x = try length(k["x"], at: "\(kp).x")
                f.y = try length(k["y"], at: "\(kp).y")
                f.scale = try number(k["scale"], at: "\(kp).scale")
                f.rotation = try number(k["rotation"], at: "\(kp).rotation")
                f.opacity = try number(k["opacity"], at: "\(kp).opacity")
                if t < 0 { throw fail("\(kp).t", "must be 0 or more") }
                if let last = s.keyframes.last, t <= last.t { throw fail("\(kp).t", "keyframes must be in time order") }
                if let sc = f.scale, sc <= 0 { throw fail("\(kp).scale", "must be more than 0") }
                if let op = f.opacity, !(0...1).contains(op) { throw fail("\(kp).opacity", "must be between 0 and 1") }
                s.keyframes.append(f)
            }
        }
        try check(s, at: path)
        return s
    }

    /// Value checks shared by the JSON and the shorthand.
    mutating func check(_ s: StickerSpec, at path: String) throws {
        func sub(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        for (key, l) in [("width", s.width), ("height", s.height)] {
            if let l, l.resolve(against: 100) <= 0 { throw fail(sub(key), "must be more than 0") }
        }
        if s.start < 0 { throw fail(sub("start"), "must be 0 or more") }
        if let end = s.end, end < s.start { throw fail(sub("end"), "is before start") }
        if !(0...1).contains(s.opacity) { throw fail(sub("opacity"), "must be between 0 and 1") }
        if s.fadeIn < 0 { throw fail(sub("fade_in"), "must be 0 or more") }
        if s.fadeOut < 0 { throw fail(sub("fade_out"), "must be 0 or more") }
        if !FileManager.default.isReadableFile(atPath: s.image) { throw fail(sub("image"), "cannot read \(s.image)") }
    }
}
