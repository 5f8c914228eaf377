import SDRifyMedia
import SDRifyValues

/// The colour stage: decoded Y'CbCr at the coded size → 8-bit 4:2:0 BT.709 limited range at the output size
/// (still in coded orientation; the orienter runs after it on the smaller picture).
///
/// HDR (PQ, HLG) sources are tone mapped (ToneMapper). SDR sources keep their transfer (players treat
/// BT.601/BT.709/sRGB alike) and their primaries, unless those are a wide gamut (an iPhone's Display P3 clip, SDR in
/// BT.2020): that is converted into BT.709's gamut, as a photo is. Otherwise only the matrix, range, depth, chroma
/// siting and size are converted.
package final class FrameConverter: @unchecked Sendable {
    private let graph: ZimgGraph?
    private let toneMapper: ToneMapper?
    private let outputs: FrameRing

    /// `outputSiting`: the 4:2:0 chroma siting to produce (see Orientation.chromaSitingBeforeOrienting).
    package init(
        sourceFormat: PlanarFormat, sourceColor tagged: ColorDescription, width: Int, height: Int, sourceRegion: CodedRegion? = nil,
        outputWidth: Int, outputHeight: Int, toneCurve: ToneCurve, ringSize: Int = 1,
        outputSiting: ChromaLocation = .left, scenes: SceneTracker? = nil
    ) throws {
        var src = tagged.resolved(width: width, height: height)
        outputs = try FrameRing(size: ringSize, width: outputWidth, height: outputHeight)
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

    /// Converts one decoded frame into the next picture of the ring (reused `ringSize` calls later).
    package func convert(_ frame: Frame, format: PlanarFormat) throws -> Frame {
        if let toneMapper { return try toneMapper.process(frame, format: format) }
        guard let graph else { preconditionFailure("a converter has a graph or a tone mapper") }
        let output = try outputs.next()
        let srcPlanes = frame.planes(format.planeCount).map { (UnsafeRawPointer($0.0), $0.1) }
        var dstPlanes = output.planes(3)
        if !format.hasChroma { dstPlanes = [dstPlanes[0]] }
        try graph.process(src: srcPlanes, dst: dstPlanes)
        if !format.hasChroma {
            for i in 1...2 {
                let (w, h) = PlanarFormat.yuv420p.planeSize(i, width: output.width, height: output.height)
                for y in 0..<h { (output.data(i) + y * output.stride(i)).initializeMemory(as: UInt8.self, repeating: 128, count: w) }
            }
        }
        output.pts = frame.pts
        return output
    }
}
