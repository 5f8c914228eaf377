import CKernels
import Foundation
import SDRifyMedia
import SDRifyValues

/// The light of one picture as the scene-adaptive curve sees it: a histogram over stops relative to HDR reference
/// white (log2 of L / 203 cd/m², 8 bins per stop), measured on a sparse grid of the decoded picture.
package struct SceneStatistics: Sendable {
    static let binsPerStop = 8
    /// Stops of bin 0's lower edge.
    let lowest: Double
    package let counts: [Double]
    /// The same histogram of the near-neutral samples (SceneMeter.neutralSpread): what a diffuse white can be.
    let neutral: [Double]
    /// The samples by the level up to which they lie inside the light around them: the lowest of their own and
    /// their four neighbours' (SceneMeter). Light in one region (a lamp and its glow, the sun behind cloud) is
    /// mostly inside at its own levels; light in many small pieces (sunlit edges, faces, leaves) is mostly edge.
    let interior: [Double]
    package var total: Double { counts.reduce(0, +) }

    /// `neutral`: nil when every sample counts as near-neutral; `interior`: nil when the light is all in one piece.
    package init(lowest: Double, counts: [Double], neutral: [Double]? = nil, interior: [Double]? = nil) {
        self.lowest = lowest; self.counts = counts
        self.neutral = neutral.map { $0.count == counts.count ? $0 : counts } ?? counts
        self.interior = interior.map { $0.count == counts.count ? $0 : counts } ?? counts
    }

    /// The level (stops) below which the fraction `p` of the samples lie, interpolated inside the bin.
    func percentile(_ p: Double) -> Double {
        let target = p * total
        var below = 0.0
        for (i, c) in counts.enumerated() where c > 0 {
            if below + c >= target {
                return lowest + (Double(i) + (target - below) / c) / Double(SceneStatistics.binsPerStop)
            }
            below += c
        }
        return lowest + Double(counts.count) / Double(SceneStatistics.binsPerStop)
    }

    /// The mean level in stops (the log-average, "key", of the picture).
    package var key: Double {
        let t = total
        guard t > 0 else { return lowest }
        return counts.enumerated().reduce(0) { $0 + $1.1 * (lowest + (Double($1.0) + 0.5) / Double(SceneStatistics.binsPerStop)) } / t
    }

    /// The mean level in stops of the lit samples (those above `blackLevel`): the key without the pull of black
    /// borders, letterbox bars and sensor black, which say nothing of how the scene is lit.
    var litKey: Double {
        let first = max(0, Int(((SceneStatistics.blackLevel - lowest) * Double(SceneStatistics.binsPerStop)).rounded(.up)))
        var sum = 0.0, n = 0.0
        for i in first..<max(first, counts.count) where counts[i] > 0 {
            sum += counts[i] * (lowest + (Double(i) + 0.5) / Double(SceneStatistics.binsPerStop))
            n += counts[i]
        }
        return n > 0 ? sum / n : lowest
    }
    /// −8 stops: 0.8 cd/m².
    static let blackLevel = -8.0

    /// The level (stops) below which the fraction `p` of the lit samples (above `blackLevel`) lie.
    func litPercentile(_ p: Double) -> Double {
        let first = max(0, Int(((SceneStatistics.blackLevel - lowest) * Double(SceneStatistics.binsPerStop)).rounded(.up)))
        guard first < counts.count else { return lowest }
        let lit = counts[first...].reduce(0, +)
        guard lit > 0 else { return lowest }
        let target = p * lit
        var below = 0.0
        for i in first..<counts.count where counts[i] > 0 {
            if below + counts[i] >= target {
                return lowest + (Double(i) + (target - below) / counts[i]) / Double(SceneStatistics.binsPerStop)
            }
            below += counts[i]
        }
        return lowest + Double(counts.count) / Double(SceneStatistics.binsPerStop)
    }

    /// The fraction of samples at or above `stops`.
    func fraction(above stops: Double) -> Double {
        let t = total
        guard t > 0 else { return 0 }
        return counts[firstBin(atOrAbove: stops)...].reduce(0, +) / t
    }

    /// Of the light at or above `stops`, the share that lies inside it (`interior`): near 1 for one region, near 0
    /// for light in many small pieces; 1 when there is none.
    func compactness(above stops: Double) -> Double {
        let first = firstBin(atOrAbove: stops)
        let all = counts[first...].reduce(0, +)
        return all > 0 ? interior[first...].reduce(0, +) / all : 1
    }

    private func firstBin(atOrAbove stops: Double) -> Int {
        min(max(Int(((stops - lowest) * Double(SceneStatistics.binsPerStop)).rounded(.up)), 0), counts.count)
    }

    private func bin(containing stops: Double) -> Int {
        min(max(Int(((stops - lowest) * Double(SceneStatistics.binsPerStop)).rounded(.down)), 0), counts.count - 1)
    }

    /// The histogram with no bin holding more than `spreadCap` of the samples: light spread over a range of levels
    /// (a sky, a lit wall: texture) keeps its weight, light piled on one level (a flat graphic, a uniform patch,
    /// a clipped area) counts as little as one bin can. The highlights SceneCurve keeps texture for are read
    /// from it.
    var spreadWeighted: SceneStatistics {
        let cap = SceneStatistics.spreadCap * total
        return SceneStatistics(
            lowest: lowest, counts: counts.map { min($0, cap) }, neutral: neutral.map { min($0, cap) }, interior: interior)
    }
    /// 1.5 % per 1/8-stop bin: a level spread evenly over 8 stops would fill each bin to 1.6 %.
    static let spreadCap = 0.015

    /// The scene's diffuse white (stops): the brightest level that near-neutral surfaces of some extent reach, the
    /// level above which their spread-weighted light amounts to `whiteArea` of all samples. Saturated light
    /// (coloured lamps, neon, LEDs, saturated graphics) is not white, however bright. Not counted either: light
    /// set apart from the rest by `detachGap` stops of next to nothing (speculars, lamps, HDR graphics and
    /// gradients above a picture whose own white is lower) while it is less than half of the near-neutral light;
    /// flat areas (graphics, uniform patches, clipped highlights) weigh as little as one bin can (`spreadCap`);
    /// samples too few to make a surface (glints, small lights) stay under `whiteArea`. When no near-neutral
    /// level holds more than next to nothing, the scene has no white to go by: the lowest level.
    ///
    /// Thin light is not always a glow: sunlit surfaces in many small pieces (edges, faces, signs, a roof in the
    /// sun) can spread over two stops at about `emptyBin` a bin, and one threshold would set them apart or not
    /// on noise (the PQ and HLG versions of one photo got whites 0.6 stop apart). So where the light between the
    /// white found and the level that leaves `tailShare` of the picture above (`tail`) is thin (no bin over
    /// `thinBin`), the white is `tail`, as the makers' own SDR leaves about that much of such a scene over its
    /// white; except that light set apart in one region (`compactness` of at least `oneRegion`: the sun and its
    /// glow, a lamp) stays apart, however much of it there is. A chart's white or a lit wall piles its light far
    /// over `thinBin` and keeps the white found.
    var diffuseWhite: Double {
        let found = detachedWhite
        let tail = levelWithNeutral(above: SceneStatistics.tailShare)
        // The bins from the lower level's up to the higher's (the lower one's own bin is the body's).
        let first = firstBin(atOrAbove: min(tail, found))
        let last = bin(containing: max(tail, found))
        let thin = SceneStatistics.thinBin * total
        guard tail != found, first <= last, neutral[first...last].allSatisfy({ $0 <= thin }) else { return found }
        return tail < found || compactness(above: tail) < SceneStatistics.oneRegion ? tail : found
    }
    static let tailShare = 0.03
    static let thinBin = 2 * emptyBin
    /// A region of 250 samples (0.75 % of the picture) is about 0.75 inside; sunlit pieces of a few samples 0.1.
    static let oneRegion = 0.35

    /// The level (stops) above which `share` of all samples lie, counting only near-neutral ones.
    func levelWithNeutral(above share: Double) -> Double {
        let target = share * total
        var mass = 0.0
        for i in stride(from: neutral.count - 1, through: 0, by: -1) where neutral[i] > 0 {
            if mass + neutral[i] >= target {
                return lowest + (Double(i + 1) - (target - mass) / neutral[i]) / Double(SceneStatistics.binsPerStop)
            }
            mass += neutral[i]
        }
        return lowest
    }

    /// The white by the gaps alone (the first paragraph above).
    private var detachedWhite: Double {
        let all = total, counts = neutral, lit = neutral.reduce(0, +)
        guard lit > 0 else { return lowest }
        let empty = SceneStatistics.emptyBin * all, gapBins = Int(SceneStatistics.detachGap * Double(SceneStatistics.binsPerStop))
        // The body's top: walking down from the brightest bin holding more than next to nothing, each run of
        // `gapBins` such bins cuts off the light above it as long as that light is less than half of the
        // near-neutral light.
        var top = counts.count - 1
        while top > 0 && counts[top] <= empty { top -= 1 }
        var above = 0.0, run = 0, bodyTop = top
        for i in stride(from: top, through: 0, by: -1) {
            if counts[i] <= empty {
                run += 1
            } else {
                if run >= gapBins && above < lit / 2 { bodyTop = i }
                run = 0
            }
            above += counts[i]
        }
        let cap = SceneStatistics.spreadCap * all
        let target = SceneStatistics.whiteArea * all
        var mass = 0.0
        for i in stride(from: bodyTop, through: 0, by: -1) {
            let c = min(counts[i], cap)
            if mass + c >= target {
                // Inside the bin, from its top edge down.
                return lowest + (Double(i + 1) - (target - mass) / c) / Double(SceneStatistics.binsPerStop)
            }
            mass += c
        }
        return lowest
    }
    /// 0.75 % of the picture: a patch of a chart filling a fifth of the frame, more than a lamp or a few glints.
    static let whiteArea = 0.0075
    /// A stop of next to no light (at most `emptyBin` of the samples per 1/8-stop bin: glows, gradients, edges)
    /// sets the light above it apart. A chart's white is 0.83 stop above its light grey, so it stays joined.
    static let detachGap = 1.0
    static let emptyBin = 0.004

    /// How differently two pictures' light is spread: half the summed difference of their 1-stop histograms,
    /// from 0 (the same) to 1 (no light in common).
    package func distance(to other: SceneStatistics) -> Double {
        guard counts.count == other.counts.count, lowest == other.lowest else { return 1 }
        let a = total, b = other.total
        guard a > 0, b > 0 else { return 1 }
        var sum = 0.0
        for start in stride(from: 0, to: counts.count, by: SceneStatistics.binsPerStop) {
            let end = min(start + SceneStatistics.binsPerStop, counts.count)
            var x = 0.0, y = 0.0
            for i in start..<end { x += counts[i]; y += other.counts[i] }
            sum += abs(x / a - y / b)
        }
        return sum / 2
    }

    /// This histogram moved `weight` of the way toward `other` (both normalised to 1).
    func blended(toward other: SceneStatistics, weight: Double) -> SceneStatistics {
        let a = max(total, 1), b = max(other.total, 1)
        func mix(_ x: [Double], _ y: [Double]) -> [Double] { zip(x, y).map { $0 / a * (1 - weight) + $1 / b * weight } }
        return SceneStatistics(
            lowest: lowest, counts: mix(counts, other.counts), neutral: mix(neutral, other.neutral),
            interior: mix(interior, other.interior))
    }
}

