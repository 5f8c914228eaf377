import Foundation

/// How SRT, WebVTT, TTML and SCC captions look (ASS files keep their own styles). Sizes follow the picture's short edge, so
/// portrait captions are as readable as landscape ones; a cue takes at most two lines (a longer one is set smaller,
/// down to half the size, before a third line is allowed).
public struct CaptionStyle: Equatable, Sendable {
    public enum Position: String, CaseIterable, Sendable {
        case bottom, top, center
        var alignment: Int { switch self { case .bottom: 2; case .center: 5; case .top: 8 } }  // ASS numpad
    }

    public var look = TextLook(size: .percent(5.5), outlineColor: RGBColor(r: 16, g: 16, b: 16))
    public var position = Position.bottom
    public var margin: Length = .percent(5)       // from the edge (and the sides), of the short edge, or pixels
    public init() {}

    static let maxLines = 2
    static let smallest = 0.5   // × the size, before a third line is allowed

    func pixels(_ length: Length, width: Int, height: Int) -> Double { length.resolve(against: min(width, height)) }

    /// The ASS style line (after "Style: ") named `Default` for a `width`×`height` picture.
    func assStyle(width: Int, height: Int) -> String {
        look.assStyle(name: "Default", alignment: position.alignment, margin: Int(pixels(margin, width: width, height: height).rounded()),
                      width: width, height: height)
    }
}

/// Captions to burn in: a file (SRT, WebVTT or ASS) and the style for SRT/WebVTT.
public struct CaptionTrack: Equatable, Sendable {
    public var file: String
    public var style = CaptionStyle()
    public var offset = 0.0   // seconds added to every caption time

    /// `input:N` names subtitle track N of the input instead of a file.
    public var inputTrack: Int? {
        guard file.hasPrefix("input:"), let n = Int(file.dropFirst(6)), n >= 0 else { return nil }
        return n
    }
    public init(file: String, style: CaptionStyle = CaptionStyle()) { self.file = file; self.style = style }
}

extension Parser {
    /// The style keys of a caption entry (shared by every key set that carries them).
    static let captionStyleKeys: Set<String> = Parser.textLookKeys.union(["offset", "position", "margin"])

    func captionStyle(_ o: [String: Any], at path: String) throws -> CaptionStyle {
        var s = CaptionStyle()
        s.look = try textLook(o, at: path, over: s.look)
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
        return s
    }

    func captionTrack(_ o: [String: Any], file: String, at path: String) throws -> CaptionTrack {
        var t = CaptionTrack(file: file, style: try captionStyle(o, at: path))
        t.offset = try number(o["offset"], at: "\(path).offset") ?? 0
        return t
    }
}
