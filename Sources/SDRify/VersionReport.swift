import SDRifyLayers
import SDRifyMedia
import SDRifyToneMap
import SDRifyValues

extension SDRifyVersion {
    /// What `sdrify --version` prints: sdrify's version, then the C libraries it runs with.
    package static var report: String {
        var lines = ["sdrify \(number)"]
        lines += ffmpegVersions().map { "  \($0.name) \($0.version)" }
        lines.append("  zimg \(zimgVersion())")
        lines.append("  libass \(libassVersion())")
        return lines.joined(separator: "\n")
    }
}
