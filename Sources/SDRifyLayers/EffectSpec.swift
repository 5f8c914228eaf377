import Foundation
import SDRifyCaptions
import SDRifyValues

/// How a keyframed value approaches a keyframe from the one before it.
package enum Easing: String, CaseIterable, Sendable {
    case linear, easeIn = "ease-in", easeOut = "ease-out", easeInOut = "ease-in-out"

    /// Progress 0–1 shaped by the easing (cubic in, out, in-out).
    package func apply(_ p: Double) -> Double {
        let x = min(max(p, 0), 1)
        switch self {
        case .linear: return x
        case .easeIn: return x * x * x
        case .easeOut: return 1 - pow(1 - x, 3)
        case .easeInOut: return x < 0.5 ? 4 * x * x * x : 1 - pow(-2 * x + 2, 3) / 2
        }
    }
}

/// A number an effect takes (what keyframes may animate): its key in a description, its value when not given, and
/// the range it accepts.
package struct EffectParameter: Sendable {
    package let name: String
    package let standard: Double
    package let range: ClosedRange<Double>

    init(_ name: String, _ standard: Double, _ range: ClosedRange<Double>) { (self.name, self.standard, self.range) = (name, standard, range) }
}

/// The picture effects, each described once: its numbers with their defaults and ranges, and the one setting of
/// its own a description may give (`EffectSetting`).
package enum EffectKind: String, CaseIterable, Sendable {
    case pixelate, blur, vortex, grayscale, sepia, adjust, vignette, pointillize

    package var parameters: [EffectParameter] {
        switch self {
        case .pixelate: [EffectParameter("block", 16, 2...512)]  // a block's edge (px)
        case .blur: [EffectParameter("radius", 12, 0...2000)]
        case .vortex: [EffectParameter("angle", 90, -3600...3600), EffectParameter("radius", 0, 0...2000)]  // radius 0: half the region's short edge
        case .grayscale: []
        case .sepia: [EffectParameter("strength", 1, 0...1)]
        case .adjust: [EffectParameter("brightness", 0, -1...1), EffectParameter("contrast", 1, 0...4), EffectParameter("saturation", 1, 0...4)]
        case .vignette: [EffectParameter("strength", 0.5, 0...1)]
        // a dot's diameter (px); how far dots stray from the grid
        case .pointillize: [EffectParameter("size", 12, 2...512), EffectParameter("jitter", 0.5, 0...1)]
        }
    }

    /// The key of the setting only this effect has (nil for those with none).
    var settingKey: String? {
        switch self {
        case .vortex: "center"
        case .pointillize: "background"
        default: nil
        }
    }
}

/// What one kind of effect has besides its numbers.
package enum EffectSetting: Equatable, Sendable {
    case center(x: Length, y: Length)  // vortex: where it turns (default: the region's centre)
    case background(RGBColor)  // pointillize: what shows between the dots (default: white)
}

/// A rectangle of the upright output picture (pixels or percentages).
package struct Region: Equatable, Sendable {
    var x: Length, y: Length, width: Length, height: Length

    package init(x: Length, y: Length, width: Length, height: Length) { self.x = x; self.y = y; self.width = width; self.height = height }
}

struct EffectKeyframe: Equatable, Sendable {
    var t: Double  // seconds from the effect's start
    var easing: Easing = .linear  // the approach to this keyframe
    var values: [String: Double] = [:]  // parameters at this keyframe
    var x: Length? = nil, y: Length? = nil  // where the region's top-left is (a moving region)
}

/// A time-ranged effect over the picture, or over one region of it.
package struct EffectSpec: Equatable, Sendable {
    var kind: EffectKind
    var start: Double = 0  // seconds of output
    var end: Double? = nil
    package var region: Region? = nil  // nil: the whole picture
    var setting: EffectSetting? = nil  // the kind's own (EffectKind.settingKey)
    package var values: [String: Double] = [:]  // parameters given (the kind's defaults fill the rest)
    var keyframes: [EffectKeyframe] = []
    package var path = ""  // where it was described, for errors found later (the frame size)

    package init(kind: EffectKind) { self.kind = kind }

    /// Parameter values and the region's top-left offset at `local` seconds into the effect.
    func state(at local: Double) -> (values: [String: Double], x: Length?, y: Length?) {
        var values = Dictionary(uniqueKeysWithValues: kind.parameters.map { ($0.name, $0.standard) }).merging(self.values) { $1 }
        guard !keyframes.isEmpty else { return (values, nil, nil) }
        let after = keyframes.firstIndex { $0.t > local } ?? keyframes.count
        let a = keyframes[max(after - 1, 0)], b = keyframes[min(after, keyframes.count - 1)]
        let p = b.t > a.t ? b.easing.apply((local - a.t) / (b.t - a.t)) : 1
        for name in kind.parameters.map(\.name) {
            let va = a.values[name] ?? values[name]!, vb = b.values[name] ?? values[name]!
            values[name] = va + (vb - va) * p
        }
        func mix(_ la: Length?, _ lb: Length?) -> Length? {
            switch (la, lb) {
            case (.pixels(let u)?, .pixels(let v)?): .pixels(u + (v - u) * p)
            case (.percent(let u)?, .percent(let v)?): .percent(u + (v - u) * p)
            default: p < 0.5 ? la ?? lb : lb ?? la
            }
        }
        return (values, mix(a.x, b.x), mix(a.y, b.y))
    }
}

