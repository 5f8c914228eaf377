/// Something drawn over the composed, upright SDR picture at a time of the output's clock: a sticker, captions
/// (and what comes next: titles, effects). A layer answers with the premultiplied tile to blend, or nil when it
/// shows nothing then; the stack blends them in order.
protocol VideoLayer: AnyObject {
    func tile(at time: Double) -> StickerTile?
}

extension StickerLayer: VideoLayer {
    func tile(at time: Double) -> StickerTile? { state(at: time).map { tile(for: $0) } }
}

extension CaptionLayer: VideoLayer {}
