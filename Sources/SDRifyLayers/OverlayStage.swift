import Foundation
import SDRifyMedia
import SDRifyValues

/// The layer stack: effects, stickers, titles, then captions, composited into the upright 4:2:0 output frame after
/// tone mapping, so their colours are never tone mapped: 8-bit BT.709 for SDR, or the HDR kept (10-bit BT.2020 PQ or
/// HLG), where graphics sit at graphics white (`LayerSignal`).
package final class OverlayStage: @unchecked Sendable {
    private let layers: [VideoLayer]

    /// Decodes every picture and reads every caption file now, so a bad file fails before any output exists.
    /// `input`: the file a title's `track:N` source reads (convert's input; none in compose). `range`: what the
    /// render's pictures carry.
    package init(
        spec: OverlaySpec, frameWidth: Int, frameHeight: Int, range: HDRKind = .sdr, input: String? = nil, warn: WarningHandler = { _ in }
    ) throws {
        let signal = LayerSignal(range)
        let stickers: [VideoLayer] = try spec.stickers.enumerated().map { i, s in
            let pictures: [RGBAImage]
            do { pictures = try StickerImages.load(s.image) } catch let e as SDRifyError {
                throw SDRifyError(e.status, "\(e.message) (sticker \(i + 1))")
            }
            return StickerLayer(spec: s, pictures: pictures, frameWidth: frameWidth, frameHeight: frameHeight, signal: signal)
        }
        let captionLayers = try spec.captions.map {
            try CaptionLayer(track: $0, frameWidth: frameWidth, frameHeight: frameHeight, signal: signal, input: input, warn: warn)
        }
        let captions: [VideoLayer] = captionLayers
        let effects: [VideoLayer] = try spec.effects.map {
            try EffectLayer(spec: $0, frameWidth: frameWidth, frameHeight: frameHeight, signal: signal)
        }
        let titles: [VideoLayer] = try spec.titles.enumerated().map { i, t in
            let data = try t.source.map { try DataSeries.load($0, input: input, label: "title \(i + 1)") }
            if let data, let missing = TitleTemplate.fields(in: t.text).first(where: { !data.fieldNames.contains($0) }) {
                throw SDRifyError.usage("title \(i + 1): the source has no '\(missing)' (it has \(data.fieldNames.sorted().joined(separator: ", ")))")
            }
            // Captions keep their place; a title at their edge, while they show, stands clear of the room they take.
            let clearance = captionLayers.compactMap(\.occupies).filter { $0.edge == t.edge && $0.shown.overlaps(t.shown) }.map(\.room).max()
            return try CaptionLayer(
                script: t.assScript(width: frameWidth, height: frameHeight, data: data, clearance: clearance ?? 0), label: "title \(i + 1)",
                frameWidth: frameWidth, frameHeight: frameHeight, signal: signal)
        }
        layers = effects + stickers + titles + captions
    }

    package func apply(to frame: Frame, time: MediaTime) {
        for layer in layers { layer.apply(to: frame, at: time) }
    }

    /// out = premultiplied source + destination × (1 − alpha), only over the tile's box inside the frame.
    static func blend(_ t: StickerTile, into frame: Frame) {
        if (frame.format ?? .yuv420p).bytesPerSample == 2 {
            blend(t, into: frame, as: UInt16.self, maxCode: Float((1 << (frame.format?.bitDepth ?? 16)) - 1))
        } else {
            blend(t, into: frame, as: UInt8.self, maxCode: 255)
        }
    }

    private static func blend<Sample: FixedWidthInteger & UnsignedInteger>(
        _ t: StickerTile, into frame: Frame, as: Sample.Type, maxCode: Float
    ) {
        let (W, H) = (frame.width, frame.height)
        let xs = max(t.x0, 0), xe = min(t.x0 + t.width, W), ys = max(t.y0, 0), ye = min(t.y0 + t.height, H)
        guard xs < xe, ys < ye else { return }
        // Through Int: see PlaneRef.clamp.
        @inline(__always) func sample(_ v: Float) -> Sample { Sample(truncatingIfNeeded: Int(min(max(v.rounded(), 0), maxCode))) }
        for y in ys..<ye {
            let row = (frame.data(0) + y * frame.stride(0)).assumingMemoryBound(to: Sample.self)
            let base = (y - t.y0) * t.width - t.x0
            for x in xs..<xe where t.alpha[base + x] > 0 {
                row[x] = sample(t.luma[base + x] + Float(row[x]) * (1 - t.alpha[base + x]))
            }
        }
        let cw = t.width / 2
        for cy in (ys / 2)..<((ye + 1) / 2) {
            let u = (frame.data(1) + cy * frame.stride(1)).assumingMemoryBound(to: Sample.self)
            let v = (frame.data(2) + cy * frame.stride(2)).assumingMemoryBound(to: Sample.self)
            let base = (cy - t.y0 / 2) * cw - t.x0 / 2
            for cx in (xs / 2)..<((xe + 1) / 2) where t.chromaAlpha[base + cx] > 0 {
                let k = 1 - t.chromaAlpha[base + cx]
                u[cx] = sample(t.cb[base + cx] + Float(u[cx]) * k)
                v[cx] = sample(t.cr[base + cx] + Float(v[cx]) * k)
            }
        }
    }
}
