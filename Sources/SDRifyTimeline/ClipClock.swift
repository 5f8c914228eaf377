import SDRifyProbe
import SDRifyValues

/// How a clip's own clock (its source timestamps) maps to the clock of the pictures it hands out: which part of
/// the source is used (the trim), which source time becomes 0, and how the source is retimed on the way (`map`: a
/// speed, a slow-motion recording flattened; the trim is in source time, before it). The one place that does this
/// mapping: the clip decoder, the copied sound and the input's chapters, subtitles and tracks all follow it. Exact
/// (MediaTime).
package struct ClipClock: Sendable {
    /// Source time of the first picture used (the trim's start).
    package let start: MediaTime
    /// Source time where the trim ends (nil: the input's end).
    package let end: MediaTime?
    /// Source time that becomes 0 on the clip's output clock.
    package let origin: MediaTime
    /// Whether pictures before `start` are left out (a trim), rather than the whole input used.
    package let isCut: Bool
    /// Source time → output time (before the origin is taken off).
    package var map: TimeMap = .identity
    /// The slow-motion recording the map flattens (its pictures are thinned to its layers), or nil.
    package var flattened: SlowMotion? = nil

    /// The part `from` after the video's first timestamp (`videoStart`), `length` long on the source's clock (nil:
    /// to the end), with `from` as 0: a compose clip, or a convert with --start/--duration.
    package static func trim(videoStart: MediaTime, from: MediaTime, length: MediaTime?, retiming: Retiming = .none) -> ClipClock {
        let start = videoStart + from
        return ClipClock(start: start, end: length.map { start + $0 }, origin: start, isCut: true, map: retiming.map, flattened: retiming.flattened)
    }

    /// The whole input. A file that starts late (a positive start time, `lateStart`) is moved to start at 0, all
    /// streams together; early starts (AAC priming) stay, as edit lists express them.
    package static func whole(videoStart: MediaTime, lateStart: MediaTime, retiming: Retiming = .none) -> ClipClock {
        ClipClock(start: videoStart, end: nil, origin: max(lateStart, .zero), isCut: false, map: retiming.map, flattened: retiming.flattened)
    }

    /// Where to send the input's demuxers before reading (nil: read from the beginning): a trim that starts after
    /// the video's first timestamp (`videoStart`). The pictures and the sound seek alike, so they stay together.
    package func seekTarget(videoStart: MediaTime) -> MediaTime? { isCut && start > videoStart ? start : nil }

    /// Where source time `t` lands on the output clock.
    package func output(_ t: MediaTime) -> MediaTime { map.isIdentity ? t - origin : map.output(t) - map.output(origin) }

    /// How long a part of the source (`length` from `from`, source times) lasts on the output clock.
    package func outputLength(from: MediaTime, length: MediaTime) -> MediaTime {
        map.isIdentity ? length : map.output(from + length) - map.output(from)
    }

    /// The length on the output clock of the part used, when the trim says (nil: to the input's end).
    package var length: MediaTime? { end.map { outputLength(from: start, length: $0 - start) } }
}

/// How a clip is retimed: a slow-motion recording flattened (`--slow-motion auto`), then a speed. Decided once per
/// clip from its file and the options (`decide`), before any output exists.
package struct Retiming: Sendable {
    package var map: TimeMap
    package var flattened: SlowMotion?
    package static let none = Retiming(map: .identity, flattened: nil)

    /// `slowMotion`: whether to flatten a slow-motion recording (nil: keep the file's timing). A damaged slow-motion
    /// description is the input's damage (exit 2), or with `tolerateErrors` a warning and the file's timing.
    package static func decide(
        _ info: MediaInfo, flatten: Bool, speed: Speed, tolerateErrors: Bool, label: String, warn: WarningHandler
    ) throws -> Retiming {
        var r = Retiming.none
        if flatten, let sm = info.slowMotion {
            if let damage = sm.damage {
                // Samsung writes SEF trailers on ordinary videos too: their damage matters only to a slow-motion capture.
                guard (sm.captureRate ?? 0) >= SlowMotion.slowCaptureRate else {
                    warn("\(label): \(damage): ignored (not a slow-motion recording)")
                    return speed == .normal ? .none : Retiming(map: TimeMap.speed(speed), flattened: nil)
                }
                guard tolerateErrors else { throw SDRifyError.invalidInput("\(label): \(damage)") }
                warn("\(label): \(damage): played at the file's own timing")
            } else if let map = sm.flattening {
                r = Retiming(map: map, flattened: sm)
            } else if !sm.segments.isEmpty {
                warn("\(label): slow-motion segments without a usable capture rate: played at the file's own timing")
            }
        }
        if speed != .normal { r.map = r.map.then(speed) }
        return r
    }

    package init(map: TimeMap, flattened: SlowMotion? = nil) {
        self.map = map
        self.flattened = flattened
    }
}
