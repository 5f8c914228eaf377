import SDRifyMedia
import SDRifyValues

/// The colour stage: decoded Y'CbCr at the coded size → the render's pictures at the output size (still in coded
/// orientation; the orienter runs after it on the smaller picture): 8-bit 4:2:0 BT.709 limited range, or with
/// `output` PQ or HLG the HDR kept, 10-bit 4:2:0 BT.2020.
///
/// SDR output: HDR (PQ, HLG) sources are tone mapped (ToneMapper). SDR sources keep their transfer (players treat
/// BT.601/BT.709/sRGB alike) and their primaries, unless those are a wide gamut (an iPhone's Display P3 clip, SDR in
/// BT.2020): that is converted into BT.709's gamut, as a photo is. Otherwise only the matrix, range, depth, chroma
/// siting and size are converted.
///
/// HDR output: one zimg graph, in display light where the transfer or primaries change, with the SDR reference
/// white at 203 cd/m² (BT.2408) on both sides. An SDR source is read as the screen it was made for shows it
/// (SDRDisplay: the inverse of the tone map's last step), so its white lands at 203 cd/m²; an HDR source of the
/// other kind keeps its light in cd/m².
package final class FrameConverter: @unchecked Sendable {
    private let graph: ZimgGraph?
    private let placement: SDRPlacement?
    private let toneMapper: ToneMapper?
    private let outputs: FrameRing
    private let output: HDRKind

    /// `outputSiting`: the 4:2:0 chroma siting to produce (see Orientation.chromaSitingBeforeOrienting).
    package init(
        sourceFormat: PlanarFormat, sourceColor tagged: ColorDescription, width: Int, height: Int, sourceRegion: CodedRegion? = nil,
        outputWidth: Int, outputHeight: Int, toneCurve: ToneCurve, ringSize: Int = 1,
        outputSiting: ChromaLocation = .left, scenes: SceneTracker? = nil, output: HDRKind = .sdr
    ) throws {
        var src = tagged.resolved(width: width, height: height)
        self.output = output
        outputs = try FrameRing(size: ringSize, width: outputWidth, height: outputHeight, kind: output)
        if output != .sdr {
            toneMapper = nil
            if src.hdrKind == .sdr { src.transfer = SDRDisplay.transfer }
            if sourceFormat.hasChroma == false { src.matrix = .bt709 }
            var dstColor = ColorDescription.output(output)
            dstColor.chromaLocation = outputSiting
            var dstFormat = PlanarFormat.output(output)
            dstFormat.hasChroma = sourceFormat.hasChroma
            let from = ZimgFormat(width: width, height: height, format: sourceFormat, color: src, region: sourceRegion)
            let to = ZimgFormat(width: outputWidth, height: outputHeight, format: dstFormat, color: dstColor)
            if src.hdrKind == .sdr && sourceFormat.hasChroma {
                placement = try SDRPlacement(from: from, to: to)
                graph = nil
            } else {
                placement = nil
                graph = try ZimgGraph(from: from, to: to, dither: .ordered, nominalPeakLuminance: ToneCurve.referenceWhite)
            }
            return
        }
        placement = nil
        if src.hdrKind != .sdr {
            toneMapper = try ToneMapper(
                sourceFormat: sourceFormat, sourceColor: src, width: width, height: height, sourceRegion: sourceRegion,
                outputWidth: outputWidth, outputHeight: outputHeight, curve: toneCurve,
                ringSize: ringSize, outputSiting: outputSiting, scenes: scenes)
            graph = nil
            return
        }
        toneMapper = nil
        var dstColor = ColorDescription.sdrOutput
        if src.hdrKind == .sdr {
            src.transfer = dstColor.transfer
            if !src.primaries.isWideGamut { src.primaries = dstColor.primaries }
        }
        if sourceFormat.hasChroma == false { src.matrix = dstColor.matrix }
        dstColor.chromaLocation = outputSiting
        // A grey source stays grey through zimg (it will not subsample a grey image); chroma is filled neutral.
        let dstFormat = sourceFormat.hasChroma ? PlanarFormat.yuv420p : PlanarFormat(bitDepth: 8, chromaShiftX: 1, chromaShiftY: 1, hasChroma: false)
        graph = try ZimgGraph(
            from: ZimgFormat(width: width, height: height, format: sourceFormat, color: src, region: sourceRegion),
            to: ZimgFormat(width: outputWidth, height: outputHeight, format: dstFormat, color: dstColor),
            dither: .ordered, nominalPeakLuminance: ToneCurve.referenceWhite)
    }

    /// An output picture of SDR (8-bit 4:2:0 BT.709: a still, a colour, a backdrop) placed in the HDR kept of
    /// `output`, as an SDR clip is.
    package static func placingSDR(width: Int, height: Int, output: HDRKind) throws -> FrameConverter {
        try FrameConverter(
            sourceFormat: .yuv420p, sourceColor: .sdrOutput, width: width, height: height, outputWidth: width, outputHeight: height,
            toneCurve: ToneCurve(.clip, sourcePeak: ToneCurve.referenceWhite), output: output)
    }

    /// Converts one decoded frame into the next picture of the ring (reused `ringSize` calls later).
    package func convert(_ frame: Frame, format: PlanarFormat) throws -> Frame {
        if let toneMapper { return try toneMapper.process(frame, format: format) }
        let output = try outputs.next()
        let srcPlanes = frame.planes(format.planeCount).map { (UnsafeRawPointer($0.0), $0.1) }
        if let placement {
            try placement.process(src: srcPlanes, dst: output.planes(3))
            output.pts = frame.pts
            return output
        }
        guard let graph else { preconditionFailure("a converter has a graph, a placement or a tone mapper") }
        var dstPlanes = output.planes(3)
        if !format.hasChroma { dstPlanes = [dstPlanes[0]] }
        try graph.process(src: srcPlanes, dst: dstPlanes)
        if !format.hasChroma {
            let layout = PlanarFormat.output(self.output)
            for i in 1...2 {
                let (w, h) = layout.planeSize(i, width: output.width, height: output.height)
                for y in 0..<h {
                    let row = output.data(i) + y * output.stride(i)
                    if layout.bytesPerSample == 1 {
                        row.initializeMemory(as: UInt8.self, repeating: 128, count: w)
                    } else {
                        row.initializeMemory(as: UInt16.self, repeating: UInt16(1 << (layout.bitDepth - 1)), count: w)
                    }
                }
            }
        }
        output.pts = frame.pts
        return output
    }
}

