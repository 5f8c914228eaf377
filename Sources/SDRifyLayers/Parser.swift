import Foundation
import SDRifyCaptions
import SDRifyValues

/// JSON walking with the path of every value, for one-line errors.
package struct Parser {
    let file: String
    var base: URL? = nil  // relative image paths are resolved against the JSON file's folder

    /// Reads and parses a JSON file: the parser for it (paths relative to its folder) and its root value.
    package static func open(_ path: String, what: String) throws -> (Parser, Any) {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.usage("\(path): cannot read \(what)") }
        do {
            return (Parser(file: path, base: URL(fileURLWithPath: path).deletingLastPathComponent()), try JSONSerialization.jsonObject(with: data))
        } catch {
            throw SDRifyError.usage("\(path): malformed JSON\(JSONPosition.ofFirstError(in: [UInt8](data)).map { " at \($0)" } ?? "")")
        }
    }

    package func fail(_ path: String, _ what: String) -> SDRifyError {
        SDRifyError.usage(path.isEmpty ? "\(file): \(what)" : "\(file): \(path): \(what)")
    }

    package func object(_ v: Any, at path: String, allowed: Set<String>) throws -> [String: Any] {
        guard let o = v as? [String: Any] else { throw fail(path, "expected an object") }
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            let hint = Spelling.nearest(to: unknown, among: allowed.sorted()).map { "; did you mean '\($0)'?" } ?? ""
            throw fail("\(path).\(unknown)", "unknown key\(hint)")
        }
        return o
    }

    package func array(_ v: Any, at path: String) throws -> [Any] {
        guard let a = v as? [Any] else { throw fail(path, "expected an array") }
        return a
    }

    package func number(_ v: Any?, at path: String) throws -> Double? {
        guard let v else { return nil }
        // JSON true/false also arrive as NSNumber; their type code is "c".
        guard let n = v as? NSNumber, String(cString: n.objCType) != "c", n.doubleValue.isFinite else {
            throw fail(path, "expected a number")
        }
        return n.doubleValue
    }

    package static func length(_ s: String) -> Length? { Length(parsing: s) }

    package func length(_ v: Any?, at path: String) throws -> Length? {
        guard let v else { return nil }
        if let s = v as? String {
            guard s.hasSuffix("%"), let l = Parser.length(s) else { throw fail(path, "expected pixels or a percentage like \"5%\"") }
            return l
        }
        return try number(v, at: path).map { .pixels($0) }
    }

    /// The keys of a placement (`placement`): where, how large, when, how opaque, and its keyframes.
    package static let placementKeys: Set<String> = ["x", "y", "width", "height", "start", "end", "opacity", "fade_in", "fade_out", "keyframes"]

    mutating func sticker(_ v: Any, at path: String) throws -> StickerSpec {
        let o = try object(v, at: path, allowed: Parser.placementKeys.union(["image"]))
        guard var image = o["image"] as? String, !image.isEmpty else { throw fail("\(path).image", "expected an image file name") }
        if let base, !image.hasPrefix("/") { image = base.appendingPathComponent(image).path }
        return try placement(o, at: path, image: image)
    }

    /// A sticker's placement read from its object `o` (a sticker's, or a picture in a picture's: `image` its file).
    /// `turns`: whether keyframes may turn it.
    package func placement(_ o: [String: Any], at path: String, image: String, turns: Bool = true) throws -> StickerSpec {
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
                if f.rotation != nil, !turns { throw fail("\(kp).rotation", "a picture in a picture does not turn") }
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
    func check(_ s: StickerSpec, at path: String) throws {
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

/// The values every description reads: strings, files relative to it, colours, numbers and times with their ranges,
/// a background.
extension Parser {
    package func string(_ v: Any?, at path: String) throws -> String? {
        guard let v else { return nil }
        guard let s = v as? String, !s.isEmpty else { throw fail(path, "expected a non-empty string") }
        return s
    }

    package func file(_ v: Any?, at path: String) throws -> String? {
        guard var f = try string(v, at: path) else { return nil }
        if let base, !f.hasPrefix("/") { f = base.appendingPathComponent(f).path }
        guard FileManager.default.isReadableFile(atPath: f) else { throw fail(path, "cannot read \(f)") }
        return f
    }

    package func color(_ v: Any?, at path: String) throws -> RGBColor? {
        guard let s = try string(v, at: path) else { return nil }
        guard let c = RGBColor(hex: s) else { throw fail(path, "expected a colour like \"#RRGGBB\"") }
        return c
    }

    package func positive(_ v: Any?, at path: String) throws -> Double? {
        guard let n = try number(v, at: path) else { return nil }
        guard n > 0 else { throw fail(path, "must be more than 0") }
        return n
    }

    package func nonNegative(_ v: Any?, at path: String) throws -> Double? {
        guard let n = try number(v, at: path) else { return nil }
        guard n >= 0 else { throw fail(path, "must be 0 or more") }
        return n
    }

    /// A time in seconds, more than 0.
    package func positiveTime(_ v: Any?, at path: String) throws -> MediaTime? { try positive(v, at: path).map { MediaTime(seconds: $0) } }

    /// A time in seconds, 0 or more.
    package func nonNegativeTime(_ v: Any?, at path: String) throws -> MediaTime? { try nonNegative(v, at: path).map { MediaTime(seconds: $0) } }

    /// `"#RRGGBB"`, `{"color": "#RRGGBB"}`, `{"image": FILE, "fit": "cover|contain|stretch"}` or `{"blur": RADIUS}`.
    package func background(_ v: Any?, at path: String) throws -> Background? {
        guard let v else { return nil }
        if v is String { return try color(v, at: path).map { .color($0) } }
        let o = try object(v, at: path, allowed: ["color", "image", "fit", "blur"])
        let kinds = ["color", "image", "blur"].filter { o[$0] != nil }
        guard kinds.count == 1 else { throw fail(path, "needs exactly one of color, image or blur") }
        if o["fit"] != nil && kinds[0] != "image" { throw fail("\(path).fit", "applies to an image background") }
        switch kinds[0] {
        case "color": return .color(try color(o["color"], at: "\(path).color")!)
        case "blur": return .blur(radius: try positive(o["blur"], at: "\(path).blur"))
        default:
            let file = try file(o["image"], at: "\(path).image")!
            var fit = Fit.cover
            if let name = try string(o["fit"], at: "\(path).fit") {
                guard let f = Fit(rawValue: name) else { throw fail("\(path).fit", unknownChoice("fit", name, Fit.allCases.map(\.rawValue))) }
                fit = f
            }
            return .image(file, fit: fit)
        }
    }
}

/// Where a JSON text first goes wrong, as "line L, column C" for the one-line error (Foundation's parser says only
/// that it failed). A scanner of JSON's grammar that stops at the first byte that cannot continue it.
enum JSONPosition {
    static func ofFirstError(in bytes: [UInt8]) -> String? {
        var scanner = Scanner(bytes: bytes)
        let ok =
            scanner.value()
            && {
                scanner.space(); return scanner.at == bytes.count
            }()
        guard !ok else { return nil }
        let upTo = bytes[..<min(scanner.at, bytes.count)]
        let line = upTo.filter { $0 == 0x0A }.count + 1
        let column = upTo.count - (upTo.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return "line \(line), column \(column)" + (scanner.at >= bytes.count ? " (the file ends early)" : "")
    }

    private struct Scanner {
        let bytes: [UInt8]
        var at = 0
        var depth = 0

        mutating func space() { while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 } }

        mutating func eat(_ c: UInt8) -> Bool {
            space()
            guard at < bytes.count, bytes[at] == c else { return false }
            at += 1
            return true
        }

        mutating func value() -> Bool {
            space()
            guard at < bytes.count, depth < 512 else { return false }
            switch bytes[at] {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            default: return number()
            }
        }

        mutating func container(close: UInt8, keyed: Bool) -> Bool {
            at += 1
            depth += 1
            defer { depth -= 1 }
            if eat(close) { return true }
            while true {
                if keyed {
                    space()
                    guard string(), eat(UInt8(ascii: ":")) else { return false }
                }
                guard value() else { return false }
                if eat(close) { return true }
                guard eat(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func string() -> Bool {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return false }
            at += 1
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\""): at += 1; return true
                case UInt8(ascii: "\\"): at += 2
                case 0..<0x20: return false
                default: at += 1
                }
            }
            return false
        }

        mutating func word(_ w: String) -> Bool {
            for c in w.utf8 {
                guard at < bytes.count, bytes[at] == c else { return false }
                at += 1
            }
            return true
        }

        mutating func number() -> Bool {
            let start = at
            while at < bytes.count, "+-0123456789.eE".utf8.contains(bytes[at]) { at += 1 }
            return at > start && Double(String(decoding: bytes[start..<at], as: UTF8.self)) != nil
        }
    }
}