/// Measures SceneStatistics on decoded HDR pictures (sdrify_scene_histogram): about 33,000 samples a picture
/// whatever its size, so the cost is a small constant next to the colour stage's.
package final class SceneMeter: @unchecked Sendable {
    static let samples = 32_768
    private static let eotfSize = 4096
    private static let minV: Float = 1.0 / 1_048_576  // 2⁻²⁰
    private static let maxV: Float = 64
    private let eotf: UnsafeMutableBufferPointer<Float>
    private let histogram: UnsafeMutableBufferPointer<UInt32>
    private let neutral: UnsafeMutableBufferPointer<UInt32>
    /// Each sample's light (log2 stops, display light relative to reference white) on the sampling grid, as the
    /// last picture measured left it: the neighbourhoods local contrast is measured against (LocalContrast).
    let grid: UnsafeMutableBufferPointer<Float>
    let gridWidth: Int, gridHeight: Int
    /// Picture pixels between samples; sample (gx, gy) is pixel (step/2 + gx·step, step/2 + gy·step).
    let step: Int
    /// A sample is near-neutral when its channels' spread (max − min) is at most this share of the largest (in
    /// linear light, its smallest channel at least a quarter of its largest): white and grey surfaces under tinted
    /// light, wood and stone, a blue or hazy sky; not saturated lights, signs or graphics.
    static let neutralSpread: Float = 0.75
    private var job: sdrify_stats_job
    private let hasChroma: Bool
    private let base: UInt32

    package init(format: PlanarFormat, color: ColorDescription, width: Int, height: Int) {
        let hlg = color.hdrKind == .hlg
        let (kr, kb) = color.matrix.lumaWeights ?? MatrixCoefficients.bt2020nc.lumaWeights!
        let weights = color.primaries.luminanceWeights ?? (kr, 1 - kr - kb, kb)
        eotf = .allocate(capacity: SceneMeter.eotfSize)
        for i in 0..<SceneMeter.eotfSize {
            let signal = Double(i) / Double(SceneMeter.eotfSize - 1)
            eotf[i] = Float(hlg ? HLGTables.inverseOETF(signal) : PQ.decode(signal) / ToneCurve.referenceWhite)
        }
        base = SceneMeter.minV.bitPattern >> SDRIFY_STATS_SHIFT
        let bins = Int((SceneMeter.maxV.bitPattern >> SDRIFY_STATS_SHIFT) - base) + 1
        histogram = .allocate(capacity: bins)
        neutral = .allocate(capacity: bins)
        let maxCode = Float((1 << format.bitDepth) - 1), unit = Float(1 << (format.bitDepth - 8))
        let full = color.range == .full
        let step = max(1, Int((Double(width * height) / Double(SceneMeter.samples)).squareRoot().rounded(.up)))
        self.step = step
        gridWidth = max(1, (width - step / 2 + step - 1) / step)
        gridHeight = max(1, (height - step / 2 + step - 1) / step)
        grid = .allocate(capacity: gridWidth * gridHeight)
        grid.initialize(repeating: 0)
        job = sdrify_stats_job()
        job.bytes = Int32(format.bytesPerSample)
        job.width = Int32(width); job.height = Int32(height)
        job.shift_x = Int32(format.chromaShiftX); job.shift_y = Int32(format.chromaShiftY); job.step = Int32(step)
        job.y_offset = full ? 0 : 16 * unit
        job.y_scale = full ? 1 / maxCode : 1 / (219 * unit)
        job.c_offset = 128 * unit
        job.c_scale = full ? 1 / maxCode : 1 / (224 * unit)
        let kg = 1 - kr - kb
        job.cr_r = Float(2 * (1 - kr))
        job.cb_b = Float(2 * (1 - kb))
        job.cb_g = Float(2 * (1 - kb) * kb / kg)
        job.cr_g = Float(2 * (1 - kr) * kr / kg)
        job.eotf = UnsafePointer(eotf.baseAddress)
        job.eotf_size = Int32(SceneMeter.eotfSize)
        job.kr = Float(weights.0); job.kg = Float(weights.1); job.kb = Float(weights.2)
        job.min_v = SceneMeter.minV
        // HLG's samples are scene light; each is measured as display light (the BT.2100 OOTF at 1000 cd/m², as the
        // colour stage renders it), so PQ and HLG versions of one scene fill the same bins.
        job.ootf_gamma = hlg ? Float(HLGTables.systemGamma) : 0
        job.ootf_scale = hlg ? Float(HLGTables.nominalPeak / ToneCurve.referenceWhite) : 1
        job.histogram = histogram.baseAddress
        job.grid = grid.baseAddress
        job.grid_w = Int32(gridWidth)
        job.neutral = neutral.baseAddress
        job.neutral_spread = SceneMeter.neutralSpread
        job.bins = UInt32(bins)
        job.base = base
        hasChroma = format.hasChroma
    }

    deinit {
        grid.deallocate()
        eotf.deallocate()
        histogram.deallocate()
        neutral.deallocate()
    }

    package func measure(_ frame: Frame) -> SceneStatistics {
        histogram.initialize(repeating: 0)
        neutral.initialize(repeating: 0)
        job.planes = (
            UnsafeRawPointer(frame.data(0)), hasChroma ? UnsafeRawPointer(frame.data(1)) : nil,
            hasChroma ? UnsafeRawPointer(frame.data(2)) : nil
        )
        job.strides = (frame.stride(0), hasChroma ? frame.stride(1) : 0, hasChroma ? frame.stride(2) : 0)
        withUnsafePointer(to: &job) { sdrify_scene_histogram($0) }
        return SceneStatistics(
            lowest: log2(Double(SceneMeter.minV)), counts: Array(histogram).map(Double.init),
            neutral: Array(neutral).map(Double.init), interior: interiorHistogram())
    }

    /// SceneStatistics.interior from the grid the histogram pass left: each sample binned at the lowest of its
    /// own level and its four neighbours' (those inside the picture), on the 1/8-stop grid SceneStatistics
    /// reads its bins on.
    private func interiorHistogram() -> [Double] {
        var out = [Double](repeating: 0, count: histogram.count)
        let w = gridWidth, h = gridHeight, last = Float(histogram.count - 1)
        let lowest = log2(SceneMeter.minV), perStop = Float(SceneStatistics.binsPerStop)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                var level = grid[i]
                if x > 0 { level = min(level, grid[i - 1]) }
                if x + 1 < w { level = min(level, grid[i + 1]) }
                if y > 0 { level = min(level, grid[i - w]) }
                if y + 1 < h { level = min(level, grid[i + w]) }
                out[Int(min(max((level - lowest) * perStop, 0), last))] += 1
            }
        }
        return out
    }
}