/// An SDR picture placed in an HDR render: first R'G'B' at the output size, clipped to 0…1 as its screen clips
/// super-white and out-of-range chroma (kept, a saturated red beyond white would come back from the tone map
/// pale), then the HDR kind with SDR white at 203 cd/m².
private final class SDRPlacement {
    private let toRGB: ZimgGraph, toHDR: ZimgGraph
    private let planes: [UnsafeMutablePointer<Float>]
    private let stride: Int, width: Int, height: Int

    init(from: ZimgFormat, to: ZimgFormat) throws {
        var rgbColor = from.color
        rgbColor.matrix = .rgb; rgbColor.range = .full
        let rgb = ZimgFormat(width: to.width, height: to.height, rgb: rgbColor)
        toRGB = try ZimgGraph(from: from, to: rgb, dither: .none)
        toHDR = try ZimgGraph(from: rgb, to: to, dither: .ordered, nominalPeakLuminance: ToneCurve.referenceWhite)
        (width, height) = (to.width, to.height)
        let stride = (to.width * MemoryLayout<Float>.size + 63) & ~63
        self.stride = stride
        let count = stride / MemoryLayout<Float>.size * to.height
        planes = (0..<3).map { _ in
            let plane = UnsafeMutableRawPointer.allocate(byteCount: stride * to.height, alignment: 64).bindMemory(to: Float.self, capacity: count)
            plane.initialize(repeating: 0, count: count)
            return plane
        }
    }

    deinit { planes.forEach { $0.deallocate() } }

    func process(src: [(UnsafeRawPointer, Int)], dst: [(UnsafeMutableRawPointer, Int)]) throws {
        try toRGB.process(src: src, dst: planes.map { (UnsafeMutableRawPointer($0), stride) })
        let count = stride / MemoryLayout<Float>.size * height
        for plane in planes {
            for i in 0..<count { plane[i] = min(max(plane[i], 0), 1) }
        }
        try toHDR.process(src: planes.map { (UnsafeRawPointer($0), stride) }, dst: dst)
    }
}
