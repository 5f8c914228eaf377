/// Makes frames upright, after downscaling, where the picture is smallest. Works on 4:2:0, 4:4:4 and grey
/// layouts of 8 to 16 bits; 4:2:2 must be converted first (turned 90° it would become 4:4:0).
public final class FrameOrienter: @unchecked Sendable {
    public let orientation: Orientation
    private let transform: PlaneTransform
    private let format: PlanarFormat
    private let outputs: [Frame]
    private var nextOutput = 0

    /// `width`×`height` is the coded (pre-orientation) size of the frames to come.
    /// Output pictures come from a ring of `ringSize`, so a picture still queued for the encoder is not
    /// overwritten.
    public init(_ orientation: Orientation, width: Int, height: Int, format: PlanarFormat = .yuv420p, ringSize: Int = 1) throws {
        guard format.chromaShiftX == format.chromaShiftY || !format.hasChroma else {
            throw SDRifyError.unsupported("cannot rotate 4:2:2 pictures without converting them first")
        }
        self.orientation = orientation
        self.format = format
        transform = PlaneTransform(orientation)
        let (w, h) = orientation.uprightSize(width: width, height: height)
        outputs = try (0..<max(1, ringSize)).map { _ in try Frame(width: w, height: h, format: format) }
    }

    public func apply(_ frame: Frame) throws -> Frame {
        let output = outputs[nextOutput]
        nextOutput = (nextOutput + 1) % outputs.count
        try output.makeWritable()
        for plane in 0..<format.planeCount {
            let (w, h) = format.planeSize(plane, width: frame.width, height: frame.height)
            if format.bytesPerSample == 1 {
                transform.apply(
                    UInt8.self, src: frame.data(plane), srcStride: frame.stride(plane), width: w, height: h,
                    dst: output.data(plane), dstStride: output.stride(plane))
            } else {
                transform.apply(
                    UInt16.self, src: frame.data(plane), srcStride: frame.stride(plane), width: w, height: h,
                    dst: output.data(plane), dstStride: output.stride(plane))
            }
        }
        output.color = frame.color
        output.pts = frame.pts
        return output
    }
}
