/// sdrify's own version: the one place it is written (`--version`, the Debian package and the man page read it).
public enum SDRifyVersion {
    public static let number = "0.11.0"

    /// What `sdrify --version` prints: sdrify's version, then the C libraries it runs with.
    public static var report: String {
        var lines = ["sdrify \(number)"]
        lines += ffmpegVersions().map { "  \($0.name) \($0.version)" }
        lines.append("  zimg \(zimgVersion())")
        lines.append("  libass \(libassVersion())")
        return lines.joined(separator: "\n")
    }
}
