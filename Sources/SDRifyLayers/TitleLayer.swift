import Foundation
import SDRifyCaptions
import SDRifyValues

/// A line (or lines) of text over the picture for a while, drawn by libass like captions.
package struct TitleSpec: Equatable, Sendable {
    enum Position: String, CaseIterable, Sendable {
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

    package var text: String
    var start: Double = 0, end: Double? = nil  // seconds of output
    var fadeIn: Double = 0, fadeOut: Double = 0
    var position = Position.bottomCenter
    var x: Length? = nil, y: Length? = nil  // the text's top-left, instead of a position
    var look = TextLook(size: .percent(6), outlineColor: .black)
    package var source: DataSource? = nil  // fills {field} or {field:.Nf} in the text per frame
    package var sourceOffset = 0.0  // seconds from the source's clock to the output's
    /// The input's clock when the output is retimed (a speed, slow motion): the data is read at the input's time
    /// each output time shows (nil: the offset alone).
    package var clock: CueClock? = nil

    package init(text: String) { self.text = text }

    /// Steps of a data-driven title (its text changes at most this often).
    static let dataRate = 30.0

    /// The edge a title placed by `position` sits at: where it may meet captions.
    var edge: CaptionStyle.Position? {
        guard x == nil, y == nil else { return nil }  // placed by hand: where it was put
        switch position.alignment {
        case 1...3: return .bottom
        case 7...9: return .top
        default: return nil
        }
    }

    /// The seconds of output it shows.
    var shown: ClosedRange<Double> { start...(end ?? .infinity) }

    /// The title as an ASS script for a `width`×`height` picture. `clearance`: its distance from its edge, in pixels,
    /// at the least (the room captions at the same edge take, `OverlayStage`).
    func assScript(width: Int, height: Int, data: DataSeries? = nil, clearance: Int = 0) -> String {
        let margin = max(Int((Double(min(width, height)) * 0.05).rounded()), clearance)
        let place =
            x == nil && y == nil
            ? ""
            : "\\an7\\pos(\(Int((x?.resolve(against: width) ?? 0).rounded())),\(Int((y?.resolve(against: height) ?? 0).rounded())))"
        func fade(_ fadeIn: Double, _ fadeOut: Double) -> String {
            fadeIn > 0 || fadeOut > 0 ? "\\fad(\(Int(fadeIn * 1000)),\(Int(fadeOut * 1000)))" : ""
        }
        let tags = fade(fadeIn, fadeOut) + place
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "{", with: "(").replacingOccurrences(of: "}", with: ")").replacingOccurrences(of: "\n", with: "\\N")
        }
        let body = escaped(text)
        let style = look.assStyle(name: "Title", alignment: position.alignment, margin: margin, width: width, height: height)
        var script = ASSScript.head(width: width, height: height, style: style)
        guard let data else {
            return script + "Dialogue: 0,\(ASSScript.stamp(start)),\(ASSScript.stamp(end ?? 359_999)),Title,,0,0,0,,{\(tags)}\(body)\n"
        }
        // One event per change of the filled text, in steps of 1/30 s, over the title's time (or the data's).
        // Past the data's last sample the text holds: the steps stop there and the last event runs on.
        func sourceTime(_ t: Double) -> Double { clock.map { $0.input(MediaTime(seconds: t)).seconds } ?? t - sourceOffset }
        let dataEnd = clock.map { $0.output(MediaTime(seconds: data.span.upperBound)).seconds } ?? data.span.upperBound + sourceOffset
        let last = min(end ?? .infinity, max(start, dataEnd) + 1 / TitleSpec.dataRate)
        let steps = max(1, Int(((last - start) * TitleSpec.dataRate).rounded(.up)))
        var events: [(from: Double, to: Double, text: String)] = []
        for k in 0..<steps {
            let t = start + Double(k) / TitleSpec.dataRate
            let filled = escaped(TitleTemplate.fill(text, with: data.fields(at: sourceTime(t))))
            let to = min(last, t + 1 / TitleSpec.dataRate)
            if let e = events.last, e.text == filled { events[events.count - 1].to = to } else { events.append((t, to, filled)) }
        }
        events[events.count - 1].to = end ?? 359_999
        for (i, e) in events.enumerated() {
            let t = fade(i == 0 ? fadeIn : 0, i == events.count - 1 ? fadeOut : 0) + place
            script += "Dialogue: 0,\(ASSScript.stamp(e.from)),\(ASSScript.stamp(e.to)),Title,,0,0,0,,{\(t)}\(e.text)\n"
        }
        return script
    }
}

extension Parser {
    func title(_ v: Any, at path: String) throws -> TitleSpec {
        let o = try object(
            v, at: path, allowed: Parser.textLookKeys.union(["text", "start", "end", "fade_in", "fade_out", "position", "x", "y", "source"]))
        guard let text = o["text"] as? String, !text.isEmpty else { throw fail("\(path).text", "expected the title's text") }
        var t = TitleSpec(text: text)
        t.start = try nonNegative(o["start"], at: "\(path).start") ?? 0
        t.end = try number(o["end"], at: "\(path).end")
        if let end = t.end, end <= t.start { throw fail("\(path).end", "must be after start") }
        t.fadeIn = try nonNegative(o["fade_in"], at: "\(path).fade_in") ?? 0
        t.fadeOut = try nonNegative(o["fade_out"], at: "\(path).fade_out") ?? 0
        if let p = try string(o["position"], at: "\(path).position") {
            guard let position = TitleSpec.Position(rawValue: p) else {
                throw fail("\(path).position", unknownChoice("position", p, TitleSpec.Position.allCases.map(\.rawValue)))
            }
            t.position = position
        }
        t.x = try length(o["x"], at: "\(path).x")
        t.y = try length(o["y"], at: "\(path).y")
        if (t.x != nil || t.y != nil) && o["position"] != nil { throw fail(path, "give a position or x/y, not both") }
        t.look = try textLook(o, at: path, over: t.look)
        if let src = try string(o["source"], at: "\(path).source") {
            if src.hasPrefix("track:"), let n = Int(src.dropFirst(6)), n >= 0 {
                t.source = .track(n)
            } else if src.hasPrefix("gpx:") {
                t.source = .gpx(try file(String(src.dropFirst(4)), at: "\(path).source")!)
            } else {
                throw fail("\(path).source", "expected track:N or gpx:FILE")
            }
            if TitleTemplate.fields(in: text).isEmpty { throw fail("\(path).text", "a title with a source needs {field} in its text") }
        }
        return t
    }
}
