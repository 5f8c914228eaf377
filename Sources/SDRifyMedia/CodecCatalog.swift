import CFFmpeg
import Foundation
import SDRifyValues

/// The video codec a preset writes.
package enum VideoCodec: String, CaseIterable, Sendable {
    case h264, hevc, av1
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
    /// The encoder's own parameter string's option (x265-params, svtav1-params), and its parameters for an encoder
    /// given `threads` (0: its own choice).
    let paramsOption: String?
    let params: @Sendable (_ threads: Int) -> [String]
    /// The profile that carries 10-bit BT.2020 HDR (`--range hdr`), nil where sdrify does not write HDR with this
    /// codec (H.264: few players show HDR in it); and the parameters that write a source's static metadata.
    package let hdrProfile: (name: String, id: Int32?)?
    let hdrParams: @Sendable (HDRMetadata) -> [String]
    /// Environment the encoder library reads when it is opened (set unless the user set it).
    let environment: [(name: String, value: String)]
    /// Encoding cost per output pixel (ns) measured on the 2-core bench machine, for splitting threads.
    package let nsPerOutputPixel: Double
    /// Containers (CodecCatalog.containers' extensions) that can hold it.
    let extensions: [String]
    /// The smallest picture side it encodes.
    let minimumSide: Int
    /// A preset's CRF, written for x264, as this encoder's CRF of about the same quality (the same PSNR on phone
    /// footage: BENCHMARKS, issue 44).
    package let crfForX264: @Sendable (Int) -> Int
    /// A preset's speed, written in x264's names, as this encoder's.
    package let speedForX264: @Sendable (String) -> String
}

