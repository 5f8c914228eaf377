import Foundation
import SDRifyOutput
import SDRifyTimeline
import SDRifyValues

/// Columns × rows pictures at even times, each labelled, `width` wide in all (`sheet`).
final class SheetDestination: OutputDestination {
    private let columns: Int, rows: Int, width: Int
    private var sheet: ContactSheetSink?

    init(columns: Int, rows: Int, width: Int) { (self.columns, self.rows, self.width) = (columns, rows, width) }

    var writesVideoFile: Bool { false }
    var keepsHDR: Bool { false }
    var takesGainMap: Bool { true }

    func prepare(_ timeline: inout Timeline) throws {
        let tileWidth = max(2, (width - (columns + 1) * ContactSheetSink.gap) / columns & ~1)
        timeline.output.size = .box(width: tileWidth, height: tileWidth * 4)
    }

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] {
        guard let length = render.plan.expectedLength else { throw SDRifyError.invalidInput("\(render.timeline.input): its length is not known") }
        let out = render.output
        let sheet = try ContactSheetSink(
            path: out.path, inputs: render.inputs, overwrite: out.overwrite, columns: columns, rows: rows, width: width, length: length,
            hdr: try render.hdrStill())
        self.sheet = sheet
        return [sheet]
    }

    func report(into result: inout ExportResult) {
        let times = (sheet?.times ?? []).map { JSONValue.double(($0.seconds * 1000).rounded() / 1000) }
        // The size is the sheet's; a tile's as its own fields.
        let size = sheet?.size ?? (0, 0)
        result.destinationFields = [
            ("grid", .string("\(columns)x\(rows)")), ("times", .array(times)), ("width", .int(Int64(size.width))),
            ("height", .int(Int64(size.height))), ("tile_width", .int(Int64(result.width))), ("tile_height", .int(Int64(result.height)))
        ]
    }
}
