import Foundation

/// How SRT and WebVTT captions look (ASS files keep their own styles). Sizes follow the picture's short edge, so
/// portrait captions are as readable as landscape ones; a cue takes at most two lines (a longer one is set smaller,
/// down to half the size, before a third line is allowed).
public struct CaptionStyle: Equatable, Sendable {
    public enum Position: String, CaseIterable, Sendable {
        case bottom, top, center
        var alignment: Int { switch self { case .bottom: 2; case .center: 5; case .top: 8 } }  // ASS numpad
    }

    public var size: Length = .percent(5.5)       // of the short edge, or pixels
    public var position = Position.bottom
    public var margin: Length = .percent(5)       // from the edge (and the sides), of the short edge, or pixels
    public var color = RGBColor(r: 255, g: 255, b: 255)
    public var outline: Double? = nil             // pixels; default an eighteenth of the size
    public var outlineColor = RGBColor(r: 16, g: 16, b: 16)
    public var boxColor: RGBColor? = nil          // an opaque box behind each line instead of the outline
    public var font = "DejaVu Sans"
    public init() {}

    static let maxLines = 2
    static let smallest = 0.5   // × the size, before a third line is allowed

    func pixels(_ length: Length, width: Int, height: Int) -> Double { length.resolve(against: min(width, height)) }

    /// The ASS style line (after "Style: ") named `Default` for a `width`×`height` picture.
    func assStyle(width: Int, height: Int) -> String {
        let px = max(1, pixels(size, width: width, height: height))
        let border = outline ?? max(1, px / 18)
        let m = Int(pixels(margin, width: width, height: height).rounded())
        let back = boxColor ?? outlineColor
        return "Default,\(font.replacingOccurrences(of: ",", with: " ")),\(String(format: "%.1f", px)),\(ASSScript.color(color)),"
            + "\(ASSScript.color(color)),\(ASSScript.color(back)),\(ASSScript.color(back, alpha: boxColor == nil ? 0x80 : 0)),0,0,0,0,100,100,0,0,"
            + "\(boxColor == nil ? 1 : 3),\(String(format: "%.1f", border)),0,\(position.alignment),\(m),\(m),\(m),1"
    }
}

/// Captions to burn in: a file (SRT, WebVTT or ASS) and the style for SRT/WebVTT.
public struct CaptionTrack: Equatable, Sendable {
    public var file: String
    public var style = CaptionStyle()
    public var offset = 0.0   // seconds added to every caption time
    public init(file: String, style: CaptionStyle = CaptionStyle()) { self.file = file; self.style = style }
}

extension Parser {
    /// The style keys of a caption entry (shared by every key set that carries them).
    static let captionStyleKeys: Set<String> = ["offset", "size", "position", "margin", "color", "outline", "outline_color", "box_color", "font"]

    func captionStyle(_ o: [String: Any], at path: String) throws -> CaptionStyle {
        var s = CaptionStyle()
        if let size = try length(o["size"], at: "\(path).size") {
            guard size.resolve(against: 100) > 0 else { throw fail("\(path).size", "must be more than 0") }
            s.size = size
        }
        if let p = try string(o["position"], at: "\(path).position") {
            guard let position = CaptionStyle.Position(rawValue: p) else {
                throw fail("\(path).position", "expected one of \(CaptionStyle.Position.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            s.position = position
        }
        if let m = try length(o["margin"], at: "\(path).margin") {
            guard m.resolve(against: 100) >= 0 else { throw fail("\(path).margin", "must be 0 or more") }
            s.margin = m
        }
        if let c = try color(o["color"], at: "\(path).color") { s.color = c }
        s.outline = try nonNegative(o["outline"], at: "\(path).outline")
        if let c = try color(o["outline_color"], at: "\(path).outline_color") { s.outlineColor = c }
        s.boxColor = try color(o["box_color"], at: "\(path).box_color")
        if let f = try string(o["font"], at: "\(path).font") { s.font = f }
        return s
    }

    func captionTrack(_ o: [String: Any], file: String, at path: String) throws -> CaptionTrack {
        var t = CaptionTrack(file: file, style: try captionStyle(o, at: path))
        t.offset = try number(o["offset"], at: "\(path).offset") ?? 0
        return t
    }
}