package enum CodecCatalog {
    static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    static func entry(_ codec: VideoCodec) -> CodecEntry {
        switch codec {
        case .h264:
            CodecEntry(
                codec: .h264, encoder: "libx264", shortName: "x264", profile: "high", profileID: FF_PROFILE_H264_HIGH,
                losslessProfile: ("high444", FF_PROFILE_H264_HIGH_444_PREDICTIVE), crfRange: 0...51,
                speedPresets: x26xPresets, codecTag: nil, paramsOption: nil, params: { _ in [] }, hdrProfile: nil, hdrParams: { _ in [] },
                environment: [], nsPerOutputPixel: 14,
                extensions: ["mp4", "m4v", "mov"], minimumSide: 2, crfForX264: { $0 }, speedForX264: { $0 })
        case .hevc:
            // x265's CRF scale sits about 3 above x264's for the same quality (the HEVC presets: 26 for 23).
            CodecEntry(
                codec: .hevc, encoder: "libx265", shortName: "x265", profile: "main", profileID: nil, losslessProfile: nil,
                crfRange: 0...51, speedPresets: x26xPresets, codecTag: hvc1, paramsOption: "x265-params", params: { _ in ["log-level=error"] },
                hdrProfile: ("main10", nil),
                hdrParams: { hdr in
                    // x265: chromaticities in 1/50000, luminance in 1/10000 cd/m².
                    staticHDRParams(
                        hdr, display: "master-display", light: "max-cll", chromaticity: { String(Int(($0 * 50000).rounded())) },
                        luminance: { String(Int(($0 * 10000).rounded())) })
                },
                environment: [], nsPerOutputPixel: 42, extensions: ["mp4", "m4v", "mov"], minimumSide: 2, crfForX264: { min($0 + 3, 51) },
                speedForX264: { $0 })
        case .av1:
            // SVT-AV1 through libavcodec 5.1: threads only through its own `lp`; a picture sent as I becomes a key
            // frame only with enable-force-key-frames; closed GOPs (irefresh-type 2) so each segment stands alone.
            // Its log goes to stderr at info level unless SVT_LOG says otherwise. libavformat writes AV1 in MP4
            // only ("av01"), not in QuickTime. Pictures under 64 pixels a side are refused.
            CodecEntry(
                codec: .av1, encoder: "libsvtav1", shortName: "SVT-AV1", profile: "main", profileID: FF_PROFILE_AV1_MAIN,
                losslessProfile: nil, crfRange: 1...63, speedPresets: (0...13).map(String.init), codecTag: nil,
                paramsOption: "svtav1-params",
                params: { threads in ["enable-force-key-frames=1", "irefresh-type=2"] + (threads > 0 ? ["lp=\(threads)"] : []) },
                hdrProfile: ("main", FF_PROFILE_AV1_MAIN),  // Main is 8- and 10-bit 4:2:0
                hdrParams: { hdr in
                    // SVT-AV1: plain numbers.
                    staticHDRParams(
                        hdr, display: "mastering-display", light: "content-light", chromaticity: { String(format: "%.5f", $0) },
                        luminance: { String(format: "%.4f", $0) })
                },
                environment: [("SVT_LOG", "1")], nsPerOutputPixel: 18, extensions: ["mp4", "m4v"], minimumSide: 64,
                crfForX264: { x264 in min(max(Int((Double(x264) * 1.5 + 1).rounded(.down)), 1), 63) },
                speedForX264: { name in svtSpeeds[name] ?? "10" })
        }
    }

    /// A source's static HDR metadata as an encoder's parameters: the mastering display as
    /// `G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)` (the order x265 and SVT-AV1 both read), the light level as `cll,fall`;
    /// the parameter names and the numbers' form are the encoder's.
    static func staticHDRParams(
        _ hdr: HDRMetadata, display: String, light: String, chromaticity: (Double) -> String, luminance: (Double) -> String
    ) -> [String] {
        var p: [String] = []
        if let md = hdr.masteringDisplay {
            func xy(_ x: Double, _ y: Double) -> String { "(\(chromaticity(x)),\(chromaticity(y)))" }
            p.append(
                "\(display)=G\(xy(md.greenX, md.greenY))B\(xy(md.blueX, md.blueY))R\(xy(md.redX, md.redY))"
                    + "WP\(xy(md.whitePointX, md.whitePointY))L(\(luminance(md.maxLuminance)),\(luminance(md.minLuminance)))")
        }
        if let cll = hdr.contentLightLevel { p.append("\(light)=\(cll.maxCLL),\(cll.maxFALL)") }
        return p
    }

    /// x264's speed names as SVT-AV1 presets (0 slowest … 13 fastest).
    static let svtSpeeds = [
        "ultrafast": "13", "superfast": "12", "veryfast": "11", "faster": "10", "fast": "9", "medium": "8", "slow": "6",
        "slower": "4", "veryslow": "2", "placebo": "0"
    ]

    /// 'hvc1' as a little-endian four-character code.
    static let hvc1: UInt32 = 0x3163_7668

    /// The tag a copied stream of `codecID` gets (Passthrough), by the same rule.
    static func codecTag(copying codecID: AVCodecID) -> UInt32 { codecID == AV_CODEC_ID_HEVC ? hvc1 : 0 }

    /// Output file extensions and the libavformat muxer each one takes.
    static let containers: [(ext: String, muxer: String)] = [("mp4", "mp4"), ("m4v", "mp4"), ("mov", "mov")]
    package static var outputExtensions: [String] { containers.map(\.ext) }

    static func muxer(forExtension ext: String) -> String? { containers.first { $0.ext == ext.lowercased() }?.muxer }

    /// Why `codec` cannot encode a `width`×`height` picture (SVT-AV1: under 64 pixels a side), or nil.
    package static func sizeProblem(_ codec: VideoCodec, width: Int, height: Int) -> String? {
        let entry = codec.catalog
        guard min(width, height) < entry.minimumSide else { return nil }
        return "\(entry.shortName) encodes pictures of at least \(entry.minimumSide) pixels a side, not \(width)x\(height)"
    }

    /// Why `codec` cannot write a render of `kind` (HDR with a codec sdrify writes SDR only), or nil.
    package static func rangeProblem(_ codec: VideoCodec, kind: HDRKind) -> String? {
        guard kind != .sdr, codec.catalog.hdrProfile == nil else { return nil }
        return "\(codec.rawValue) (\(codec.catalog.shortName)) does not carry HDR here: the HDR kept is written with --codec hevc or av1"
    }

    /// The video codecs this libavcodec can decode, of those phones and cameras record (libavcodec's names).
    package static var decodableVideo: [String] {
        ["h264", "hevc", "av1", "vp9", "vp8", "mpeg4", "mpeg2video", "prores", "mjpeg"].filter { avcodec_find_decoder_by_name($0) != nil }
    }

    /// Why `codec` cannot be written with the libavcodec this runs on (its encoder is not built in), or nil.
    package static func unavailable(_ codec: VideoCodec) -> String? {
        let entry = codec.catalog
        guard avcodec_find_encoder_by_name(entry.encoder) == nil else { return nil }
        return "\(codec.rawValue): \(entry.shortName) (\(entry.encoder)) is not in this libavcodec"
    }

    /// The muxer for `path`, or the usage error that names the extensions sdrify writes (for `codec`, when given).
    package static func muxer(forOutput path: String, codec: VideoCodec? = nil) throws -> String {
        let ext = URL(fileURLWithPath: path).pathExtension
        guard let m = muxer(forExtension: ext) else {
            let use = outputExtensions.map { "." + $0 }.joined(separator: ", ")
            throw SDRifyError.usage(
                ext.isEmpty ? "\(path): the output has no extension (use \(use))" : "\(path): unsupported output extension '.\(ext)' (use \(use))")
        }
        if let codec, !codec.catalog.extensions.contains(ext.lowercased()) {
            let use = codec.catalog.extensions.map { "." + $0 }.joined(separator: ", ")
            throw SDRifyError.usage("\(path): \(codec.catalog.shortName) is written in \(use), not '.\(ext)'")
        }
        return m
    }
}
