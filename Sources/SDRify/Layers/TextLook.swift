import Foundation

/// How generated text looks (titles, SRT/WebVTT/TTML/SCC captions): one ASS style.
public struct TextLook: Equatable, Sendable {
    public var size: Length                    // of the picture's short edge, or pixels
    public var color = RGBColor(r: 255, g: 255, b: 255)
    public var outline: Double? = nil          // pixels; default a sixteenth of the size
    public var outlineColor: RGBColor
    public var boxColor: RGBColor? = nil       // an opaque box behind the text instead of the outline
    public var font = "DejaVu Sans"
    public init(size: Length, outlineColor: RGBColor) { self.size = size; self.outlineColor = outlineColor }

    /// The text height in pixels of a `width`×`height` picture.
    func pixels(width: Int, height: Int) -> Double { max(1, size.resolve(against: min(width, height))) }
    func outlinePixels(width: Int, height: Int) -> Double { outline ?? max(1, pixels(width: width, height: height) / 16) }

    /// The style line (after "Style: ") `name`, at ASS numpad `alignment`, `margin` pixels from the edges.
    func assStyle(name: String, alignment: Int, margin: Int, width: Int, height: Int) -> String {
        let back = ASSScript.color(boxColor ?? outlineColor)
        return "\(name),\(font.replacingOccurrences(of: ",", with: " ")),\(String(format: "%.1f", pixels(width: width, height: height))),"
            + "\(ASSScript.color(color)),\(ASSScript.color(color)),\(back),\(back),0,0,0,0,100,100,0,0,\(boxColor == nil ? 1 : 3),"
            + "\(String(format: "%.1f", outlinePixels(width: width, height: height))),0,\(alignment),\(margin),\(margin),\(margin),1"
    }
}

extension Parser {
    /// The look's keys of an entry (`size`, `color`, `outline`, `outline_color`, `box_color`, `font`) over `look`.
    static let textLookKeys: Set<String> = ["size", "color", "outline", "outline_color", "box_color", "font"]

    func textLook(_ o: [String: Any], at path: String, over look: TextLook) throws -> TextLook {
        var l = look
        if let size = try length(o["size"], at: "\(path).size") {
            guard size.resolve(against: 100) > 0 else { throw fail("\(path).size", "must be more than 0") }
            l.size = size
        }
        if let c = try color(o["color"], at: "\(path).color") { l.color = c }
        l.outline = try nonNegative(o["outline"], at: "\(path).outline")
        if let c = try color(o["outline_color"], at: "\(path).outline_color") { l.outlineColor = c }
        l.boxColor = try color(o["box_color"], at: "\(path).box_color")
        if let f = try string(o["font"], at: "\(path).font") { l.font = f }
        return l
    }
}
