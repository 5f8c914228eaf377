/// A point or length on a clock as an exact fraction of a second: output frame n of a 30000/1001 rate lies at
/// n·1001/30000 s exactly, so a long timeline does not drift the way summed floating-point frame lengths do.
package struct MediaTime: Comparable, Hashable, Sendable, CustomStringConvertible, ExpressibleByFloatLiteral,
    ExpressibleByIntegerLiteral
{
    let value: Int64
    let timescale: Int64  // ticks per second, > 0

    package init(value: Int64, timescale: Int64) {
        precondition(timescale > 0, "a timescale is positive")
        self.value = value; self.timescale = timescale
    }

    /// The nearest tick of `timescale` to `seconds` (microseconds by default), within ±10¹² s (a value read from a
    /// command line or a file may be any finite number; NaN counts as 0).
    package init(seconds: Double, timescale: Int64 = 1_000_000) {
        let bound = 1e12 * Double(timescale)
        let ticks = seconds.isNaN ? 0 : min(max((seconds * Double(timescale)).rounded(), -bound), bound)
        self.init(value: Int64(ticks), timescale: timescale)
    }

    /// `ticks` of a stream's time base, exactly.
    package init(ticks: Int64, _ base: TimeBase) {
        self = MediaTime.reduced(Int128(ticks) * Int128(base.num), Int128(max(base.den, 1)))
    }

    /// The whole ticks of `base` nearest to this time.
    package func ticks(_ base: TimeBase) -> Int64 {
        let num = Int128(value) * Int128(base.den), den = Int128(timescale) * Int128(max(base.num, 1))
        let q = (2 * num + (num >= 0 ? den : -den)) / (2 * den)  // rounded half away from zero
        return Int64(clamping: q)
    }

    /// value/timescale in lowest terms (and within Int64: a timescale too fine to fit is coarsened).
    private static func reduced(_ value: Int128, _ timescale: Int128) -> MediaTime {
        var (v, t) = (value, timescale)
        var a = abs(v), b = t
        while b != 0 { (a, b) = (b, a % b) }
        if a > 1 { v /= a; t /= a }
        while t > Int128(Int64.max) || abs(v) > Int128(Int64.max) { v /= 2; t /= 2 }
        return MediaTime(value: Int64(v), timescale: Int64(max(t, 1)))
    }

    package static func + (a: MediaTime, b: MediaTime) -> MediaTime {
        reduced(Int128(a.value) * Int128(b.timescale) + Int128(b.value) * Int128(a.timescale), Int128(a.timescale) * Int128(b.timescale))
    }
    package static func - (a: MediaTime, b: MediaTime) -> MediaTime {
        reduced(Int128(a.value) * Int128(b.timescale) - Int128(b.value) * Int128(a.timescale), Int128(a.timescale) * Int128(b.timescale))
    }
    package static prefix func - (a: MediaTime) -> MediaTime { MediaTime(value: -a.value, timescale: a.timescale) }
    /// Half of this time, exactly.
    package var half: MediaTime { MediaTime.reduced(Int128(value), 2 * Int128(timescale)) }
    /// This time × num / den, exactly (den > 0).
    package func scaled(_ num: Int64, _ den: Int64) -> MediaTime {
        MediaTime.reduced(Int128(value) * Int128(num), Int128(timescale) * Int128(den))
    }

    package static let zero = MediaTime(value: 0, timescale: 1)

    /// A literal is seconds (`0.5`, `3`): for defaults and tests.
    package init(floatLiteral seconds: Double) { self.init(seconds: seconds) }

    package init(integerLiteral seconds: Int64) { self.init(value: seconds, timescale: 1) }

    package var seconds: Double { Double(value) / Double(timescale) }
    package var description: String { String(format: "%.3f s", seconds) }

    package static func < (a: MediaTime, b: MediaTime) -> Bool {
        Int128(a.value) * Int128(b.timescale) < Int128(b.value) * Int128(a.timescale)
    }
    package static func == (a: MediaTime, b: MediaTime) -> Bool {
        Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
    }
    package func hash(into h: inout Hasher) { h.combine(seconds) }
}

