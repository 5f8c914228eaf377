/// How far a conversion is, reported a few times a second and once at the end.
public struct ConversionProgress: Sendable {
    public var frames: Int
    public var outTime: Double  // seconds of video written
    public var totalTime: Double?  // seconds the output will have, when known
    public var elapsed: Double  // seconds since the conversion started
    public var finished: Bool

    public var fraction: Double? { totalTime.flatMap { $0 > 0 ? min(max(outTime / $0, 0), 1) : nil } }
    public var fps: Double { elapsed > 0 ? Double(frames) / elapsed : 0 }
    public var speed: Double { elapsed > 0 ? outTime / elapsed : 0 }

    /// ffmpeg's `-progress` block: key=value lines ending with progress=continue|end.
    public var keyValueBlock: String {
        var lines = ["frame=\(frames)", "fps=\(String(format: "%.2f", fps))", "out_time_us=\(Int64(outTime * 1e6))"]
        lines.append("total_us=\(totalTime.map { String(Int64($0 * 1e6)) } ?? "N/A")")
        lines.append("percent=\(fraction.map { String(format: "%.1f", $0 * 100) } ?? "N/A")")
        lines.append("speed=\(String(format: "%.3gx", speed))")
        lines.append("progress=\(finished ? "end" : "continue")")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Told of the render's progress (from the thread that writes the output).
public typealias ProgressHandler = @Sendable (ConversionProgress) -> Void
