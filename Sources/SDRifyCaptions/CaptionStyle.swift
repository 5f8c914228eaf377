import Foundation
import SDRifyValues

/// How SRT, WebVTT, TTML and SCC captions look (ASS files keep their own styles). Sizes follow the picture's short edge, so
/// portrait captions are as readable as landscape ones; a cue takes at most two lines (a longer one is set smaller,
/// down to half the size, before a third line is allowed).
package struct CaptionStyle: Equatable, Sendable {
    package enum Position: String, CaseIterable, Sendable {
        case bottom, top, center
        var alignment: Int {
            switch self {
            case .bottom: 2;
            case .center: 5;
            case .top: 8
            }
        }  // ASS numpad
    }

    package var look = TextLook(size: .percent(5.5), outlineColor: RGBColor(r: 16, g: 16, b: 16))
    package var position = Position.bottom
    package var margin: Length = .percent(5)  // from the edge (and the sides), of the short edge, or pixels

    package init() {}

    package static let maxLines = 2
    package static let smallest = 0.5  // × the size, before a third line is allowed

    package func pixels(_ length: Length, width: Int, height: Int) -> Double { length.resolve(against: min(width, height)) }

    /// The ASS style line (after "Style: ") named `Default` for a `width`×`height` picture.
    package func assStyle(width: Int, height: Int) -> String {
        look.assStyle(
            name: "Default", alignment: position.alignment, margin: Int(pixels(margin, width: width, height: height).rounded()),
            width: width, height: height)
    }
}

extension CaptionStyle {
    /// WebVTT cue settings as ASS: `align` (start/left, center, end/right) and a line number (0 the top line, −1 the
    /// bottom one) as alignment and vertical margin, so libass still keeps cues from overlapping; a `line` percentage
    /// of the height or a `position` percentage of the width (each with its own alignment) as an exact position.
    package func placement(_ settings: [String: String], width: Int, height: Int) -> (tags: String, marginV: Int?) {
        func split(_ v: String?) -> (value: String, align: String?)? {
            guard let v else { return nil }
            let parts = v.split(separator: ",", maxSplits: 1).map(String.init)
            return parts.isEmpty ? nil : (parts[0], parts.count > 1 ? parts[1] : nil)
        }
        func percent(_ s: String) -> Double? { s.hasSuffix("%") ? Double(s.dropLast()).map { min(max($0, 0), 100) / 100 } : nil }
        var column = 2  // 1 left, 2 centre, 3 right
        switch settings["align"] {
        case "start", "left": column = 1;
        case "end", "right": column = 3;
        default: break
        }
        var row = self.position.alignment - 1  // ASS numpad rows: 7 top, 4 middle, 1 bottom
        let margin = pixels(self.margin, width: width, height: height)
        let lineHeight = look.pixels(width: width, height: height) * 1.25
        let line = split(settings["line"]), position = split(settings["position"])
        var marginV: Int? = nil
        var y: Double? = nil
        if let line {
            if let p = percent(line.value) {
                y = p * Double(height)
                row = line.align == "center" ? 4 : line.align == "end" ? 1 : 7
            } else if let n = Int(line.value) {
                row = n >= 0 ? 7 : 1
                marginV = Int((margin + Double(n >= 0 ? n : -n - 1) * lineHeight).rounded())
            }
        }
        var x: Double? = nil
        if let position, let p = percent(position.value) {
            x = p * Double(width)
            switch position.align {
            case "line-left": column = 1;
            case "line-right": column = 3;
            case "center": column = 2;
            default: break
            }
        }
        if x == nil && y == nil {
            let an = row + column - 1
            return (an == self.position.alignment ? "" : "\\an\(an)", marginV)
        }
        // An exact position: the other coordinate where the alignment would put it.
        let px = x ?? (column == 1 ? margin : column == 3 ? Double(width) - margin : Double(width) / 2)
        let py = y ?? (row == 7 ? Double(marginV ?? Int(margin)) : row == 1 ? Double(height) - Double(marginV ?? Int(margin)) : Double(height) / 2)
        return ("\\an\(row + column - 1)\\pos(\(Int(px.rounded())),\(Int(py.rounded())))", nil)
    }
}
