import Foundation
import SDRifyFiles
import SDRifyOutput
import SDRifyTimeline
import SDRifyValues

/// A tile every `every`, columns × rows to a sprite image, and thumbnails.vtt (`sprites`).
final class SpritesDestination: OutputDestination {
    private let every: MediaTime, columns: Int, rows: Int, tile: Destination.TileBox
    private var sprites: SpriteSink?

    init(every: MediaTime, columns: Int, rows: Int, tile: Destination.TileBox) {
        (self.every, self.columns, self.rows, self.tile) = (every, columns, rows, tile)
    }

    var writesVideoFile: Bool { false }
    var keepsHDR: Bool { false }
    var takesGainMap: Bool { false }

    func prepare(_ timeline: inout Timeline) throws { timeline.output.size = .box(width: tile.width, height: tile.height) }

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] {
        guard let length = render.plan.expectedLength else { throw SDRifyError.invalidInput("\(render.timeline.input): its length is not known") }
        let out = render.output
        let directory = try AtomicDirectory.open(finalPath: out.path, inputPaths: render.inputs, policy: out.overwrite)
        let sprites = SpriteSink(directory: directory, every: every, columns: columns, rows: rows, length: length)
        self.sprites = sprites
        return [sprites]
    }

    func report(into result: inout ExportResult) {
        result.destinationFields = [
            ("tiles", .int(Int64(sprites?.tiles ?? 0))), ("sprites", .int(Int64(sprites?.sprites ?? 0))), ("every_s", .double(every.seconds)),
            ("vtt", .string("thumbnails.vtt"))
        ]
    }
}
