import CFFmpeg
import SDRifyValues

/// A bit rate as `--max-bitrate` takes it: bits a second, `k` and `M` as thousands and millions (`2500k`, `4M`,
/// `4.5M`, `800000`).
package struct BitRate: Equatable, Sendable, CustomStringConvertible {
    let bitsPerSecond: Int64
    /// The rates a cap may be: below 50 kb/s no video is watchable, above 1 Gb/s no cap is meant.
    static let valid: ClosedRange<Int64> = 50_000...1_000_000_000

    package init?(argument: String) {
        var text = argument.trimmingCharacters(in: .whitespaces)
        var scale = 1.0
        if let last = text.last, "kKmM".contains(last) {
            scale = "kK".contains(last) ? 1e3 : 1e6
            text.removeLast()
        }
        guard let v = Double(text), v.isFinite, v > 0 else { return nil }
        let bits = Int64((v * scale).rounded())
        guard BitRate.valid.contains(bits) else { return nil }
        bitsPerSecond = bits
    }

    /// The encoder's VBV for the cap: its maximum rate 85 % of the cap and a buffer of a quarter second of it, so by
    /// the VBV's own bound no one-second window holds more than 0.85 + 0.25 = 1.1× the cap. (x264 and x265 hold a
    /// VBV only on a frame's estimate, and a segment's forced IDR picture comes on top: with the maximum rate at the
    /// cap and a two-second buffer, windows of noisy video reached 1.17×; at 90 % with half a second, 1.13×.)
    var encoderMaxRate: Int64 { bitsPerSecond * 85 / 100 }
    var bufferBits: Int64 { bitsPerSecond / 4 }
    package var description: String { bitsPerSecond % 1_000_000 == 0 ? "\(bitsPerSecond / 1_000_000)M" : "\(bitsPerSecond / 1000)k" }
}
