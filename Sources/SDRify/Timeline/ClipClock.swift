/// How a clip's own clock (its source timestamps) maps to the clock of the pictures it hands out: which part of
/// the source is used (the trim) and which source time becomes 0. The one place that does this mapping: the clip
/// decoder, the copied sound and the input's chapters, subtitles and tracks all follow it. Exact (MediaTime).
struct ClipClock: Sendable {
    /// Source time of the first picture used (the trim's start).
    let start: MediaTime
    /// Source time where the trim ends (nil: the input's end).
    let end: MediaTime?
    /// Source time that becomes 0 on the clip's output clock.
    let origin: MediaTime
    /// Whether pictures before `start` are left out (a trim), rather than the whole input used.
    let isCut: Bool

    /// The part `from` after the video's first timestamp (`videoStart`), `length` long (nil: to the end), with
    /// `from` as 0: a compose clip, or a convert with --start/--duration.
    static func trim(videoStart: MediaTime, from: MediaTime, length: MediaTime?) -> ClipClock {
        let start = videoStart + from
        return ClipClock(start: start, end: length.map { start + $0 }, origin: start, isCut: true)
    }

    /// The whole input. A file that starts late (a positive start time, `lateStart`) is moved to start at 0, all
    /// streams together; early starts (AAC priming) stay, as edit lists express them.
    static func whole(videoStart: MediaTime, lateStart: MediaTime) -> ClipClock {
        ClipClock(start: videoStart, end: nil, origin: max(lateStart, .zero), isCut: false)
    }

    /// Where to send the input's demuxers before reading (nil: read from the beginning): a trim that starts after
    /// the video's first timestamp (`videoStart`). The pictures and the sound seek alike, so they stay together.
    func seekTarget(videoStart: MediaTime) -> MediaTime? { isCut && start > videoStart ? start : nil }

    /// The length on the output clock of the part used, when the trim says (nil: to the input's end).
    var length: MediaTime? { end.map { $0 - start } }
}
