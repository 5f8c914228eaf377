import Foundation

/// A line (or lines) of text over the picture for a while, drawn by libass like captions.
public struct TitleSpec: Equatable, Sendable {
    public enum Position: String, CaseIterable, Sendable {
        case topLeft = "top-left", topCenter = "top-center", topRight = "top-right"
        case centerLeft = "center-left", center = "center", centerRight = "center-right"
        case bottomLeft = "bottom-left", bottomCenter = "bottom-center", bottomRight = "bottom-right"

        /// ASS's numpad alignment.
        var alignment: Int {
            switch self {
            case .bottomLeft: 1
            case .bottomCenter: 2
            case .bottomRight: 3
            case .centerLeft: 4
            case .center: 5
            case .centerRight: 6
            case .topLeft: 7
            case .topCenter: 8
            case .topRight: 9
            }
        }
    }

    public var text: String
    public var start: Double = 0, end: Double? = nil     // seconds of output
    public var fadeIn: Double = 0, fadeOut: Double = 0
    public var position = Position.bottomCenter
    public var x: Length? = nil, y: Length? = nil        // the text's top-left, instead of a position
    public var look = TextLook(size: .percent(6), outlineColor: .black)
    public init(text: String) { self.text = text }

    /// The title as an ASS script for a `width`×`height` picture.
    func assScript(width: Int, height: Int) -> String {
        let margin = Int((Double(min(width, height)) * 0.05).rounded())
        var tags = ""
        if fadeIn > 0 || fadeOut > 0 { tags += "\\fad(\(Int(fadeIn * 1000)),\(Int(fadeOut * 1000)))" }
        if x != nil || y != nil {
            tags += "\\an7\\pos(\(Int((x?.resolve(against: width) ?? 0).rounded())),\(Int((y?.resolve(against: height) ?? 0).rounded())))"
        }
        let body = text.replacingOccurrences(of: "{", with: "(").replacingOccurrences(of: "}", with: ")")
            .replacingOccurrences(of: "\n", with: "\\N")
        let style = look.assStyle(name: "Title", alignment: position.alignment, margin: margin, width: width, height: height)
        return ASSScript.head(width: width, height: height, style: style)
            + "Dialogue: 0,\(ASSScript.stamp(start)),\(ASSScript.stamp(end ?? 359_999)),Title,,0,0,0,,{\(tags)}\(body)\n"
    }
}

extension Parser {
    func title(_ v: Any, at path: String) throws -> TitleSpec {
        let o = try object(v, at: path, allowed: Parser.textLookKeys.union(["text", "start", "end", "fade_in", "fade_out", "position", "x", "y"]))
        guard let text = o["text"] as? String, !text.isEmpty else { throw fail("\(path).text", "expected the title's text") }
        var t = TitleSpec(text: text)
        t.start = try nonNegative(o["start"], at: "\(path).start") ?? 0
        t.end = try number(o["end"], at: "\(path).end")
        if let end = t.end, end <= t.start { throw fail("\(path).end", "must be after start") }
        t.fadeIn = try nonNegative(o["fade_in"], at: "\(path).fade_in") ?? 0
        t.fadeOut = try nonNegative(o["fade_out"], at: "\(path).fade_out") ?? 0
        if let p = try string(o["position"], at: "\(path).position") {
            guard let position = TitleSpec.Position(rawValue: p) else {
                throw fail("\(path).position", "expected one of \(TitleSpec.Position.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            t.position = position
        }
        t.x = try length(o["x"], at: "\(path).x")
        t.y = try length(o["y"], at: "\(path).y")
        if (t.x != nil || t.y != nil) && o["position"] != nil { throw fail(path, "give a position or x/y, not both") }
        t.look = try textLook(o, at: path, over: t.look)
        return t
    }
}
