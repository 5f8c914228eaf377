/// How far a conversion is, reported a few times a second and once at the end.
package struct ConversionProgress: Sendable {
    var frames: Int
    var outTime: Double  // seconds of video written
    var totalTime: Double?  // seconds the output will have, when known
    package var elapsed: Double  // seconds since the conversion started
    package var finished: Bool

    package var fraction: Double? { totalTime.flatMap { $0 > 0 ? min(max(outTime / $0, 0), 1) : nil } }
    package var fps: Double { elapsed > 0 ? Double(frames) / elapsed : 0 }
    package var speed: Double { elapsed > 0 ? outTime / elapsed : 0 }

    /// ffmpeg's `-progress` block: key=value lines ending with progress=continue|end.
    package var keyValueBlock: String {
        var lines = ["frame=\(frames)", "fps=\(String(format: "%.2f", fps))", "out_time_us=\(Int64(outTime * 1e6))"]
        lines.append("total_us=\(totalTime.map { String(Int64($0 * 1e6)) } ?? "N/A")")
        lines.append("percent=\(fraction.map { String(format: "%.1f", $0 * 100) } ?? "N/A")")
        lines.append("speed=\(String(format: "%.3gx", speed))")
        lines.append("progress=\(finished ? "end" : "continue")")
        return lines.joined(separator: "\n") + "\n"
    }

    package init(frames: Int, outTime: Double, totalTime: Double? = nil, elapsed: Double, finished: Bool) {
        self.frames = frames
        self.outTime = outTime
        self.totalTime = totalTime
        self.elapsed = elapsed
        self.finished = finished
    }
}

/// Told of the render's progress (from the thread that writes the output).
package typealias ProgressHandler = @Sendable (ConversionProgress) -> Void
