/// The eight EXIF orientations (DESIGN §3). The raw value is the EXIF number.
package enum Orientation: Int, CaseIterable, Sendable {
    case up = 1, upMirrored = 2, down = 3, downMirrored = 4
    case leftMirrored = 5, right = 6, rightMirrored = 7, left = 8

    package var name: String {
        switch self {
        case .up: "up";
        case .upMirrored: "up mirrored";
        case .down: "down";
        case .downMirrored: "down mirrored"
        case .leftMirrored: "left mirrored";
        case .right: "right";
        case .rightMirrored: "right mirrored";
        case .left: "left"
        }
    }

    /// The (a, b, c, d) pattern of the display matrix for this orientation.
    package var pattern: (a: Int, b: Int, c: Int, d: Int) {
        switch self {
        case .up: (1, 0, 0, 1)
        case .upMirrored: (-1, 0, 0, 1)
        case .down: (-1, 0, 0, -1)
        case .downMirrored: (1, 0, 0, -1)
        case .leftMirrored: (0, 1, 1, 0)
        case .right: (0, 1, -1, 0)
        case .rightMirrored: (0, -1, -1, 0)
        case .left: (0, -1, 1, 0)
        }
    }

    package var isMirrored: Bool { [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored].contains(self) }

    /// Whether the upright picture has width and height swapped relative to the coded one.
    package var swapsDimensions: Bool { rawValue >= 5 }

    /// Clockwise rotation in degrees that makes the picture upright, applied after the horizontal mirror in
    /// the mirrored cases, as EXIF words it (5: "mirror horizontal and rotate 270 CW", 7: "… 90 CW").
    package var rotationClockwise: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .rightMirrored: 90
        case .down, .downMirrored: 180
        case .left, .leftMirrored: 270
        }
    }

    /// The matrix with translation recomputed from the coded size, as AVFoundation's well-known
    /// `fixedPreferredTransform` does: the translation that puts the transformed picture at the origin.
    package func fixedTransform(width: Int, height: Int) -> DisplayMatrix {
        let p = pattern
        let (w, h) = (Double(width), Double(height))
        // The corner of the coded picture that lands at the origin decides tx, ty; each is the image
        // extent along whichever coded axis maps negatively onto that display axis.
        let tx = (p.a < 0 ? w : 0) + (p.c < 0 ? h : 0)
        let ty = (p.b < 0 ? w : 0) + (p.d < 0 ? h : 0)
        return DisplayMatrix(a: Double(p.a), b: Double(p.b), c: Double(p.c), d: Double(p.d), tx: tx, ty: ty)
    }

    /// Recognises one of the eight patterns, snapping entries within 1/256 of −1, 0, 1. Translation is ignored
    /// (players recompute it); any scale, shear, arbitrary angle or perspective gives nil.
    package init?(matrix m: DisplayMatrix) {
        func snap(_ x: Double) -> Int? {
            for target in [-1, 0, 1] where abs(x - Double(target)) <= 1.0 / 256 { return target }
            return nil
        }
        guard let a = snap(m.a), let b = snap(m.b), let c = snap(m.c), let d = snap(m.d),
            abs(m.u) <= 1.0 / 256, abs(m.v) <= 1.0 / 256, abs(m.w - 1) <= 1.0 / 256
        else { return nil }
        guard let match = Orientation.allCases.first(where: { $0.pattern == (a, b, c, d) }) else { return nil }
        self = match
    }

    /// The 4:2:0 chroma siting a picture should have before this orientation is applied, so that it is "left"
    /// (what the output is tagged, the H.264 default) once upright. Turning moves the chroma samples within their
    /// 2×2 blocks: a quarter turn makes left siting top or bottom. A horizontal mirror without a transpose (a flip,
    /// half a turn) needs "right" siting, which no format describes: the picture is made left-sited and the
    /// orienter moves its chroma half a sample right (`chromaMovesRightBeforeOrienting`).
    package var chromaSitingBeforeOrienting: ChromaLocation {
        let p = pattern
        // Offsets within the block, in luma pixels (0, ½ or 1), such that the display mapping sends them to
        // (0, ½): an axis that maps with a negative sign turns an offset o into 1 − o.
        let (ox, oy): (Double, Double) = p.a != 0 ? (0, 0.5) : (0.5, p.c > 0 ? 0 : 1)
        switch (ox == 0, oy) {
        case (true, 0): return .topLeft
        case (true, 1): return .bottomLeft
        case (true, _): return .left
        case (false, 0): return .top
        case (false, 1): return .bottom
        case (false, _): return .center
        }
    }

    /// The chroma of a picture sited by `chromaSitingBeforeOrienting` must still move half a chroma sample right
    /// before orienting: a horizontal mirror without a transpose.
    package var chromaMovesRightBeforeOrienting: Bool { pattern.a < 0 }

    /// The coded pixel shown at upright pixel (`x`, `y`) of a `width`×`height` coded picture. The display mapping
    /// is orthogonal, so its inverse is its transpose; translations are in pixel centres.
    package func codedPixel(ofUpright x: Int, _ y: Int, width: Int, height: Int) -> (x: Int, y: Int) {
        let p = pattern
        let tx = (p.a < 0 ? width - 1 : 0) + (p.c < 0 ? height - 1 : 0)
        let ty = (p.b < 0 ? width - 1 : 0) + (p.d < 0 ? height - 1 : 0)
        return (p.a * (x - tx) + p.b * (y - ty), p.c * (x - tx) + p.d * (y - ty))
    }

    /// The point of the coded picture shown at (`u`, `v`) of the upright one, both as fractions of their picture
    /// (0…1 from the top-left corner): codedPixel on the unit square.
    func codedPoint(ofUpright u: Double, _ v: Double) -> (x: Double, y: Double) {
        let p = pattern
        let tx = Double((p.a < 0 ? 1 : 0) + (p.c < 0 ? 1 : 0)), ty = Double((p.b < 0 ? 1 : 0) + (p.d < 0 ? 1 : 0))
        return (Double(p.a) * (u - tx) + Double(p.b) * (v - ty), Double(p.c) * (u - tx) + Double(p.d) * (v - ty))
    }

    /// The upright (display) size of a coded picture.
    package func uprightSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsDimensions ? (height, width) : (width, height)
    }

    /// This orientation, then `next` applied to its upright picture: one of the eight again (the product of the
    /// display matrices, which act on row vectors: p · A · B).
    package func then(_ next: Orientation) -> Orientation {
        let a = pattern, b = next.pattern
        let product = (
            a: a.a * b.a + a.b * b.c, b: a.a * b.b + a.b * b.d,
            c: a.c * b.a + a.d * b.c, d: a.c * b.b + a.d * b.d
        )
        return Orientation.allCases.first { $0.pattern == product } ?? self  // the eight are closed under product
    }

    /// A turn asked for on top of a file's own orientation (`--rotate`, `--flip`, a clip's "rotate" and "flip"):
    /// the picture turned `clockwise` degrees (0, 90, 180 or 270), then flipped (`h`: left and right swap; `v`: top
    /// and bottom). Nil for another angle.
    package init?(rotate clockwise: Int, flip: Flip?) {
        let turned: Orientation
        switch clockwise {
        case 0: turned = .up
        case 90: turned = .right
        case 180: turned = .down
        case 270: turned = .left
        default: return nil
        }
        self = turned.then(flip.map { $0 == .horizontal ? .upMirrored : .downMirrored } ?? .up)
    }

    /// A mirror asked for: `h` (left and right swap) or `v` (top and bottom).
    package enum Flip: String, Sendable, CaseIterable {
        case horizontal = "h", vertical = "v"
    }
}

/// Orientation as read from a stream: the eight cases, or a matrix outside them (kept to report and refuse).
package enum StreamOrientation: Equatable, Sendable {
    case known(Orientation)
    case unsupported(DisplayMatrix)
}
