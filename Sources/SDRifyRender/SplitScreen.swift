import SDRifyMedia
import SDRifyTimeline
import SDRifyValues

/// A split screen while open: each cell a clip source of its own (upright, tone mapped and fitted into its cell as
/// any clip is into the canvas), their pictures put side by side in one canvas-sized picture. All of a split's cells
/// are open while it shows, and closed with it.
final class SplitClipSource: ClipSource {
    let cells: [ClipSource]
    private let places: [(x: Int, y: Int, width: Int, height: Int)]
    private let frame: Frame

    init(cells: [ClipSource], places: [(x: Int, y: Int, width: Int, height: Int)], canvas: Canvas) throws {
        self.cells = cells
        self.places = places
        frame = try Frame(width: canvas.width, height: canvas.height, format: .output(canvas.range))
        frame.color = .output(canvas.range)
    }

    func picture(at time: MediaTime) throws -> Frame {
        try frame.makeWritable()
        for (cell, place) in zip(cells, places) { SplitClipSource.copy(try cell.picture(at: time), into: frame, at: place) }
        return frame
    }

    func close() { for cell in cells { cell.close() } }

    /// A cell's picture (its cell's size) copied into `frame` with its top-left at the cell's (even) corner.
    static func copy(_ picture: Frame, into frame: Frame, at place: (x: Int, y: Int, width: Int, height: Int)) {
        let layout = frame.format ?? .yuv420p
        for p in 0..<layout.planeCount {
            let (w, h) = layout.planeSize(p, width: place.width, height: place.height)
            let (x0, y0) = p == 0 ? (place.x, place.y) : (place.x >> layout.chromaShiftX, place.y >> layout.chromaShiftY)
            let bytes = layout.bytesPerSample
            for y in 0..<h {
                (frame.data(p) + (y0 + y) * frame.stride(p) + x0 * bytes).copyMemory(
                    from: picture.data(p) + y * picture.stride(p), byteCount: w * bytes)
            }
        }
    }
}
