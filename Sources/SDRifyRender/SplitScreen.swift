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
        for (cell, place) in zip(cells, places) { frame.copy((place.width, place.height), of: try cell.picture(at: time), to: (place.x, place.y)) }
        return frame
    }

    func close() { for cell in cells { cell.close() } }
}
