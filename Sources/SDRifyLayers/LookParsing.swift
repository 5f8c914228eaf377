import Foundation
import SDRifyCaptions

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
