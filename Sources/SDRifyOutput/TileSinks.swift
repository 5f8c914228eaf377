import Foundation
import SDRifyCaptions
import SDRifyFiles
import SDRifyLayers
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// Pictures of one size laid out in a grid on one 8-bit 4:2:0 picture (a contact sheet, a sprite image), row by
/// row, `gap` pixels between the tiles and around them (0 for sprites, whose tiles players address by exact
/// rectangles). Sizes and places are even, so the chroma planes line up.
struct TileGrid {
    let columns: Int
    let rows: Int
    let tileWidth: Int
    let tileHeight: Int
    let gap: Int
    /// The whole grid's width when it is asked for (a contact sheet's --width): what the even tiles and the gaps leave
    /// goes to the outer margins.
    var totalWidth: Int? = nil

    package var width: Int { totalWidth ?? naturalWidth }
    package var height: Int { rows * tileHeight + (rows + 1) * gap }
    private var naturalWidth: Int { columns * tileWidth + (columns + 1) * gap }

    func origin(of index: Int) -> (x: Int, y: Int) {
        let margin = max(0, width - naturalWidth) / 2
        return (margin + gap + (index % columns) * (tileWidth + gap), gap + (index / columns) * (tileHeight + gap))
    }

    /// The grid of `tiles` (at most columns × rows) on a background of luma `shade` (16 black … 235 white).
    func compose(_ tiles: [Frame], shade: UInt8 = 16) throws -> Frame {
        let canvas = try Frame(width: width, height: height, format: .yuv420p)
        canvas.color = .sdrOutput
        for plane in 0..<3 {
            let rows = plane == 0 ? height : height / 2, bytes = plane == 0 ? width : width / 2
            let value: Int32 = plane == 0 ? Int32(shade) : 128
            for r in 0..<rows { memset(canvas.data(plane) + r * canvas.stride(plane), value, bytes) }
        }
        paste(tiles, into: canvas)
        return canvas
    }

    /// `tiles` copied into their places on `canvas` (both 4:2:0 of one sample size: 8-bit, or the HDR kept's words).
    func paste(_ tiles: [Frame], into canvas: Frame) {
        let bytes = (canvas.format ?? .yuv420p).bytesPerSample
        for (i, tile) in tiles.prefix(columns * rows).enumerated() {
            let (x, y) = origin(of: i)
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                let w = min(tile.width, tileWidth) >> shift, h = min(tile.height, tileHeight) >> shift
                for r in 0..<h {
                    (canvas.data(plane) + ((y >> shift) + r) * canvas.stride(plane) + (x >> shift) * bytes)
                        .copyMemory(from: tile.data(plane) + r * tile.stride(plane), byteCount: w * bytes)
                }
            }
        }
    }
}

/// An output time as a contact sheet labels it: `0:07`, `12:30`, `1:02:03`; with `tenths` (pictures less than a
/// second apart) `0:00.4`.
func clockLabel(_ t: MediaTime, tenths: Bool = false) -> String {
    let s = Int(t.seconds.rounded(.down))
    let whole = s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    return tenths ? whole + ".\(Int((t.seconds * 10).rounded(.down)) % 10)" : whole
}