/// A frame rate as a fraction (30000/1001 for "29.97").
package struct FrameRate: Equatable, Sendable, CustomStringConvertible {
    package let num: Int64
    package let den: Int64

    package init(num: Int64, den: Int64) {
        precondition(num > 0 && den > 0, "a frame rate is positive")
        self.num = num; self.den = den
    }

    /// The rates sdrify writes and reads a clip's rate within (a timeline, `--fps`, a stream's median step).
    package static let valid: ClosedRange<Double> = 1...240

    /// The rate `fps` most likely stands for: the NTSC rates (23.976, 29.97, 59.94, 119.88) and whole rates
    /// when within 0.1 % of one; otherwise the nearest 1/1000 frame per second.
    package init(approximating fps: Double) {
        for whole in [24.0, 30, 60, 120] where abs(fps - whole * 1000 / 1001) < whole * 0.00005 {
            self.init(num: Int64(whole) * 1000, den: 1001); return
        }
        if abs(fps - fps.rounded()) < fps * 0.001, fps.rounded() >= 1 {
            self.init(num: Int64(fps.rounded()), den: 1); return
        }
        self.init(num: Int64((fps * 1000).rounded()), den: 1000)
    }

    /// The rates cameras and phones record at.
    package static let standard: [FrameRate] = [
        FrameRate(num: 24000, den: 1001), FrameRate(num: 24, den: 1), FrameRate(num: 25, den: 1), FrameRate(num: 30000, den: 1001),
        FrameRate(num: 30, den: 1), FrameRate(num: 48, den: 1), FrameRate(num: 50, den: 1), FrameRate(num: 60000, den: 1001),
        FrameRate(num: 60, den: 1), FrameRate(num: 100, den: 1), FrameRate(num: 120000, den: 1001), FrameRate(num: 120, den: 1),
        FrameRate(num: 240, den: 1)
    ]

    /// "30", "29.97", "30000/1001".
    package init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1]), n > 0, d > 0,
            FrameRate.valid.contains(Double(n) / Double(d))
        {
            self.init(num: n, den: d); return
        }
        guard parts.count == 1, let fps = Double(text), fps.isFinite, FrameRate.valid.contains(fps) else { return nil }
        self.init(approximating: fps)
    }

    package var fps: Double { Double(num) / Double(den) }
    package var description: String { den == 1 ? String(num) : "\(num)/\(den)" }

    /// When output frame `n` starts.
    package func time(ofFrame n: Int) -> MediaTime { MediaTime(value: Int64(n) * den, timescale: num) }

    /// The audio sample (at `sampleRate`) where output frame `n` starts, to the nearest sample: exact integer
    /// arithmetic, so sound and pictures keep one clock however long the timeline.
    package func sample(ofFrame n: Int, sampleRate: Int) -> Int {
        let ticks = Int128(n) * Int128(den) * Int128(sampleRate)
        return Int((ticks + Int128(num) / 2) / Int128(num))
    }

    /// How many whole frames fit in `length`, to the nearest frame (exact).
    package func frames(in length: MediaTime) -> Int {
        let n = Int128(length.value) * Int128(num), d = Int128(length.timescale) * Int128(den)
        return Int(clamping: (2 * n + d) / (2 * d))
    }

    /// Half a frame's length.
    package var halfFrame: MediaTime { MediaTime(value: den, timescale: 2 * num) }

    /// The most pictures per second a size preset writes: what upload services and their players expect, and what
    /// H.264's common levels decode at 1080p.
    package static let presetCeiling = 60.0

    /// This rate kept under `ceiling` by keeping every k-th picture (k the smallest whole number that does it: 120 →
    /// 60, 240 → 60, 100 → 50), exactly; nil when it is under the ceiling already.
    package func thinned(under ceiling: Double = FrameRate.presetCeiling) -> (rate: FrameRate, every: Int)? {
        guard fps > ceiling * 1.001 else { return nil }
        let every = max(2, Int((fps / ceiling - 0.001).rounded(.up)))  // 119.88 fps: every 2nd, not 3rd
        var (n, d) = (num, den * Int64(every))
        var (a, b) = (n, d)
        while b != 0 { (a, b) = (b, a % b) }
        (n, d) = (n / a, d / a)
        return (FrameRate(num: n, den: d), every)
    }
}

/// What `--fps` asks for: a rate, or the source's own (`--fps source`, above a size preset's ceiling too).
package enum RateChoice: Equatable, Sendable {
    case source
    case rate(FrameRate)

    /// "source", or a rate as `FrameRate(parsing:)` reads it.
    package init?(parsing text: String) {
        if text == "source" { self = .source; return }
        guard let rate = FrameRate(parsing: text) else { return nil }
        self = .rate(rate)
    }
}

extension MediaTime {
    /// A time as people type it: seconds ("90", "1.5", "-2") or `[HH:]MM:SS[.mmm]` ("1:30", "01:02:03.250").
    /// Minutes and seconds after a colon are below 60. nil for anything else (NaN and infinity included).
    package static func seconds(parsing text: String) -> Double? {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        let negative = t.hasPrefix("-")
        let body = negative ? String(t.dropFirst()) : t
        let parts = body.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count) else { return nil }
        let digits: (String) -> Bool = { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
        // The last part may have a fraction; the others are whole numbers.
        let last = parts[parts.count - 1].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard last.count <= 2, digits(last[0]), last.count == 1 || digits(last[1]) else { return nil }
        guard parts.dropLast().allSatisfy(digits), let s = Double(parts[parts.count - 1]) else { return nil }
        var total = s
        if parts.count >= 2 {
            guard s < 60, let m = Double(parts[parts.count - 2]) else { return nil }
            if parts.count == 3 { guard m < 60 else { return nil } }
            total += m * 60
        }
        if parts.count == 3, let h = Double(parts[0]) { total += h * 3600 }
        return negative ? -total : total
    }
}
