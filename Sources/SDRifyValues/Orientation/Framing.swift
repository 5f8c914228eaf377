/// What is asked of a clip's picture on top of its file's own orientation: a `turn` (`--rotate`, `--flip`; a clip's
/// "rotate" and "flip") and a `crop` of the picture as it then shows (`--crop`; a clip's "crop"). The one home of
/// the sizes these give and of where a crop lies in the coded picture.
package struct Framing: Equatable, Sendable {
    package var turn: Orientation = .up
    package var crop: CropRect? = nil

    package init(turn: Orientation = .up, crop: CropRect? = nil) { self.turn = turn; self.crop = crop }

    package var isIdentity: Bool { turn == .up && crop == nil }

    /// The picture turned: what the crop's coordinates refer to.
    func turned(_ display: (width: Int, height: Int)) -> (width: Int, height: Int) {
        turn.uprightSize(width: display.width, height: display.height)
    }

    /// The size the clip shows: the file's upright size (`display`, square pixels) turned, then cropped.
    package func size(_ display: (width: Int, height: Int)) -> (width: Int, height: Int) {
        crop.map { ($0.width, $0.height) } ?? turned(display)
    }

    /// A crop that does not lie inside the turned picture is a usage error naming both.
    package func check(_ display: (width: Int, height: Int), label: String) throws {
        guard let c = crop else { return }
        let (w, h) = turned(display)
        guard c.x + c.width <= w, c.y + c.height <= h else {
            throw SDRifyError.usage("\(label): crop \(c.description) is outside the \(w)x\(h) picture")
        }
    }

    /// Where the crop lies in a `coded` picture whose upright picture (after `orientation`, the file's own and the
    /// turn) is the turned `display` one: a rectangle in coded luma pixels, for the colour stage to read alone.
    /// Fractions of the picture carry it over, so a sample aspect ratio or a mid-stream size change keeps it on
    /// the same part of the picture.
    package func codedRegion(
        orientation: Orientation, display: (width: Int, height: Int), coded: (width: Int, height: Int)
    ) -> CodedRegion? {
        guard let c = crop else { return nil }
        let (w, h) = turned(display)
        let u0 = Double(c.x) / Double(w), v0 = Double(c.y) / Double(h)
        let u1 = Double(c.x + c.width) / Double(w), v1 = Double(c.y + c.height) / Double(h)
        let a = orientation.codedPoint(ofUpright: u0, v0), b = orientation.codedPoint(ofUpright: u1, v1)
        let cw = Double(coded.width), ch = Double(coded.height)
        return CodedRegion(
            x: min(a.x, b.x) * cw, y: min(a.y, b.y) * ch, width: abs(b.x - a.x) * cw, height: abs(b.y - a.y) * ch)
    }
}

/// A part of a picture in its coded luma pixels (fractional: the colour stage resamples it).
package struct CodedRegion: Equatable, Sendable {
    package var x, y, width, height: Double
}

/// `X,Y,W,H` in pixels of the picture as it shows (upright, after any turn).
package struct CropRect: Equatable, Sendable, CustomStringConvertible {
    package var x, y, width, height: Int

    package init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }

    /// "X,Y,W,H": whole pixels, X and Y 0 or more, W and H at least 2.
    package init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3] else { return nil }
        guard let rect = CropRect(checking: x, y, w, h) else { return nil }
        self = rect
    }

    /// Nil unless X, Y ≥ 0 and W, H ≥ 2 (and the far edges fit an Int).
    package init?(checking x: Int, _ y: Int, _ width: Int, _ height: Int) {
        guard x >= 0, y >= 0, width >= 2, height >= 2, x <= Int(Int32.max), y <= Int(Int32.max), width <= Int(Int32.max),
            height <= Int(Int32.max)
        else { return nil }
        self.init(x: x, y: y, width: width, height: height)
    }

    package var description: String { "\(x),\(y),\(width),\(height)" }
}
