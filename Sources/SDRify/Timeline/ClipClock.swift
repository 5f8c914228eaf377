/// How a clip's own clock (its source timestamps, in seconds) maps to the clock of the pictures it hands out:
/// which part of the source is used (the trim) and which source time becomes 0. The one place that does this
/// mapping: the clip decoder, the copied sound and the input's chapters, subtitles and tracks all follow it.
struct ClipClock: Sendable {
    /// Source seconds of the first picture used (the trim's start).
    let start: Double
    /// Source seconds where the trim ends (nil: the input's end).
    let end: Double?
    /// Source seconds that become 0 on the clip's output clock.
    let origin: Double
    /// Whether pictures before `start` are left out (a trim), rather than the whole input used.
    let isCut: Bool

    /// The part `from` seconds after the video's first timestamp (`videoStart`), `seconds` long (nil: to the end),
    /// with `from` as 0: a compose clip, or a convert with --start/--duration.
    static func trim(videoStart: Double, from: Double, seconds: Double?) -> ClipClock {
        let start = videoStart + from
        return ClipClock(start: start, end: seconds.map { start + $0 }, origin: start, isCut: true)
    }

    /// The whole input. A file that starts late (a positive start time, `lateStart`) is moved to start at 0, all
    /// streams together; early starts (AAC priming) stay, as edit lists express them.
    static func whole(videoStart: Double, lateStart: Double) -> ClipClock {
        ClipClock(start: videoStart, end: nil, origin: max(lateStart, 0), isCut: false)
    }

    /// Where to send the input's demuxers before reading (nil: read from the beginning): a trim that starts after
    /// the video's first timestamp (`videoStart`). The pictures and the sound seek alike, so they stay together.
    func seekTarget(videoStart: Double) -> Double? { isCut && start > videoStart ? start : nil }

    /// Source seconds → the clip's output seconds.
    func output(_ source: Double) -> Double { source - origin }

    /// The length on the output clock of the part used, when the trim says (nil: to the input's end).
    var length: Double? { end.map { $0 - start } }
}
