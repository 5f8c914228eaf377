import Foundation
import SDRifyMedia
import SDRifyValues

/// Keeps a summary of every picture and of the sound instead of encoding them: for tests of the pipeline.
final class ChecksumSink: MediaSink {
    struct Picture: Sendable {
        var meanY: Double, meanCb: Double, meanCr: Double
        var checksum: UInt64  // FNV-1a over the visible samples of the three planes
        var pts: Int64?
        var duration: Int64?
        /// Mean luma of a rectangle (fractions of the width and height), for "which clip shows where".
        var regions: [Double]
    }
    private(set) var width = 0, height = 0
    private(set) var rate: FrameRate? = nil
    private(set) var hasAudio = false
    private(set) var pictures: [Picture] = []
    /// RMS of the left channel in blocks of `audioBlock` samples, and the total count.
    private(set) var audioRMS: [Double] = []
    private(set) var audioSamples = 0
    private(set) var finished = false
    package let audioBlock = 1024
    /// Regions measured in every picture: (x, y, width, height) as fractions.
    let regions: [(Double, Double, Double, Double)]
    /// With `keepingSamples`: every picture's visible samples, plane by plane (Y, Cb, Cr), row after row.
    private(set) var samples: [[[UInt8]]] = []
    private let keepingSamples: Bool

    package init(regions: [(Double, Double, Double, Double)] = [], keepingSamples: Bool = false) {
        self.regions = regions
        self.keepingSamples = keepingSamples
    }

    private(set) var timeBase: TimeBase? = nil

    package func begin(_ format: RenderFormat) throws {
        width = format.width; height = format.height; rate = format.rate; timeBase = format.timeBase; hasAudio = format.sound
    }

    package func write(picture: Frame) throws {
        var sums = [Double](repeating: 0, count: 3)
        var hash: UInt64 = 0xcbf29ce484222325
        var kept: [[UInt8]] = []
        for p in 0..<3 {
            let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: picture.width, height: picture.height)
            var plane: [UInt8] = []
            for y in 0..<h {
                let row = picture.data(p).assumingMemoryBound(to: UInt8.self) + y * picture.stride(p)
                if keepingSamples { plane.append(contentsOf: UnsafeBufferPointer(start: row, count: w)) }
                var s = 0
                for x in 0..<w { s += Int(row[x]); hash = (hash ^ UInt64(row[x])) &* 0x100000001b3 }
                sums[p] += Double(s)
            }
            sums[p] /= Double(w * h)
            if keepingSamples { kept.append(plane) }
        }
        if keepingSamples { samples.append(kept) }
        let means = regions.map { r -> Double in
            let x0 = Int(r.0 * Double(width)), y0 = Int(r.1 * Double(height))
            let x1 = max(x0 + 1, Int((r.0 + r.2) * Double(width))), y1 = max(y0 + 1, Int((r.1 + r.3) * Double(height)))
            var s = 0
            for y in y0..<min(y1, height) {
                let row = picture.data(0).assumingMemoryBound(to: UInt8.self) + y * picture.stride(0)
                for x in x0..<min(x1, width) { s += Int(row[x]) }
            }
            return Double(s) / Double((min(y1, height) - y0) * (min(x1, width) - x0))
        }
        pictures.append(
            Picture(
                meanY: sums[0], meanCb: sums[1], meanCr: sums[2], checksum: hash, pts: picture.pts,
                duration: picture.duration, regions: means))
    }

    package func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        var s = 0.0
        for i in 0..<count { s += Double(left[i]) * Double(left[i]) }
        audioRMS.append((s / Double(max(count, 1))).squareRoot())
        audioSamples += count
    }

    package func finish() throws { finished = true }
}
