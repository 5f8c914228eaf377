import Foundation
import SDRifyMedia
import SDRifyPresets
import SDRifyValues

/// One rendering command as a value: the timeline (a conversion is its one-clip case, with what it carries over
/// from its input) and what the render is written into.
package struct ExportRequest: Sendable {
    package var timeline: Timeline
    package var destination: Destination

    package init(_ timeline: Timeline, into destination: Destination = .video) {
        self.timeline = timeline; self.destination = destination
    }

    /// Every file the export reads (the sandbox allows these).
    package var filesRead: [String] { timeline.filesRead }
}

/// What a render is written into.
package enum Destination: Sendable {
    /// The output video file, with a poster beside it when one is asked for (`convert`, `compose`).
    case video
    /// A directory of renditions, segments and playlists (`hls`).
    case hls(HLSSpec)
    /// One picture: at a time (default 1 s in, or the middle of a video under 2 s), or the most representative of
    /// the first part, `window` long once its length is known (`thumbnail`).
    case thumbnail(at: MediaTime?, best: Bool, window: MediaTime? = nil)
    /// Columns × rows pictures at even times, each labelled, `width` wide in all (`sheet`).
    case sheet(columns: Int, rows: Int, width: Int)
    /// A tile every `every`, columns × rows to a sprite image, and thumbnails.vtt (`sprites`).
    case sprites(every: MediaTime, columns: Int, rows: Int, tileBox: TileBox)
    /// Nothing: the render is made for what it measures (`probe --scene-stats`).
    case survey

    /// A picture each tile fits inside.
    package struct TileBox: Sendable, Equatable {
        package var width: Int, height: Int
        package init(width: Int, height: Int) { self.width = width; self.height = height }
    }

    /// The ranges of a sheet's and a sprite's values, each said once here (the command line names its flag).
    package static let sheetGrid = 1...32, sheetWidth = 64...16384, spriteTiles = 1...64, tileSide = 8...1920
    package static let tileEvery: ClosedRange<Double> = 0.1...3600
    /// The narrowest picture on a sheet, the gap around each, and the largest sprite image either way.
    package static let sheetTileWidth = 16, sheetGap = 8, spriteSide = 16384

    /// What is wrong with the destination's own values: the setting and why (nil when nothing). Checked once, here,
    /// by every export (`Export.run`); the command line asks before it runs, to name the flag that carried it.
    package var problem: (setting: String, message: String)? {
        switch self {
        case .sheet(let columns, let rows, let width):
            if !Destination.sheetGrid.contains(columns) || !Destination.sheetGrid.contains(rows) {
                return ("grid", "expected COLSxROWS, each \(Destination.sheetGrid.spoken), not '\(columns)x\(rows)'")
            }
            let tile = (width - (columns + 1) * Destination.sheetGap) / columns
            if !Destination.sheetWidth.contains(width) || tile < Destination.sheetTileWidth {
                return (
                    "width",
                    "expected \(Destination.sheetWidth.lowerBound) to \(Destination.sheetWidth.upperBound) pixels, room for \(columns) pictures at least \(Destination.sheetTileWidth) wide, not \(width)"
                )
            }
        case .sprites(let every, let columns, let rows, let box):
            if !Destination.tileEvery.contains(every.seconds) {
                return ("every", "must be \(Destination.tileEvery.spoken) seconds, not \(every.seconds.spokenBound)")
            }
            if !Destination.spriteTiles.contains(columns) || !Destination.spriteTiles.contains(rows) {
                return ("tile", "expected COLSxROWS, each \(Destination.spriteTiles.spoken), not '\(columns)x\(rows)'")
            }
            if !Destination.tileSide.contains(box.width) || !Destination.tileSide.contains(box.height) || box.width * columns > Destination.spriteSide
                || box.height * rows > Destination.spriteSide
            {
                return (
                    "size",
                    "expected WxH, each \(Destination.tileSide.lowerBound) to \(Destination.tileSide.upperBound) pixels (a sprite at most \(Destination.spriteSide) each way), not '\(box.width)x\(box.height)'"
                )
            }
        case .video, .hls, .thumbnail, .survey:
            break
        }
        return nil
    }
}

/// What `hls` makes besides the conversion: the ladder, the segments' length, the caps.
package struct HLSSpec: Sendable {
    package var ladder = Ladder.standard
    package var segmentLength: MediaTime = 4
    /// `--max-bitrate`: one cap for every rendition, or one per rung in the ladder's order as given.
    package var maxBitRates: [BitRate] = []
    /// `--ranges`: the ladders made from the one decode, SDR first (an HDR one keeps the HDR, `RangeRequest.hdr`).
    package var ranges: [RangeRequest] = [.sdr]

    package static let segmentLengths: ClosedRange<Double> = 1...30

    /// `sdr,hdr`: each range once, in a fixed order (SDR first); nil for a word that is not one.
    package static func ranges(_ text: String) -> [RangeRequest]? {
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let ranges = words.compactMap(RangeRequest.init(rawValue:))
        guard !ranges.isEmpty, ranges.count == words.count, Set(ranges).count == ranges.count else { return nil }
        return RangeRequest.allCases.filter(ranges.contains)
    }

    package init() {}

    /// The cap for a rung: the one given for all, or the one at its place in the ladder as given.
    package func cap(forRung rung: Int) -> BitRate? {
        if maxBitRates.count == 1 { return maxBitRates[0] }
        guard !maxBitRates.isEmpty else { return nil }
        // A source smaller than every rung makes one rendition of its own size: it takes the smallest rung's cap.
        let given = ladder.given
        let i = given.firstIndex(of: rung) ?? given.indices.min(by: { given[$0] < given[$1] })!
        return i < maxBitRates.count ? maxBitRates[i] : nil
    }

    /// The caps against the ladder: nil when they fit.
    package var capProblem: String? {
        guard maxBitRates.count > 1, maxBitRates.count != ladder.given.count else { return nil }
        return "--max-bitrate: give one rate for every rendition or one per rung (\(ladder.given.count)), not \(maxBitRates.count)"
    }
}
