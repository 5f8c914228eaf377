import Foundation
import SDRifyLayers
import SDRifyPresets
import SDRifyValues

/// Reads an edit description (EDIT.json): `output`, `clips`, `music`, `overlays`. Every problem is a usage error
/// naming the file and the JSON path; paths inside are relative to the file. Its output values win over `base`.
extension Timeline {
    /// `transition`: for clips that give none (the last one's is never used).
    package static func load(jsonFile path: String, base: OutputSpec, transition: Transition = .cut) throws -> Timeline {
        var (parser, root) = try Parser.open(path, what: "the timeline")
        if let top = root as? [String: Any], top["clips"] == nil, !Set(top.keys).isDisjoint(with: OverlaySpec.keys) {
            throw parser.fail("", "these are overlays (no clips), not a timeline: give them with --overlays")
        }
        let top = try parser.object(root, at: "$", allowed: ["output", "clips", "music", "overlays"])
        var output = base
        if let o = top["output"] { try parser.output(o, into: &output) }
        guard let list = top["clips"] else { throw parser.fail("$.clips", "missing") }
        let items = try parser.array(list, at: "$.clips")
        guard !items.isEmpty else { throw parser.fail("$.clips", "needs at least one clip") }
        var timeline = Timeline(
            output: output, clips: try items.enumerated().map { try parser.clip($1, at: "$.clips[\($0)]", transition: transition) })
        if let m = top["music"] { timeline.music = try parser.music(m, at: "$.music") }
        if let o = top["overlays"] { timeline.overlays = try OverlaySpec.parse(o, at: "$.overlays", parser: &parser) }
        try timeline.validate { "\(path): $.clips[\($0)]" }
        return timeline
    }
}

extension Parser {
    func output(_ v: Any, into out: inout OutputSpec) throws {
        let o = try object(v, at: "$.output", allowed: ["preset", "fps", "background", "fit", "image_duration", "slow_motion"])
        if let name = try string(o["preset"], at: "$.output.preset") {
            guard let p = ExportPreset.named(name) else { throw fail("$.output.preset", "unknown preset '\(name)'") }
            out.namedPreset = p  // --codec still applies (OutputSpec.preset)
        }
        if let f = o["fps"] {
            let text = try (f as? String) ?? number(f, at: "$.output.fps").map { String($0) } ?? ""
            guard let rate = FrameRate(parsing: text) else { throw fail("$.output.fps", "expected a rate \(FrameRate.valid.spoken)") }
            out.fps = rate
        }
        if let b = try background(o["background"], at: "$.output.background") { out.background = b }
        if let name = try string(o["fit"], at: "$.output.fit") {
            guard let fit = Fit(rawValue: name) else { throw fail("$.output.fit", unknownChoice("fit", name, Fit.allCases.map(\.rawValue))) }
            out.fit = fit
        }
        if let d = try positiveTime(o["image_duration"], at: "$.output.image_duration") { out.imageDuration = d }
        if let mode = try string(o["slow_motion"], at: "$.output.slow_motion") {
            let choices = OutputSpec.slowMotionChoices
            guard let choice = choices.first(where: { $0.word == mode }) else {
                throw fail("$.output.slow_motion", unknownChoice("slow_motion", mode, choices.map(\.word)))
            }
            out.flattenSlowMotion = choice.flattens
        }
    }

    /// A clip's `"crop"`: [X, Y, W, H] in pixels of its picture as it shows (after its turn).
    func crop(_ v: Any?, at path: String) throws -> CropRect? {
        guard let v else { return nil }
        let bad = fail(path, "expected [X, Y, W, H]: whole pixels, X and Y 0 or more, W and H 2 or more")
        guard let items = v as? [Any], items.count == 4 else { throw bad }
        let n = try items.enumerated().map { i, item -> Int in
            guard let d = try number(item, at: "\(path)[\(i)]"), let k = Int(exactly: d) else { throw bad }
            return k
        }
        guard let rect = CropRect(checking: n[0], n[1], n[2], n[3]) else { throw bad }
        return rect
    }

    /// A clip's `"rotate"` (0, 90, 180 or 270 degrees clockwise) and `"flip"` (`"h"` or `"v"`), after its own
    /// orientation.
    func turn(rotate: Any?, flip: Any?, at path: String) throws -> Orientation {
        var degrees = 0
        if let n = try number(rotate, at: "\(path).rotate") {
            guard let d = Int(exactly: n), [0, 90, 180, 270].contains(d) else {
                throw fail("\(path).rotate", "expected 0, 90, 180 or 270 (degrees clockwise), not \(n)")
            }
            degrees = d
        }
        var mirror: Orientation.Flip? = nil
        if let name = try string(flip, at: "\(path).flip") {
            guard let f = Orientation.Flip(rawValue: name) else {
                throw fail("\(path).flip", unknownChoice("flip", name, Orientation.Flip.allCases.map(\.rawValue)))
            }
            mirror = f
        }
        return Orientation(rotate: degrees, flip: mirror) ?? .up
    }

