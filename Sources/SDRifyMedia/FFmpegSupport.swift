import CFFmpeg
import SDRifyValues

/// FFmpeg's own message for an error code (av_strerror).
func ffErrorString(_ code: Int32) -> String {
    var buf = [CChar](repeating: 0, count: 256)
    cffmpeg_strerror(code, &buf, buf.count)
    return cString(buf)
}

/// A NUL-terminated C buffer as a String.
package func cString(_ buf: [CChar]) -> String {
    let bytes = buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// Wraps a failing FFmpeg call once: a negative return becomes a thrown error carrying FFmpeg's message.
@discardableResult
func ffCheck(_ code: Int32, _ what: @autoclosure () -> String, status: ExitStatus = .conversionFailed) throws -> Int32 {
    if code < 0 { throw SDRifyError(status, "\(what()): \(ffErrorString(code))") }
    return code
}

let ffEAGAIN = cffmpeg_eagain()
let ffEOF = cffmpeg_error_eof()
let ffNoPTS = cffmpeg_nopts_value()

/// FFmpeg logs to stderr by default; the CLI contract allows only our own lines there.
/// FFmpeg prints nothing; error-level messages from sdrify's decoders are counted instead (see Decoder.loggedErrors).
/// Where the FFmpeg log callback counts one context's error-level messages (see cffmpeg_log_callback): set as
/// the context's `opaque`. Outlives the context it is set on (a property of its owner, released after deinit).
final class LoggedErrorCounter {
    let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    package init() { pointer.initialize(to: 0) }
    deinit { pointer.deallocate() }
    package var count: Int { Int(cffmpeg_load_count(pointer)) }
}

package func silenceFFmpegLogging() {
    av_log_set_level(AV_LOG_QUIET)
    cffmpeg_count_decoder_errors()
}

/// The single boundary where FFmpeg's colour enums become ours (the mpv model).
enum ColorMapping {
    static func description(
        primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic,
        matrix: AVColorSpace, range: AVColorRange, chroma: AVChromaLocation
    ) -> ColorDescription {
        ColorDescription(
            primaries: ColorPrimaries(rawValue: Int32(primaries.rawValue)) ?? .unspecified,
            transfer: TransferCharacteristic(rawValue: Int32(transfer.rawValue)) ?? .unspecified,
            matrix: MatrixCoefficients(rawValue: Int32(matrix.rawValue)) ?? .unspecified,
            range: ColorRange(rawValue: Int32(range.rawValue)) ?? .unspecified,
            chromaLocation: ChromaLocation(rawValue: Int32(chroma.rawValue)) ?? .unspecified)
    }

    /// Our description as FFmpeg's five fields (primaries, transfer, matrix, range, chroma siting).
    static func fields(_ c: ColorDescription)
        -> (AVColorPrimaries, AVColorTransferCharacteristic, AVColorSpace, AVColorRange, AVChromaLocation)
    {
        (
            AVColorPrimaries(rawValue: UInt32(c.primaries.rawValue)), AVColorTransferCharacteristic(rawValue: UInt32(c.transfer.rawValue)),
            AVColorSpace(rawValue: UInt32(c.matrix.rawValue)), AVColorRange(rawValue: UInt32(c.range.rawValue)),
            AVChromaLocation(rawValue: UInt32(c.chromaLocation.rawValue))
        )
    }

    static func apply(_ c: ColorDescription, to ctx: UnsafeMutablePointer<AVCodecContext>) {
        (
            ctx.pointee.color_primaries, ctx.pointee.color_trc, ctx.pointee.colorspace, ctx.pointee.color_range,
            ctx.pointee.chroma_sample_location
        ) = fields(c)
    }

    static func apply(_ c: ColorDescription, to frame: UnsafeMutablePointer<AVFrame>) {
        (
            frame.pointee.color_primaries, frame.pointee.color_trc, frame.pointee.colorspace, frame.pointee.color_range,
            frame.pointee.chroma_location
        ) = fields(c)
    }
}

/// A codec tag as its four characters (the sample entry's type in MP4/MOV).
func fourCC(_ tag: UInt32) -> String {
    String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }, as: UTF8.self)
}

/// A frame's plane pointers and line sizes as C arrays (swscale's slice arguments).
func planeArrays(_ f: UnsafeMutablePointer<AVFrame>) -> (data: [UnsafeMutablePointer<UInt8>?], linesize: [Int32]) {
    let d = f.pointee.data, l = f.pointee.linesize
    return ([d.0, d.1, d.2, d.3, d.4, d.5, d.6, d.7], [l.0, l.1, l.2, l.3, l.4, l.5, l.6, l.7])
}

extension AVRational {
    package var double: Double { den == 0 ? 0 : Double(num) / Double(den) }
}

/// The FFmpeg release and library versions this process runs with (for `--version`).
package func ffmpegVersions() -> [(name: String, version: String)] {
    func triple(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
    return [
        ("FFmpeg", String(cString: av_version_info())), ("libavformat", triple(avformat_version())),
        ("libavcodec", triple(avcodec_version())), ("libavutil", triple(avutil_version())),
        ("libswscale", triple(swscale_version())), ("libswresample", triple(swresample_version()))
    ]
}