extension Parser {
    /// A keyframe's easing (linear when absent).
    package func easing(_ v: Any?, at path: String) throws -> Easing {
        guard let v else { return .linear }
        guard let s = v as? String else {
            throw fail(path, "expected one of \(Easing.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let easing = Easing(rawValue: s) else { throw fail(path, unknownChoice("easing", s, Easing.allCases.map(\.rawValue))) }
        return easing
    }

    mutating func effect(_ v: Any, at path: String) throws -> EffectSpec {
        let common: Set<String> = Set(["type", "start", "end", "region", "keyframes"]).union(EffectKind.allCases.compactMap(\.settingKey))
        guard let o0 = v as? [String: Any] else { throw fail(path, "expected an object") }
        guard let name = o0["type"] as? String else {
            throw fail("\(path).type", "expected one of \(EffectKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let kind = EffectKind(rawValue: name) else {
            throw fail("\(path).type", unknownChoice("effect", name, EffectKind.allCases.map(\.rawValue)))
        }
        let o = try object(v, at: path, allowed: common.union(kind.parameters.map(\.name)))
        var e = EffectSpec(kind: kind)
        e.path = path
        e.start = try number(o["start"], at: "\(path).start") ?? 0
        e.end = try number(o["end"], at: "\(path).end")
        if e.start < 0 { throw fail("\(path).start", "must be 0 or more") }
        if let end = e.end, end <= e.start { throw fail("\(path).end", "must be after start") }
        for p in kind.parameters {
            guard let value = try number(o[p.name], at: "\(path).\(p.name)") else { continue }
            guard p.range.contains(value) else { throw fail("\(path).\(p.name)", "must be within \(p.range)") }
            e.values[p.name] = value
        }
        if let r = o["region"] {
            let ro = try object(r, at: "\(path).region", allowed: ["x", "y", "width", "height"])
            func need(_ k: String) throws -> Length {
                guard let l = try length(ro[k], at: "\(path).region.\(k)") else { throw fail("\(path).region.\(k)", "missing") }
                return l
            }
            e.region = Region(x: try need("x"), y: try need("y"), width: try need("width"), height: try need("height"))
        }
        if let c = o["center"] {
            guard kind == .vortex else { throw fail("\(path).center", "only a vortex has a centre") }
            let co = try object(c, at: "\(path).center", allowed: ["x", "y"])
            guard let x = try length(co["x"], at: "\(path).center.x"), let y = try length(co["y"], at: "\(path).center.y") else {
                throw fail("\(path).center", "needs x and y")
            }
            e.setting = .center(x: x, y: y)
        }
        if let b = o["background"] {
            guard kind == .pointillize else { throw fail("\(path).background", "only pointillize has a background") }
            if let paper = try color(b, at: "\(path).background") { e.setting = .background(paper) }
        }
        if let list = o["keyframes"] {
            var last = -Double.infinity
            for (i, item) in try array(list, at: "\(path).keyframes").enumerated() {
                let kp = "\(path).keyframes[\(i)]"
                let k = try object(item, at: kp, allowed: Set(["t", "easing", "x", "y"]).union(kind.parameters.map(\.name)))
                guard let t = try number(k["t"], at: "\(kp).t") else { throw fail("\(kp).t", "missing") }
                guard t >= 0 else { throw fail("\(kp).t", "must be 0 or more") }
                guard t > last else { throw fail("\(kp).t", "keyframes must be in time order") }
                last = t
                var f = EffectKeyframe(t: t)
                f.easing = try easing(k["easing"], at: "\(kp).easing")
                for p in kind.parameters {
                    guard let value = try number(k[p.name], at: "\(kp).\(p.name)") else { continue }
                    guard p.range.contains(value) else { throw fail("\(kp).\(p.name)", "must be within \(p.range)") }
                    f.values[p.name] = value
                }
                f.x = try length(k["x"], at: "\(kp).x")
                f.y = try length(k["y"], at: "\(kp).y")
                if (f.x != nil || f.y != nil) && e.region == nil { throw fail("\(kp)", "x/y move a region; this effect has none") }
                e.keyframes.append(f)
            }
        }
        return e
    }
}
