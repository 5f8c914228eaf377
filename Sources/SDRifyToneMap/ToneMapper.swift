import CKernels
import Foundation
import SDRifyMedia
import SDRifyValues

/// The HDR colour stage: PQ/HLG BT.2020 Y'CbCr → 8-bit 4:2:0 BT.709 SDR at the output size.
/// zimg does the legs (Y'CbCr → R'G'B', transfer to linear light with the HLG OOTF on luminance, BT.2020 →
/// BT.709 primaries, resizing and chroma siting; then encoding for SDRDisplay, Y'CbCr, 4:2:0 and dithering);
/// the tone curve and gamut mapping in between are ours. Buffers and graphs are built once.
package final class ToneMapper: @unchecked Sendable {
    private(set) var curve: ToneCurve
    private let maxY: Double
    // `auto`: each picture is measured and the gain table rebuilt (in place) when its scene's curve changes.
    private let scenes: SceneTracker?
    private let meter: SceneMeter?
    private let toLinear: ZimgGraph  // PQ: to linear BT.709; HLG: to HLG R'G'B' BT.2020 (hlg linearises)
    private let hlg: HLGTables?
    private let toSDR: ZimgGraph
    // The first leg writes float rows into a small ring; the colour pass (sdrify_colour_rows, called by zimg as
    // rows are written) maps them into frame-sized half-float planes of linear BT.709 (1 = 203 cd/m²), which the
    // second leg reads. No frame-sized float buffer, one trip through memory.
    private let rows: [UnsafeMutableRawPointer], rowMask: UInt32, rowStride: Int
    private let mapped: [UnsafeMutableRawPointer], mappedStride: Int
    private let scratch: [UnsafeMutablePointer<Float>]  // HLG's linear rows
    private let tables: [UnsafeMutableBufferPointer<Float>]  // stable copies the C pass reads
    private let job: UnsafeMutablePointer<sdrify_colour_job>
    /// `auto`: the local-contrast grids and rows the colour pass reads (LocalContrast), rebuilt each picture.
    private let local: LocalGrids?
    private let outputs: FrameRing

    package init(
        sourceFormat: PlanarFormat, sourceColor: ColorDescription, width sw: Int, height sh: Int, sourceRegion: CodedRegion? = nil,
        outputWidth: Int, outputHeight: Int, curve: ToneCurve, ringSize: Int = 1,
        exactHLG: Bool = false, outputSiting: ChromaLocation = .left, scenes: SceneTracker? = nil
    ) throws {
        // A tone mapper made again mid-stream (the picture changed size) goes on with the scene's curve.
        if curve.op == .auto, let scenes {
            self.curve = ToneCurve(.auto, sourcePeak: curve.sourcePeak, scene: scenes.curve, exposure: curve.exposure)
        } else {
            self.curve = curve
        }
        let kind = sourceColor.hdrKind
        maxY = (kind == .hlg ? 1000 : 10000) / ToneCurve.referenceWhite
        let table = GainTable(curve: self.curve, maxY: maxY)
        self.scenes = curve.op == .auto ? scenes : nil
        meter = self.scenes == nil ? nil : SceneMeter(format: sourceFormat, color: sourceColor, width: sw, height: sh)
        let linear = ColorDescription(primaries: .bt709, transfer: .linear, matrix: .rgb, range: .full)
        // HLG: zimg stops at R'G'B' (matrix, resize, chroma) and our tables do the transfer (`exactHLG` keeps
        // zimg's exact path, for the test that compares the two). The tables are BT.2020's (luminance weights
        // and primaries): HLG in other primaries (BT.709 from some cameras) takes zimg's exact path.
        hlg = kind == .hlg && !exactHLG && sourceColor.primaries == .bt2020 ? HLGTables() : nil
        let legA =
            hlg == nil
            ? linear
            : ColorDescription(primaries: sourceColor.primaries, transfer: .aribStdB67, matrix: .rgb, range: .full)
        toLinear = try ZimgGraph(
            from: ZimgFormat(width: sw, height: sh, format: sourceFormat, color: sourceColor, region: sourceRegion),
            to: ZimgFormat(width: outputWidth, height: outputHeight, rgb: legA),
            dither: .none, nominalPeakLuminance: ToneCurve.referenceWhite,
            approximateTransfer: kind == .pq)
        var sdr = ColorDescription.sdrOutput
        sdr.transfer = SDRDisplay.transfer  // encoded for the display it will be seen on; tagged BT.709
        sdr.chromaLocation = outputSiting
        toSDR = try ZimgGraph(
            from: ZimgFormat(width: outputWidth, height: outputHeight, rgb: linear, half: true),
            to: ZimgFormat(width: outputWidth, height: outputHeight, format: .yuv420p, color: sdr),
            dither: .ordered, nominalPeakLuminance: ToneCurve.referenceWhite,
            approximateTransfer: true)
        func planes(_ count: Int, _ bytes: Int) -> [UnsafeMutableRawPointer] {
            (0..<count).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64) }
        }
        let ring = toLinear.ringMask(height: outputHeight)
        rowMask = ring.mask
        rowStride = (outputWidth * MemoryLayout<Float>.size + 63) & ~63
        rows = planes(3, rowStride * ring.rows)
        mappedStride = (outputWidth * MemoryLayout<Float16>.size + 63) & ~63
        mapped = planes(3, mappedStride * outputHeight)
        scratch = (0..<3).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: outputWidth) }
        outputs = try FrameRing(size: ringSize, width: outputWidth, height: outputHeight)

        func stableCopy(_ a: [Float]) -> UnsafeMutableBufferPointer<Float> {
            let p = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(a.count, 1))
            _ = p.initialize(from: a)
            return p
        }
        let gains = stableCopy(table.gains), oetf = stableCopy(hlg?.inverseOETF ?? []), ootf = stableCopy(hlg?.ootfGain ?? [])
        tables = [gains, oetf, ootf]
        func float(_ p: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Float> { p.assumingMemoryBound(to: Float.self) }
        func half(_ p: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Float16> { p.assumingMemoryBound(to: Float16.self) }
        job = .allocate(capacity: 1)
        job.initialize(
            to: sdrify_colour_job(
                rows: (UnsafePointer(float(rows[0])), UnsafePointer(float(rows[1])), UnsafePointer(float(rows[2]))),
                row_stride: rowStride, row_mask: ring.mask,
                frame: (half(mapped[0]), half(mapped[1]), half(mapped[2])), frame_stride: mappedStride,
                scratch: (scratch[0], scratch[1], scratch[2]),
                gains: gains.baseAddress, gain_base: table.base, min_y: GainTable.minY, max_y: table.maxY,
                oetf_inv: hlg == nil ? nil : oetf.baseAddress, oetf_size: Int32(HLGTables.oetfSize),
                ootf_gain: ootf.baseAddress, ootf_base: hlg?.ootfBase ?? 0,
                inverse_rows: nil, weight_rows: nil, width: Int32(outputWidth), grid_h: 0, row_origin: 0, row_step: 0,
                ratio_lo: exp2(-LocalContrast.clamp), ratio_hi: exp2(LocalContrast.clamp), weighted: nil, chunks: 0))
        if let meter {
            let grids = LocalGrids(
                meter: meter,
                region: sourceRegion.map { ($0.x, $0.y, $0.width, $0.height) } ?? (0, 0, Double(sw), Double(sh)),
                outputWidth: outputWidth, outputHeight: outputHeight, curve: self.curve)
            job.pointee.inverse_rows = UnsafePointer(grids.inverseRows.baseAddress)
            job.pointee.weight_rows = UnsafePointer(grids.weightRows.baseAddress)
            job.pointee.grid_h = Int32(meter.gridHeight)
            job.pointee.weighted = UnsafePointer(grids.weighted.baseAddress)
            job.pointee.chunks = Int32(grids.chunks)
            job.pointee.row_origin = Float(grids.line.origin)
            job.pointee.row_step = Float(grids.line.per)
            local = grids
        } else {
            local = nil
        }
    }

    deinit {
        (rows + mapped).forEach { $0.deallocate() }
        scratch.forEach { $0.deallocate() }
        tables.forEach { $0.deallocate() }
        job.deallocate()
    }

    /// The buffers of local contrast: per grid cell (the meter's samples) the neighbourhood's inverse light and the
    /// weight, the weight table of the current curve, and both grids' rows upsampled to the output's width.
    private final class LocalGrids {
        let inverse: UnsafeMutableBufferPointer<Float>, weight: UnsafeMutableBufferPointer<Float>
        let scratch: UnsafeMutableBufferPointer<Float>, table: UnsafeMutableBufferPointer<Float>
        let inverseRows: UnsafeMutableBufferPointer<Float>, weightRows: UnsafeMutableBufferPointer<Float>
        let weighted: UnsafeMutableBufferPointer<UInt8>, chunks: Int
        let columnStarts: [Int32], fractions: [Float]
        let line: (origin: Double, per: Double)
        let width: Int

        init(
            meter: SceneMeter, region: (x: Double, y: Double, width: Double, height: Double), outputWidth: Int,
            outputHeight: Int, curve: ToneCurve
        ) {
            let cells = meter.gridWidth * meter.gridHeight
            inverse = .allocate(capacity: cells); weight = .allocate(capacity: cells); scratch = .allocate(capacity: 5 * cells)
            table = .allocate(capacity: LocalContrast.tableSize)
            _ = table.initialize(from: LocalContrast.weights(curve))
            width = outputWidth
            inverseRows = .allocate(capacity: meter.gridHeight * outputWidth)
            weightRows = .allocate(capacity: meter.gridHeight * outputWidth)
            inverseRows.initialize(repeating: 0); weightRows.initialize(repeating: 0)
            chunks = (outputWidth + Int(SDRIFY_CHUNK) - 1) / Int(SDRIFY_CHUNK)
            weighted = .allocate(capacity: meter.gridHeight * chunks)
            weighted.initialize(repeating: 0)
            (columnStarts, fractions) = LocalContrast.gridPlaces(
                output: outputWidth, offset: region.x, length: region.width, step: meter.step, cells: meter.gridWidth)
            line = LocalContrast.gridLine(output: outputHeight, offset: region.y, length: region.height, step: meter.step)
        }

        deinit {
            [inverse, weight, scratch, table, inverseRows, weightRows].forEach { $0.deallocate() }
            weighted.deallocate()
        }

        /// This picture's grids from the meter's samples, and their rows at the output's width.
        func update(_ meter: SceneMeter) {
            let (w, h) = (Int32(meter.gridWidth), Int32(meter.gridHeight))
            sdrify_local_contrast_grids(
                meter.grid.baseAddress, w, h, LocalContrast.radius, LocalContrast.edge, inverse.baseAddress, weight.baseAddress,
                scratch.baseAddress, table.baseAddress, Int32(LocalContrast.tableSize), Float(LocalContrast.tableLowest),
                Float(LocalContrast.tablePerStop))
            sdrify_local_contrast_rows(inverse.baseAddress, w, h, columnStarts, fractions, inverseRows.baseAddress, Int32(width), nil)
            sdrify_local_contrast_rows(
                weight.baseAddress, w, h, columnStarts, fractions, weightRows.baseAddress, Int32(width), weighted.baseAddress)
        }
    }

    package func process(_ frame: Frame, format: PlanarFormat) throws -> Frame {
        if let scenes, let meter {
            let next = scenes.next(meter.measure(frame), metadata: frame.dynamicHDR, pts: frame.pts)
            if next.changed {
                curve = ToneCurve(.auto, sourcePeak: curve.sourcePeak, scene: next.curve, exposure: curve.exposure)
                _ = tables[0].update(from: GainTable(curve: curve, maxY: maxY).gains)
                if let local { _ = local.table.update(from: LocalContrast.weights(curve)) }
            }
            local?.update(meter)
        }
        let src = frame.planes(format.planeCount).map { (UnsafeRawPointer($0.0), $0.1) }
        try toLinear.process(
            src: src, dst: rows.map { ($0, rowStride) },
            afterRows: (sdrify_colour_rows, UnsafeMutableRawPointer(job), rowMask))
        let output = try outputs.next()
        try toSDR.process(src: mapped.map { (UnsafeRawPointer($0), mappedStride) }, dst: output.planes(3))
        output.pts = frame.pts
        return output
    }
}
