import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyValues

/// Which picture a video shows at each of a list of output times: the latest that starts at or before the time (a
/// player's picture), kept by reference (the render's rings copy on write if they come back to it). Times past the
/// last picture show the last one.
struct StillPicker {
    package let times: [MediaTime]  // ascending
    private(set) var picked: [Frame] = []
    private var held: Frame? = nil
    private var timeBase = TimeBase(num: 1, den: 1)
    /// The pictures' size (a tile's, for the sinks that lay them out).
    private(set) var size = (width: 0, height: 0)

    package init(times: [MediaTime]) { self.times = times.sorted() }

    /// The render's format (its clock and picture size), before the first picture.
    mutating func begin(_ format: RenderFormat) {
        timeBase = format.timeBase
        size = (format.width, format.height)
    }

    mutating func offer(_ picture: Frame) throws {
        let start = MediaTime(ticks: picture.pts ?? 0, timeBase)
        while picked.count < times.count, times[picked.count] < start, let held { picked.append(held) }
        held = try picture.reference()
        if picked.count < times.count, times[picked.count] == start { picked.append(held!) }
    }

    /// Every time's picture; nil when the render gave none.
    package mutating func finish() -> [Frame]? {
        guard let held else { return nil }
        while picked.count < times.count { picked.append(held) }
        return picked
    }
}

/// `thumbnail --best`: the most representative picture of the first part of the video (see docs/publishing.md): candidates
/// every `spacing`, those too dark, too bright, too flat (fades, titles on black) or blurred left out, and of the
/// rest the one whose light (its luma histogram) is nearest the candidates' average, as ffmpeg's thumbnail filter
/// chooses, so a passing flash or a transition is not chosen.
package final class BestPictureSink: MediaSink {
    private let output: AtomicOutput
    private let type: ImageFileType
    private let spacing: MediaTime
    private var timeBase = TimeBase(num: 1, den: 1)
    private var nextCandidate = MediaTime.zero
    private var candidates: [(picture: Frame, hdr: Frame?, time: MediaTime, look: PictureLook)] = []
    private let hdr: HDRStill?
    package let audioBlock = 1024
    package private(set) var chosen: (time: MediaTime, look: PictureLook)? = nil

    /// `hdr`: the render keeps the HDR (every picture is made SDR and looked at so; the gain map from the chosen one's HDR).
    package init(path: String, inputs: [String], overwrite: OverwritePolicy, spacing: MediaTime, hdr: HDRStill? = nil) throws {
        self.hdr = hdr
        guard let type = ImageFileType(path: path) else { throw SDRifyError.usage("\(path): a thumbnail is a \(ImageFileType.extensions) file") }
        self.type = type
        self.spacing = spacing
        output = try AtomicOutput.open(finalPath: path, inputPaths: inputs, policy: overwrite)
    }

    deinit { output.discard() }

    package func begin(_ format: RenderFormat) throws { timeBase = format.timeBase }

    package func write(picture: Frame) throws {
        let time = MediaTime(ticks: picture.pts ?? 0, timeBase)
        let sdr = try hdr?.toSDR(picture) ?? picture  // every picture, so the scene curve follows the video's
        guard time >= nextCandidate else { return }
        while nextCandidate <= time { nextCandidate = nextCandidate + spacing }
        candidates.append((try sdr.reference(), hdr?.gainMap == true ? try picture.reference() : nil, time, PictureLook(sdr)))
    }

    package func finish() throws {
        guard !candidates.isEmpty else { throw SDRifyError.conversion("\(output.finalPath): no picture for the thumbnail") }
        let looks = candidates.map(\.look)
        let sharpest = looks.map(\.sharpness).max() ?? 0
        // Usable: exposed (mean luma 8–92 %), with contrast, and at least a quarter as sharp as the sharpest.
        var usable = candidates.indices.filter { i in
            let l = looks[i]
            return l.mean > 0.08 && l.mean < 0.92 && l.contrast > 0.04 && l.sharpness >= sharpest * 0.25
        }
        if usable.isEmpty { usable = [looks.indices.max(by: { looks[$0].score < looks[$1].score })!] }
        var average = [Double](repeating: 0, count: PictureLook.bins)
        for i in usable { for b in 0..<PictureLook.bins { average[b] += looks[i].histogram[b] / Double(usable.count) } }
        let best = usable.min(by: { looks[$0].distance(to: average) < looks[$1].distance(to: average) })!
        chosen = (candidates[best].time, looks[best])
        let pick = candidates[best]
        try output.write(try hdr?.encode(sdr: pick.picture, hdr: pick.hdr, as: type) ?? ImageEncoder.encode(pick.picture, as: type))
        candidates = []
    }

    package func commit() throws { try output.commit() }
}

/// What `--best` looks at in a picture's luma (8-bit, video range read as 0–1): mean, spread, the energy of its
/// edges (a Laplacian: blur lowers it) and a 32-bin histogram. Every second pixel each way: enough to rank.
package struct PictureLook: Sendable {
    static let bins = 32
    package var mean = 0.0
    package var contrast = 0.0  // standard deviation
    package var sharpness = 0.0  // mean absolute Laplacian
    var histogram = [Double](repeating: 0, count: PictureLook.bins)

    package init(_ picture: Frame) {
        let w = picture.width, h = picture.height, stride = picture.stride(0)
        let y = picture.data(0).assumingMemoryBound(to: UInt8.self)
        var sum = 0.0, sumSquares = 0.0, edges = 0.0, n = 0.0
        var counts = [Double](repeating: 0, count: PictureLook.bins)
        for row in Swift.stride(from: 2, to: h - 2, by: 2) {
            let line = y + row * stride
            for x in Swift.stride(from: 2, to: w - 2, by: 2) {
                let v = min(max((Double(line[x]) - 16) / 219, 0), 1)
                sum += v; sumSquares += v * v; n += 1
                counts[min(Int(v * Double(PictureLook.bins)), PictureLook.bins - 1)] += 1
                let lap = 4 * Int(line[x]) - Int(line[x - 2]) - Int(line[x + 2]) - Int(line[x - 2 * stride]) - Int(line[x + 2 * stride])
                edges += Double(abs(lap)) / 219
            }
        }
        guard n > 0 else { return }
        mean = sum / n
        contrast = max(0, sumSquares / n - mean * mean).squareRoot()
        sharpness = edges / n
        histogram = counts.map { $0 / n }
    }

    /// For when nothing is usable: prefer what is exposed, with contrast and sharp.
    var score: Double { contrast + sharpness - abs(mean - 0.45) }

    func distance(to average: [Double]) -> Double {
        zip(histogram, average).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
    }
}
