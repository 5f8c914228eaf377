/// Makes 8-bit 4:2:0 output frames upright (run after downscaling, where the picture is smallest).
public final class FrameOrienter: @unchecked Sendable {
    public let orientation: Orientation
    private let transform: PlaneTransform
    private let output: Frame

    /// `width`×`height` is the coded (pre-orientation) size of the frames to come.
    public init(_ orientation: Orientation, width: Int, height: Int) throws {
        self.orientation = orientation
        transform = PlaneTransform(orientation)
        let (w, h) = orientation.uprightSize(width: width, height: height)
        output = try Frame(width: w, height: h, format: .yuv420p)
        output.color = .sdrOutput
    }

    public func apply(_ frame: Frame) throws -> Frame {
        try output.makeWritable()
        for plane in 0..<3 {
            let (w, h) = PlanarFormat.yuv420p.planeSize(plane, width: frame.width, height: frame.height)
            transform.apply(UInt8.self, src: frame.data(plane), srcStride: frame.stride(plane), width: w, height: h,
                            dst: output.data(plane), dstStride: output.stride(plane))
        }
        output.pts = frame.pts
        return output
    }
}
