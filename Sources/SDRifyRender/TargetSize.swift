import SDRifyPresets

package enum TargetSize {
    /// The largest even size with the aspect of `width`×`height` inside `frameWidth`×`frameHeight` (never
    /// upscaled): where a picture whose size changed mid-stream goes in the output.
    package static func inside(width: Int, height: Int, frameWidth: Int, frameHeight: Int) -> (width: Int, height: Int) {
        let scale = min(1.0, Double(frameWidth) / Double(width), Double(frameHeight) / Double(height))
        func even(_ x: Double, limit: Int) -> Int { max(2, min(2 * Int((x / 2).rounded()), limit & ~1)) }
        return (even(Double(width) * scale, limit: frameWidth), even(Double(height) * scale, limit: frameHeight))
    }

    /// The output size for an upright picture of `width`×`height` square pixels: fits the box whichever way
    /// round the picture is, keeps the aspect, never upscales, and has even dimensions (4:2:0).
    package static func fit(width: Int, height: Int, into box: BoundingBox?) -> (width: Int, height: Int) {
        let longSide = Double(max(width, height)), shortSide = Double(min(width, height))
        var scale = 1.0
        if let box { scale = min(1.0, Double(box.long) / longSide, Double(box.short) / shortSide) }
        let maxW = Double(width) * scale, maxH = Double(height) * scale
        // Nearest even size, but never past the box or the source (both bounds are honoured exactly).
        func even(_ x: Double, limit: Int) -> Int { max(2, min(2 * Int((x / 2).rounded()), limit & ~1)) }
        let limitW = min(width, box.map { width >= height ? $0.long : $0.short } ?? width)
        let limitH = min(height, box.map { width >= height ? $0.short : $0.long } ?? height)
        return (even(maxW, limit: limitW), even(maxH, limit: limitH))
    }

    /// The renditions for an upright picture of `width`×`height`, largest first: the rungs at or below its short
    /// edge, or the source size alone when every rung is above it.
    package static func renditions(of ladder: Ladder, width: Int, height: Int) -> [Ladder.Rendition] {
        let short = min(width, height)
        var made: [Ladder.Rendition] = []
        for rung in ladder.rungs where rung <= short {
            let size = TargetSize.fit(width: width, height: height, into: BoundingBox(long: Int.max / 4, short: rung))
            guard !made.contains(where: { $0.width == size.width && $0.height == size.height }) else { continue }
            made.append(Ladder.Rendition(rung: rung, width: size.width, height: size.height))
        }
        if made.isEmpty {
            let size = TargetSize.fit(width: width, height: height, into: nil)
            made.append(Ladder.Rendition(rung: short, width: size.width, height: size.height))
        }
        return made
    }
}
