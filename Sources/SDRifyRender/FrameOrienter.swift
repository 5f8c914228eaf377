import CKernels
import SDRifyMedia
import SDRifyValues

/// Makes frames upright, after downscaling, where the picture is smallest. Works on 4:2:0, 4:4:4 and grey
/// layouts of 8 to 16 bits; 4:2:2 must be converted first (turned 90° it would become 4:4:0).
package final class FrameOrienter: @unchecked Sendable {
    let orientation: Orientation
    private let transform: PlaneTransform
    private let format: PlanarFormat
    private let outputs: [Frame]
    private var nextOutput = 0
    /// A mirror without a transpose: chroma is moved half a sample right before orienting (Orientation).
    private let movesChromaRight: Bool
    private var scratch: UnsafeMutableRawPointer? = nil, scratchBytes = 0  // one chroma plane moved right

    deinit { scratch?.deallocate() }

    /// `width`×`height` is the coded (pre-orientation) size of the frames to come.
    /// Output pictures come from a ring of `ringSize`, so a picture still queued for the encoder is not
    /// overwritten.
    package init(_ orientation: Orientation, width: Int, height: Int, format: PlanarFormat = .yuv420p, ringSize: Int = 1) throws {
        guard format.chromaShiftX == format.chromaShiftY || !format.hasChroma else {
            throw SDRifyError.unsupported("cannot rotate 4:2:2 pictures without converting them first")
        }
        self.orientation = orientation
        self.format = format
        transform = PlaneTransform(orientation)
        movesChromaRight = orientation.chromaMovesRightBeforeOrienting && format.hasChroma && format.chromaShiftX > 0
        let (w, h) = orientation.uprightSize(width: width, height: height)
        outputs = try (0..<max(1, ringSize)).map { _ in try Frame(width: w, height: h, format: format) }
    }

    package func apply(_ frame: Frame) throws -> Frame {
        let output = outputs[nextOutput]
        nextOutput = (nextOutput + 1) % outputs.count
        try output.makeWritable()
        for plane in 0..<format.planeCount {
            let (w, h) = format.planeSize(plane, width: frame.width, height: frame.height)
            var (src, srcStride) = (UnsafeRawPointer(frame.data(plane)), frame.stride(plane))
            if plane > 0, movesChromaRight {
                // Sited on the left by the colour stage, moved to the right of its block: left again once mirrored.
                let rowBytes = w * format.bytesPerSample
                if scratchBytes < rowBytes * h {
                    scratch?.deallocate()
                    scratch = .allocate(byteCount: rowBytes * h, alignment: 64)
                    scratchBytes = rowBytes * h
                }
                let dst = scratch!
                if format.bytesPerSample == 1 {
                    sdrify_chroma_half_right_u8(
                        src.assumingMemoryBound(to: UInt8.self), srcStride, dst.assumingMemoryBound(to: UInt8.self), rowBytes,
                        Int32(w), Int32(h))
                } else {
                    sdrify_chroma_half_right_u16(
                        src.assumingMemoryBound(to: UInt16.self), srcStride, dst.assumingMemoryBound(to: UInt16.self), rowBytes,
                        Int32(w), Int32(h), Int32((1 << format.bitDepth) - 1))
                }
                (src, srcStride) = (UnsafeRawPointer(dst), rowBytes)
            }
            if format.bytesPerSample == 1 {
                transform.apply(
                    UInt8.self, src: UnsafeMutableRawPointer(mutating: src), srcStride: srcStride, width: w, height: h,
                    dst: output.data(plane), dstStride: output.stride(plane))
            } else {
                transform.apply(
                    UInt16.self, src: UnsafeMutableRawPointer(mutating: src), srcStride: srcStride, width: w, height: h,
                    dst: output.data(plane), dstStride: output.stride(plane))
            }
        }
        output.color = frame.color
        output.pts = frame.pts
        return output
    }
}
