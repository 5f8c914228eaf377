import CFFmpeg
import Foundation

/// The first bytes of a stream read from a pipe: whether libavformat knows their format, said before the rest is read.
package enum StreamHead {
    /// libavformat's name for the format these first bytes begin (an MP4, Matroska, MPEG-TS…), or nil when they
    /// begin none it reads.
    package static func format(of head: Data) -> String? {
        guard !head.isEmpty else { return nil }
        // The probe reads past the end by up to its padding: the buffer carries zeros there.
        var bytes = [UInt8](head)
        bytes += [UInt8](repeating: 0, count: Int(AVPROBE_PADDING_SIZE))
        return bytes.withUnsafeMutableBufferPointer { buffer -> String? in
            var probe = AVProbeData()
            probe.buf = buffer.baseAddress
            probe.buf_size = Int32(head.count)
            probe.filename = nil
            var score: Int32 = 0
            guard let format = av_probe_input_format3(&probe, 1, &score), score > AVPROBE_SCORE_MAX / 4 else { return nil }
            return String(cString: format.pointee.name)
        }
    }
}