/// `sheet`: a contact sheet of the video's pictures at even times (the middle of each of columns × rows equal
/// parts), each labelled with its time, as one JPEG or PNG, written atomically.
package final class ContactSheetSink: MediaSink {
    private let output: AtomicOutput
    private let type: ImageFileType
    private var picker: StillPicker
    private let columns: Int, rows: Int
    package let audioBlock = 1024
    package static let gap = Destination.sheetGap

    /// The sheet's width as asked (even); its size once made.
    private let width: Int
    package private(set) var size: (width: Int, height: Int)? = nil

    /// From a render that keeps the HDR (`hdr`): each picture made SDR; with its gain map, the HDR tiles kept too.
    private let hdr: HDRStill?
    private var hdrPicker: StillPicker?

    /// The image types a sheet is written as (JPEG and PNG; not WebP).
    package static let fileTypes: [ImageFileType] = [.jpeg, .png]
    package static func fileType(_ path: String) -> ImageFileType? { ImageFileType(path: path).flatMap { fileTypes.contains($0) ? $0 : nil } }
    package static func pathProblem(_ path: String) -> String {
        "\(path): a contact sheet is a \(spokenList(fileTypes.map { "." + $0.fileExtensions[0] })) file"
    }
    /// "OUT.jpg|.png", for the usage line.
    package static let usageForm = fileTypes.map { "." + $0.fileExtensions[0] }.joined(separator: "|")

    package init(
        path: String, inputs: [String], overwrite: OverwritePolicy, columns: Int, rows: Int, width: Int, length: MediaTime, hdr: HDRStill? = nil
    ) throws {
        guard let type = ContactSheetSink.fileType(path) else { throw SDRifyError.usage(ContactSheetSink.pathProblem(path)) }
        self.hdr = hdr
        self.type = type
        self.width = width & ~1
        self.columns = columns; self.rows = rows
        let count = Int64(columns * rows)
        picker = StillPicker(times: (0..<count).map { length.scaled(2 * $0 + 1, 2 * count) })
        hdrPicker = hdr?.gainMap == true ? picker : nil
        output = try AtomicOutput.open(finalPath: path, inputPaths: inputs, policy: overwrite)
    }

    deinit { output.discard() }

    package var times: [MediaTime] { picker.times }

    package func begin(_ format: RenderFormat) throws {
        picker.begin(format)
        hdrPicker?.begin(format)
    }

    package func write(picture: Frame) throws {
        try picker.offer(try hdr?.toSDR(picture) ?? picture)
        try hdrPicker?.offer(picture)
    }

    package func finish() throws {
        guard let pictures = picker.finish() else { throw SDRifyError.conversion("\(output.finalPath): no picture for the contact sheet") }
        let tileSize = picker.size
        let natural = columns * tileSize.width + (columns + 1) * ContactSheetSink.gap
        let grid = TileGrid(
            columns: columns, rows: rows, tileWidth: tileSize.width, tileHeight: tileSize.height, gap: ContactSheetSink.gap,
            totalWidth: max(natural, width))
        size = (grid.width, grid.height)
        let sheet = try grid.compose(pictures, shade: 40)
        // With a gain map: made against the sheet before its labels, the HDR tiles over the sheet placed in the HDR.
        var map: GainMapImage? = nil, plain: [UInt8] = []
        if let hdr, let hdrTiles = hdrPicker?.finish() {
            plain = try ImageEncoder.rgb(sheet)
            let hdrSheet = try FrameConverter.placingSDR(width: grid.width, height: grid.height, output: hdr.kind).convert(sheet, format: .yuv420p)
            grid.paste(hdrTiles, into: hdrSheet)
            map = try GainMapImage(hdr: hdrSheet, kind: hdr.kind, sdrRGB: plain)
        }
        // Each tile's time, bottom left inside it, drawn by libass like any caption.
        var look = TextLook(size: .pixels(max(10, Double(min(tileSize.width, tileSize.height)) / 9)), outlineColor: RGBColor(r: 0, g: 0, b: 0))
        look.outline = max(1, look.pixels(width: tileSize.width, height: tileSize.height) / 10)
        let pad = max(3, tileSize.height / 24)
        var script = ASSScript.head(
            width: grid.width, height: grid.height,
            style: look.assStyle(name: "Label", alignment: 1, margin: 0, width: grid.width, height: grid.height))
        let tenths = picker.times.count > 1 && (picker.times[1] - picker.times[0]) < MediaTime(1)
        for (i, t) in picker.times.enumerated() {
            let (x, y) = grid.origin(of: i)
            script +=
                "Dialogue: 0,\(ASSScript.stamp(0)),\(ASSScript.stamp(10)),Label,,0,0,0,,{\\an1\\pos(\(x + pad),\(y + tileSize.height - pad))}\(clockLabel(t, tenths: tenths))\n"
        }
        let labels = try CaptionLayer(script: script, label: "contact sheet labels", frameWidth: grid.width, frameHeight: grid.height)
        labels.apply(to: sheet, at: 1)
        guard var map else { return try output.write(try ImageEncoder.encode(sheet, as: type)) }
        let labelled = try ImageEncoder.rgb(sheet)
        map.keepBase(labelled, differingFrom: plain, pictureWidth: grid.width)  // the labels stay SDR everywhere
        try output.write(
            try GainMapJPEG.assemble(
                primary: try ImageEncoder.jpeg(rgb: labelled, width: grid.width, height: grid.height),
                gainMap: try ImageEncoder.jpeg(rgb: map.rgb, width: map.width, height: map.height), metadata: map.metadata))
    }

    package func commit() throws { try output.commit() }
}