    /// A clip's `"zoom"`: `{"from": VIEW, "to": VIEW, "easing": …}`, a VIEW being `{"scale": S, "x": X, "y": Y}`
    /// (x and y the window's centre as fractions of the picture) or a bare scale; both optional.
    func zoom(_ v: Any, at path: String) throws -> Zoom {
        let o = try object(v, at: path, allowed: ["from", "to", "easing"])
        var zoom = Zoom()
        func view(_ v: Any?, at path: String, default d: Zoom.View) throws -> Zoom.View {
            guard let v else { return d }
            if let scale = v as? Double ?? (v as? Int).map(Double.init) {
                guard Zoom.scales.contains(scale) else { throw fail(path, "expected a scale \(Zoom.scales.spoken), not \(scale)") }
                return Zoom.View(scale: scale)
            }
            let o = try object(v, at: path, allowed: ["scale", "x", "y"])
            var view = d
            if let s = try nonNegative(o["scale"], at: "\(path).scale") {
                guard Zoom.scales.contains(s) else { throw fail("\(path).scale", "expected a scale \(Zoom.scales.spoken), not \(s)") }
                view.scale = s
            }
            for (key, keyPath) in [("x", \Zoom.View.x), ("y", \Zoom.View.y)] {
                if let f = try nonNegative(o[key], at: "\(path).\(key)") {
                    guard f <= 1 else { throw fail("\(path).\(key)", "expected a fraction of the picture from 0 to 1, not \(f)") }
                    view[keyPath: keyPath] = f
                }
            }
            return view
        }
        zoom.from = try view(o["from"], at: "\(path).from", default: zoom.from)
        zoom.to = try view(o["to"], at: "\(path).to", default: zoom.to)
        zoom.easing = try easing(o["easing"], at: "\(path).easing")
        return zoom
    }

