import CKernels
import Foundation

/// The HDR colour stage: PQ/HLG BT.2020 Y'CbCr → 8-bit 4:2:0 BT.709 SDR at the output size.
/// zimg does the legs (Y'CbCr → R'G'B', transfer to linear light with the HLG OOTF on luminance, BT.2020 →
/// BT.709 primaries, resizing and chroma siting; then BT.709/BT.1886 encoding, Y'CbCr, 4:2:0 and dithering);
/// the tone curve and gamut mapping in between are ours. Buffers and graphs are built once.
public final class ToneMapper: @unchecked Sendable {
    public let curve: ToneCurve
    let table: GainTable
    private let toLinear: ZimgGraph   // PQ: to linear BT.709; HLG: to HLG R'G'B' BT.2020 (hlg linearises)
    private let hlg: HLGTables?
    private let toSDR: ZimgGraph
    private let rgb: [UnsafeMutableRawPointer]  // three float planes, linear BT.709 relative to 203 cd/m²
    private let rgbStride: Int
    private let outputs: FrameRing
    private let width: Int, height: Int  // output size

    public init(sourceFormat: PlanarFormat, sourceColor: ColorDescription, width sw: Int, height sh: Int,
                outputWidth: Int, outputHeight: Int, curve: ToneCurve, ringSize: Int = 1,
                exactHLG: Bool = false) throws {
        self.curve = curve
        width = outputWidth; height = outputHeight
        let kind = sourceColor.hdrKind
        table = GainTable(curve: curve, maxY: (kind == .hlg ? 1000 : 10000) / ToneCurve.referenceWhite)
        let linear = ColorDescription(primaries: .bt709, transfer: .linear, matrix: .rgb, range: .full)
        // HLG: zimg stops at R'G'B' (matrix, resize, chroma) and our tables do the transfer (`exactHLG` keeps
        // zimg's exact path, for the test that compares the two).
        hlg = kind == .hlg && !exactHLG ? HLGTables() : nil
        let legA = hlg == nil ? linear
            : ColorDescription(primaries: sourceColor.primaries, transfer: .aribStdB67, matrix: .rgb, range: .full)
        toLinear = try ZimgGraph(from: ZimgFormat(width: sw, height: sh, format: sourceFormat, color: sourceColor),
                                 to: ZimgFormat(width: outputWidth, height: outputHeight, rgbFloat: legA),
                                 dither: .none, nominalPeakLuminance: ToneCurve.referenceWhite,
                                 approximateTransfer: kind == .pq)
        var sdr = ColorDescription.sdrOutput
        sdr.chromaLocation = .left
        toSDR = try ZimgGraph(from: ZimgFormat(width: outputWidth, height: outputHeight, rgbFloat: linear),
                              to: ZimgFormat(width: outputWidth, height: outputHeight, format: .yuv420p, color: sdr),
                              dither: .ordered, nominalPeakLuminance: ToneCurve.referenceWhite,
                              approximateTransfer: true)
        let stride = (outputWidth * 4 + 63) & ~63
        rgbStride = stride
        rgb = (0..<3).map { _ in UnsafeMutableRawPointer.allocate(byteCount: stride * outputHeight, alignment: 64) }
        outputs = try FrameRing(size: ringSize, width: outputWidth, height: outputHeight)
    }

    deinit { rgb.forEach { $0.deallocate() } }

    public func process(_ frame: Frame, format: PlanarFormat) throws -> Frame {
        let src = frame.planes(format.planeCount).map { (UnsafeRawPointer($0.0), $0.1) }
        try toLinear.process(src: src, dst: rgb.map { ($0, rgbStride) })
        // One pass over the rows: HLG linearisation (when the source is HLG) then the curve, while the row is in
        // cache.
        let oetf = hlg?.inverseOETF ?? [], ootf = hlg?.ootfGain ?? []
        oetf.withUnsafeBufferPointer { oetf in
            ootf.withUnsafeBufferPointer { ootf in
                table.gains.withUnsafeBufferPointer { gains in
                    for y in 0..<height {
                        let row = y * rgbStride
                        let r = (rgb[0] + row).assumingMemoryBound(to: Float.self)
                        let g = (rgb[1] + row).assumingMemoryBound(to: Float.self)
                        let b = (rgb[2] + row).assumingMemoryBound(to: Float.self)
                        if let hlg {
                            sdrify_hlg_to_linear_row(r, g, b, Int32(width), oetf.baseAddress!, Int32(HLGTables.oetfSize),
                                                     ootf.baseAddress!, hlg.ootfBase, GainTable.minY)
                        }
                        sdrify_tonemap_row(r, g, b, Int32(width), gains.baseAddress!, table.base, GainTable.minY, table.maxY)
                    }
                }
            }
        }
        let output = try outputs.next()
        try toSDR.process(src: rgb.map { (UnsafeRawPointer($0), rgbStride) }, dst: output.planes(3))
        output.pts = frame.pts
        return output
    }
}
