import CFFmpeg
import Foundation
import SDRifyValues

/// The video codec a preset writes.
package enum VideoCodec: String, CaseIterable, Sendable {
    case h264, hevc
    package var catalog: CodecEntry { CodecCatalog.entry(self) }
}

/// Everything sdrify knows about the codecs and containers it writes, in one table: the other files ask here
/// instead of spelling out "h264 ? … : …".
package struct CodecEntry: Sendable {
    let codec: VideoCodec
    package let encoder: String  // libavcodec's encoder name
    package let shortName: String  // as users know it
    package let profile: String  // the profile asked for (lossless H.264 excepted, see `losslessProfile`)
    let profileID: Int32?  // the same, for the context (x265 takes only the option)
    /// CRF 0 is lossless; x264 allows that only in High 4:4:4 Predictive.
    let losslessProfile: (name: String, id: Int32)?
    package let crfRange: ClosedRange<Int>
    package let speedPresets: [String]
    /// The sample entry code players need ('hvc1': parameter sets in the sample entry, as Apple requires), if any.
    let codecTag: UInt32?
    /// Extra encoder options.
    let options: [(String, String)]
    /// Encoding cost per output pixel (ns) measured on the 2-core bench machine, for splitting threads.
    package let nsPerOutputPixel: Double
}

package enum CodecCatalog {
    static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    static func entry(_ codec: VideoCodec) -> CodecEntry {
        switch codec {
        case .h264:
            CodecEntry(
                codec: .h264, encoder: "libx264", shortName: "x264", profile: "high", profileID: FF_PROFILE_H264_HIGH,
                losslessProfile: ("high444", FF_PROFILE_H264_HIGH_444_PREDICTIVE), crfRange: 0...51,
                speedPresets: x26xPresets, codecTag: nil, options: [], nsPerOutputPixel: 14)
        case .hevc:
            CodecEntry(
                codec: .hevc, encoder: "libx265", shortName: "x265", profile: "main", profileID: nil, losslessProfile: nil,
                crfRange: 0...51, speedPresets: x26xPresets, codecTag: hvc1, options: [("x265-params", "log-level=error")],
                nsPerOutputPixel: 42)
        }
    }

    /// 'hvc1' as a little-endian four-character code.
    static let hvc1: UInt32 = 0x3163_7668

    /// The tag a copied stream of `codecID` gets (Passthrough), by the same rule.
    static func codecTag(copying codecID: AVCodecID) -> UInt32 { codecID == AV_CODEC_ID_HEVC ? hvc1 : 0 }

    /// Output file extensions and the libavformat muxer each one takes.
    static let containers: [(ext: String, muxer: String)] = [("mp4", "mp4"), ("m4v", "mp4"), ("mov", "mov")]
    package static var outputExtensions: [String] { containers.map(\.ext) }

    static func muxer(forExtension ext: String) -> String? { containers.first { $0.ext == ext.lowercased() }?.muxer }

    /// The muxer for `path`, or the usage error that names the extensions sdrify writes.
    package static func muxer(forOutput path: String) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension
        guard let m = muxer(forExtension: ext) else {
            let use = outputExtensions.map { "." + $0 }.joined(separator: ", ")
            throw SDRifyError.usage(
                ext.isEmpty ? "\(path): the output has no extension (use \(use))" : "\(path): unsupported output extension '.\(ext)' (use \(use))")
        }
        return m
    }
}