/// `sprites`: seek-preview tiles as players use them: pictures every `every` seconds, columns × rows to a JPEG
/// (`sprite-1.jpg` …), and `thumbnails.vtt` whose cues cover the whole video, each pointing at its tile
/// (`sprite-1.jpg#xywh=x,y,w,h`). All in one directory that appears when complete.
package final class SpriteSink: MediaSink {
    private let directory: AtomicDirectory
    private var picker: StillPicker
    private let columns: Int, rows: Int
    private let every: MediaTime
    private let length: MediaTime
    package let audioBlock = 1024
    package private(set) var sprites = 0

    package init(directory: AtomicDirectory, every: MediaTime, columns: Int, rows: Int, length: MediaTime) {
        self.directory = directory
        self.every = every; self.columns = columns; self.rows = rows; self.length = length
        var times: [MediaTime] = []
        var t = MediaTime.zero
        while t < length || times.isEmpty {
            times.append(t)
            t = t + every
        }
        picker = StillPicker(times: times)
    }

    package var tiles: Int { picker.times.count }

    package func begin(_ format: RenderFormat) throws { picker.begin(format) }
    package func write(picture: Frame) throws { try picker.offer(picture) }

    package func finish() throws {
        guard let pictures = picker.finish() else { throw SDRifyError.conversion("\(directory.finalPath): no picture for the sprites") }
        let tileSize = picker.size
        let perSprite = columns * rows
        var cues: [Cue] = []
        for start in stride(from: 0, to: pictures.count, by: perSprite) {
            let chunk = Array(pictures[start..<min(start + perSprite, pictures.count)])
            // The last sprite is laid out with no empty tile where a grid that fits allows (6 tiles in 4×4: 3×2).
            let n = chunk.count
            let usedColumns = (1...min(columns, n)).reversed().first { n % $0 == 0 && n / $0 <= rows } ?? min(columns, n)
            let usedRows = (n + usedColumns - 1) / usedColumns
            let grid = TileGrid(columns: usedColumns, rows: usedRows, tileWidth: tileSize.width, tileHeight: tileSize.height, gap: 0)
            sprites += 1
            let name = "sprite-\(sprites).jpg"
            try directory.write(name, try ImageEncoder.encode(try grid.compose(chunk), as: .jpeg))
            for i in chunk.indices {
                let index = start + i
                // The last cue ends with the video.
                let from = picker.times[index], to = index + 1 < picker.times.count ? picker.times[index + 1] : length
                let (x, y) = grid.origin(of: i)
                cues.append(Cue(start: from, end: to, lines: ["\(name)#xywh=\(x),\(y),\(tileSize.width),\(tileSize.height)"]))
            }
        }
        try directory.write("thumbnails.vtt", Array(CaptionWriter.vtt(cues).utf8))
    }

    package func commit() throws { try directory.commit() }
}
