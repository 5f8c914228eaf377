/// Something drawn over (or done to) the composed, upright 8-bit BT.709 4:2:0 picture at a time of the output's
/// clock: an effect, a sticker, captions. The stack applies them in order.
protocol VideoLayer: AnyObject {
    func apply(to frame: Frame, at time: Double)
}

/// A layer that draws a premultiplied tile (stickers, captions).
protocol TileLayer: VideoLayer {
    func tile(at time: Double) -> StickerTile?
}

extension TileLayer {
    func apply(to frame: Frame, at time: Double) {
        if let tile = tile(at: time) { OverlayStage.blend(tile, into: frame) }
    }
}

extension StickerLayer: TileLayer {
    func tile(at time: Double) -> StickerTile? { state(at: time).map { tile(for: $0) } }
}

extension CaptionLayer: TileLayer {}
