/// A 2-D display matrix in the QuickTime/CGAffineTransform layout (DESIGN §3): a coded pixel (x, y) shows at
/// x' = a·x + c·y + tx, y' = b·x + d·y + ty, with y pointing down. Translation in pixels.
package struct DisplayMatrix: Equatable, Sendable {
    package var a, b, c, d, tx, ty: Double
    /// The projective column (u, v, w); anything but (0, 0, 1) is a perspective we do not handle.
    var u, v, w: Double

    package init(
        a: Double, b: Double, c: Double, d: Double, tx: Double = 0, ty: Double = 0,
        u: Double = 0, v: Double = 0, w: Double = 1
    ) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
        self.u = u; self.v = v; self.w = w
    }

    package static let identity = DisplayMatrix(a: 1, b: 0, c: 0, d: 1)

    /// From FFmpeg's nine int32s (AV_PKT_DATA_DISPLAYMATRIX): a, b, u, c, d, v, x, y, w; a–d, x, y are 16.16
    /// fixed point, u, v, w are 2.30.
    package init(fixedPoint m: [Int32]) {
        precondition(m.count == 9)
        let f16 = 65536.0, f30 = Double(1 << 30)
        self.init(
            a: Double(m[0]) / f16, b: Double(m[1]) / f16, c: Double(m[3]) / f16, d: Double(m[4]) / f16,
            tx: Double(m[6]) / f16, ty: Double(m[7]) / f16,
            u: Double(m[2]) / f30, v: Double(m[5]) / f30, w: Double(m[8]) / f30)
    }

    /// The determinant's sign tells a mirror: a pure rotation has a·d − b·c = +1, a mirror −1.
    package var isMirrored: Bool { a * d - b * c < 0 }

    package var components: [Double] { [a, b, c, d, tx, ty] }
}
