/// A stream time base (seconds per tick), so stages outside the media layer never handle AVRational.
package struct TimeBase: Sendable, Equatable {
    package let num: Int32
    package let den: Int32
    package var seconds: Double { den == 0 ? 0 : Double(num) / Double(den) }

    package init(num: Int32, den: Int32) { self.num = num; self.den = den }

    /// FFmpeg's AV_TIME_BASE: what a container's own times (its duration, start, seeks) count.
    package static let microseconds = TimeBase(num: 1, den: 1_000_000)
}