    /// A clip, or (`cell`) one cell of a split screen: a clip without a transition, zoom or split of its own.
    package func clip(_ v: Any, at path: String, transition: Transition, cell: Bool = false) throws -> TimelineClip {
        let pictureKeys: Set<String> = [
            "file", "image", "color", "from", "to", "duration", "fit", "volume", "rotate", "flip", "crop", "speed", "motion"
        ]
        let o = try object(v, at: path, allowed: cell ? pictureKeys : pictureKeys.union(["transition", "zoom", "split", "layout", "pip"]))
        let sources = ["file", "image", "color", "split"].filter { o[$0] != nil }
        guard sources.count == 1 else {
            throw fail(path, cell ? "needs exactly one of file, image or color" : "needs exactly one of file, image, color or split")
        }
        let source: ClipMedia
        if let cells = o["split"] {
            // A split screen shows its cells for its duration (or its longest video cell's): nothing of a clip's own
            // picture (from/to, a speed, a turn or crop, a zoom) applies to it, only to its cells.
            for key in ["from", "to", "speed", "motion", "rotate", "flip", "crop", "zoom"] where o[key] != nil {
                throw fail("\(path).\(key)", "applies to a split screen's cells, not to the split screen")
            }
            guard let list = cells as? [Any], (2...4).contains(list.count) else {
                throw fail("\(path).split", "expected a list of 2 or 4 cells (each a clip: file, image or color)")
            }
            let layout: SplitLayout
            if let name = try string(o["layout"], at: "\(path).layout") {
                guard let l = SplitLayout(rawValue: name) else {
                    throw fail("\(path).layout", unknownChoice("layout", name, SplitLayout.allCases.map(\.rawValue)))
                }
                layout = l
            } else {
                layout = list.count == 4 ? .grid : .sideBySide
            }
            guard list.count == layout.cellCount else {
                throw fail("\(path).split", "a \(layout.rawValue) split screen has \(layout.cellCount) cells, not \(list.count)")
            }
            source = .split(
                try list.enumerated().map { k, cell in try self.clip(cell, at: "\(path).split[\(k)]", transition: Transition.cut, cell: true) },
                layout)
        } else if o["layout"] != nil {
            throw fail("\(path).layout", "applies to a split screen (\"split\": [...])")
        } else if let f = try file(o["file"], at: "\(path).file") {
            source = .video(f)
        } else if let f = try file(o["image"], at: "\(path).image") {
            source = .image(f)
        } else {
            source = .color(try color(o["color"], at: "\(path).color")!)
        }
        var clip = TimelineClip(source: source)
        clip.transition = transition
        clip.from = try nonNegativeTime(o["from"], at: "\(path).from")
        clip.to = try positiveTime(o["to"], at: "\(path).to")
        clip.duration = try positiveTime(o["duration"], at: "\(path).duration")
        if let name = try string(o["fit"], at: "\(path).fit") {
            guard let fit = Fit(rawValue: name) else { throw fail("\(path).fit", unknownChoice("fit", name, Fit.allCases.map(\.rawValue))) }
            clip.fit = fit
        }
        clip.volume = try nonNegative(o["volume"], at: "\(path).volume") ?? 1
        if let m = o["motion"] {
            guard let on = m as? Bool else { throw fail("\(path).motion", "expected true or false") }
            guard !{ if case .color = source { true } else { false } }() else { throw fail("\(path).motion", "a colour has no movie") }
            clip.motion = on
        }
        if let z = o["zoom"] {
            guard !{ if case .color = source { true } else { false } }() else { throw fail("\(path).zoom", "a zoom applies to photos and videos") }
            clip.zoom = try zoom(z, at: "\(path).zoom")
        }
        if let v = try nonNegative(o["speed"], at: "\(path).speed") {
            guard let speed = Speed(v) else { throw fail("\(path).speed", "expected a speed \(Speed.valid.spoken), not \(v)") }
            guard case .video = source else { throw fail("\(path).speed", "a speed applies to video clips") }
            clip.speed = speed
        }
        clip.framing = Framing(turn: try turn(rotate: o["rotate"], flip: o["flip"], at: path), crop: try crop(o["crop"], at: "\(path).crop"))
        if let list = o["pip"] {
            clip.pip = try array(list, at: "\(path).pip").enumerated().map { try pictureInPicture($1, at: "\(path).pip[\($0)]") }
        }
        if let t = o["transition"] {
            let tp = "\(path).transition"
            if let name = t as? String {
                guard let tr = Transition(spec: name) else {
                    let kind = String(name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    guard TransitionKind(name: kind) != nil else {
                        throw fail(tp, unknownChoice("transition", kind, TransitionKind.allCases.map(\.rawValue)))
                    }
                    throw fail(tp, "'\(name)': expected TYPE[:SECONDS] with SECONDS more than 0")
                }
                clip.transition = tr
            } else {
                let to = try object(t, at: tp, allowed: ["type", "duration"])
                let name = try string(to["type"], at: "\(tp).type") ?? "fade"
                guard let kind = TransitionKind(name: name) else {
                    throw fail("\(tp).type", unknownChoice("transition", name, TransitionKind.allCases.map(\.rawValue)))
                }
                clip.transition = Transition(
                    kind: kind, duration: try positiveTime(to["duration"], at: "\(tp).duration") ?? Transition.defaultDuration)
            }
        }
        return clip
    }

    /// A picture in a picture: a video file, its part (`from`, `to`), its place and motion as a sticker's, its corners,
    /// border and volume.
    func pictureInPicture(_ v: Any, at path: String) throws -> PictureInPicture {
        let o = try object(v, at: path, allowed: Parser.placementKeys.union(["file", "from", "to", "radius", "border", "border_color", "volume"]))
        guard let f = try file(o["file"], at: "\(path).file") else { throw fail("\(path).file", "missing") }
        var pip = PictureInPicture(placement: try placement(o, at: path, image: f, turns: false))
        pip.from = try nonNegativeTime(o["from"], at: "\(path).from")
        pip.to = try positiveTime(o["to"], at: "\(path).to")
        if let from = pip.from, let to = pip.to, to <= from { throw fail("\(path).to", "must be after from") }
        pip.radius = try nonNegative(o["radius"], at: "\(path).radius") ?? 0
        pip.border = try nonNegative(o["border"], at: "\(path).border") ?? 0
        pip.borderColor = try color(o["border_color"], at: "\(path).border_color") ?? pip.borderColor
        pip.volume = try nonNegative(o["volume"], at: "\(path).volume") ?? 1
        return pip
    }

    package func music(_ v: Any, at path: String) throws -> MusicTrack {
        let o = try object(v, at: path, allowed: ["file", "volume", "fade_in", "fade_out"])
        guard let f = try file(o["file"], at: "\(path).file") else { throw fail("\(path).file", "missing") }
        var m = MusicTrack(path: f)
        m.volume = try nonNegative(o["volume"], at: "\(path).volume") ?? m.volume
        m.fadeIn = try nonNegativeTime(o["fade_in"], at: "\(path).fade_in") ?? .zero
        m.fadeOut = try nonNegativeTime(o["fade_out"], at: "\(path).fade_out") ?? .zero
        return m
    }
}
