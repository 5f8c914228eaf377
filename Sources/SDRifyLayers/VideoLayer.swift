import SDRifyMedia
import SDRifyValues

/// Something drawn over (or done to) the composed, upright 8-bit BT.709 4:2:0 picture at a time of the output's
/// clock: an effect, a sticker, captions. The stack applies them in order. Each layer's own description (its
/// keyframes, cue times) is in seconds as read from its file; the output time comes in exact and is read in
/// seconds there.
package protocol VideoLayer: AnyObject {
    func apply(to frame: Frame, at time: MediaTime)
}

/// A layer that draws a premultiplied tile (stickers, captions).
package protocol TileLayer: VideoLayer {
    func tile(at time: Double) -> StickerTile?
}

extension TileLayer {
    package func apply(to frame: Frame, at time: MediaTime) {
        if let tile = tile(at: time.seconds) { OverlayStage.blend(tile, into: frame) }
    }
}

extension StickerLayer: TileLayer {
    func tile(at time: Double) -> StickerTile? { state(at: time).map { tile(for: $0) } }
}

extension CaptionLayer: TileLayer {}
