import SDRifyProbe
import SDRifyValues

/// Which pictures of a layered slow-motion capture are kept when it is flattened, so that about 30 a second of
/// output remain (androidx media3's SefSlowMotionFlattener is the reference; this follows its rule). A capture at
/// C pictures a second in L temporal layers keeps, at real speed, the layers up to L − 1 − log2(C / 30); in a
/// segment slowed d times, log2(d) more (at most all of them). Just before a segment, the lower layers its first
/// pictures refer to are kept too. Decided per packet, before decoding: nothing kept refers to what is left out.
struct SlowMotionThinning {
    private struct Segment { let start: MediaTime, end: MediaTime, top: Int }
    private let top: Int  // the capture's highest layer
    private let realSpeedTop: Int
    private let segments: [Segment]

    /// nil when the capture is not layered as the rule needs (no layer count, or a rate that is not 30 × 2^k).
    package init?(_ slowMotion: SlowMotion) {
        guard let layers = slowMotion.temporalLayers, layers >= 1, let rate = slowMotion.captureRate,
            let doublings = SlowMotionThinning.log2(rate / Int(SlowMotion.fileRate)), rate % Int(SlowMotion.fileRate) == 0
        else { return nil }
        let top = layers - 1, realSpeedTop = max(0, top - doublings)
        self.top = top
        self.realSpeedTop = realSpeedTop
        segments = slowMotion.segments.map { s in
            Segment(start: s.start, end: s.end, top: min(top, realSpeedTop + (SlowMotionThinning.log2(s.divisor) ?? 0)))
        }
    }

    private static func log2(_ n: Int) -> Int? {
        guard n > 0, n & (n - 1) == 0 else { return nil }
        return n.trailingZeroBitCount
    }

    /// Whether the picture of temporal layer `layer` at file time `t` is kept.
    func keeps(layer: Int, at t: MediaTime) -> Bool {
        let inside = segments.first(where: { t >= $0.start && t < $0.end })
        if layer <= inside?.top ?? realSpeedTop { return true }
        // Ahead of a segment that keeps more layers (inside a segment too), a picture of layer i is a reference of the segment's first
        // pictures while the segment starts within 2^(top − i) − 2^(top − segment top) pictures (at 30 a second
        // of file time; 0.45 of a picture's leeway for rounded times).
        guard let next = segments.first(where: { $0.start > t }), layer < next.top else { return false }
        let picturesAhead = Double(Int(((next.start - t).seconds * Double(SlowMotion.fileRate)).rounded(.down)))
        let reach = Double(1 << (top - layer)) - Double(1 << (top - next.top)) + 0.45
        return layer >= 1 && picturesAhead < reach
    }
}
