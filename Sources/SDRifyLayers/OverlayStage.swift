import Foundation
import SDRifyMedia
import SDRifyValues

/// The layer stack: effects, stickers, titles, then captions, composited into the upright 8-bit BT.709 4:2:0 output frame
/// (after tone mapping, so their colours are never tone mapped).
package final class OverlayStage: @unchecked Sendable {
    private let layers: [VideoLayer]

    /// Decodes every picture and reads every caption file now, so a bad file fails before any output exists.
    /// `input`: the file a title's `track:N` source reads (convert's input; none in compose).
    package init(spec: OverlaySpec, frameWidth: Int, frameHeight: Int, input: String? = nil, warn: WarningHandler = { _ in }) throws {
        let stickers: [VideoLayer] = try spec.stickers.enumerated().map { i, s in
            let pictures: [RGBAImage]
            do { pictures = try StickerImages.load(s.image) } catch let e as SDRifyError {
                throw SDRifyError(e.status, "\(e.message) (sticker \(i + 1))")
            }
            return StickerLayer(spec: s, pictures: pictures, frameWidth: frameWidth, frameHeight: frameHeight)
        }
        let captions: [VideoLayer] = try spec.captions.map {
            try CaptionLayer(track: $0, frameWidth: frameWidth, frameHeight: frameHeight, input: input, warn: warn)
        }
        let effects: [VideoLayer] = try spec.effects.map { try EffectLayer(spec: $0, frameWidth: frameWidth, frameHeight: frameHeight) }
        let titles: [VideoLayer] = try spec.titles.enumerated().map { i, t in
            let data = try t.source.map { try DataSeries.load($0, input: input, label: "title \(i + 1)") }
            if let data, let missing = TitleTemplate.fields(in: t.text).first(where: { !data.fieldNames.contains($0) }) {
                throw SDRifyError.usage("title \(i + 1): the source has no '\(missing)' (it has \(data.fieldNames.sorted().joined(separator: ", ")))")
            }
            return try CaptionLayer(
                script: t.assScript(width: frameWidth, height: frameHeight, data: data), label: "title \(i + 1)",
                frameWidth: frameWidth, frameHeight: frameHeight)
        }
        layers = effects + stickers + titles + captions
    }

    package func apply(to frame: Frame, time: MediaTime) {
        for layer in layers { layer.apply(to: frame, at: time) }
    }

    /// out = premultiplied source + destination × (1 − alpha), only over the tile's box inside the frame.
    static func blend(_ t: StickerTile, into frame: Frame) {
        let (W, H) = (frame.width, frame.height)
        let xs = max(t.x0, 0), xe = min(t.x0 + t.width, W), ys = max(t.y0, 0), ye = min(t.y0 + t.height, H)
        guard xs < xe, ys < ye else { return }
        for y in ys..<ye {
            let row = (frame.data(0) + y * frame.stride(0)).assumingMemoryBound(to: UInt8.self)
            let base = (y - t.y0) * t.width - t.x0
            for x in xs..<xe where t.alpha[base + x] > 0 {
                let v = t.luma[base + x] + Float(row[x]) * (1 - t.alpha[base + x])
                row[x] = UInt8(min(max(v.rounded(), 0), 255))
            }
        }
        let cw = t.width / 2
        for cy in (ys / 2)..<((ye + 1) / 2) {
            let u = (frame.data(1) + cy * frame.stride(1)).assumingMemoryBound(to: UInt8.self)
            let v = (frame.data(2) + cy * frame.stride(2)).assumingMemoryBound(to: UInt8.self)
            let base = (cy - t.y0 / 2) * cw - t.x0 / 2
            for cx in (xs / 2)..<((xe + 1) / 2) where t.chromaAlpha[base + cx] > 0 {
                let k = 1 - t.chromaAlpha[base + cx]
                u[cx] = UInt8(min(max((t.cb[base + cx] + Float(u[cx]) * k).rounded(), 0), 255))
                v[cx] = UInt8(min(max((t.cr[base + cx] + Float(v[cx]) * k).rounded(), 0), 255))
            }
        }
    }
}
