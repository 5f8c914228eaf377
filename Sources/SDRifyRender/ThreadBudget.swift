import SDRifyMedia

/// `--threads N` is a budget for the whole conversion, for users who run several at once: the decoder and the
/// encoder share N threads (the colour stage is one more; with N = 1 everything runs on the calling thread).
/// 0 lets each codec use every core.
enum ThreadBudget {
    /// Decoder and encoder thread counts (0 = the codec's own choice), each at least 1, summing to N. The split
    /// follows their expected work per frame, from costs measured on the 2-core bench machine: HEVC decoding
    /// about 4.4 ns per source pixel, x264 veryfast about 14 ns per output pixel, x265 fast about three times
    /// that. So a 4K source scaled to 540p gives most threads to the decoder, 1080p → 1080p to the encoder.
    static func split(_ total: Int, sourcePixels: Int, outputPixels: Int, encoder: VideoCodec) -> (decode: Int, encode: Int) {
        guard total > 0 else { return (0, 0) }
        guard total > 1 else { return (1, 1) }
        let decodeWork = 4.4 * Double(sourcePixels)
        let encodeWork = encoder.catalog.nsPerOutputPixel * Double(outputPixels)
        let share = decodeWork / max(decodeWork + encodeWork, 1)
        let decode = min(max(Int((Double(total) * share).rounded()), 1), total - 1)
        return (decode, total - decode)
    }
}
