import Foundation
import SDRifyValues

/// Colour-difference measurement for the tone-mapping round trip: BT.709 display light (SDRDisplay, gamma 2.2),
/// CIE XYZ/L*a*b* (D65) and CIEDE2000. Written from the published formulas (CIE 142-2001; Sharma, Wu and
/// Dalal 2005, whose test data ColorScienceTests uses).
package enum ColorScience {
    package typealias RGB = SIMD3<Double>
    package typealias Lab = SIMD3<Double>

    /// 8-bit limited-range BT.709 Y'CbCr → BT.709 display light (relative, 1 = SDR white).
    package static func displayLight(y: UInt8, cb: UInt8, cr: UInt8) -> RGB {
        let Y = (Double(y) - 16) / 219, U = (Double(cb) - 128) / 224, V = (Double(cr) - 128) / 224
        let r = Y + 1.5748 * V, g = Y - 0.187324 * U - 0.468124 * V, b = Y + 1.8556 * U
        return RGB(gamma(r), gamma(g), gamma(b))
    }

    /// 8-bit full-range R'G'B' → display light.
    package static func displayLight(r: UInt8, g: UInt8, b: UInt8) -> RGB { RGB(codeLight[Int(r)], codeLight[Int(g)], codeLight[Int(b)]) }
    /// `gamma` of each 8-bit code, worked out once: the scenes and their scores look it up three times a pixel.
    static let codeLight: [Double] = (0...255).map { (code: Int) -> Double in gamma(Double(code) / 255) }

    static func gamma(_ v: Double) -> Double { SDRDisplay.light(v) }

    /// Linear BT.709 RGB → CIE L*a*b* (D65 white, Y = 1).
    package static func lab(_ c: RGB) -> Lab {
        let x = 0.4123908 * c.x + 0.3575843 * c.y + 0.1804808 * c.z
        let y = 0.2126390 * c.x + 0.7151687 * c.y + 0.0721923 * c.z
        let z = 0.0193308 * c.x + 0.1191948 * c.y + 0.9505322 * c.z
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        // D65 white as the matrix itself maps RGB (1, 1, 1), so neutral greys have a* = b* = 0.
        let fx = f(x / 0.9504559), fy = f(y), fz = f(z / 1.0890578)
        return Lab(116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    /// Linear BT.709 RGB → Oklab (B. Ottosson, 2020: its published matrices), whose hue lines are straight where
    /// CIELAB's bend (a blue made lighter keeps its Oklab hue, not its CIELAB one).
    package static func oklab(_ c: RGB) -> Lab {
        let l = cbrt(0.4122214708 * c.x + 0.5363325363 * c.y + 0.0514459929 * c.z)
        let m = cbrt(0.2119034982 * c.x + 0.6806995451 * c.y + 0.1073969566 * c.z)
        let s = cbrt(0.0883024619 * c.x + 0.2817188376 * c.y + 0.6299787005 * c.z)
        return Lab(
            0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s, 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)
    }

    /// Hue angle in degrees (0–360) of a L*a*b* (or Oklab) colour.
    package static func hue(_ c: Lab) -> Double {
        let h = atan2(c.z, c.y) * 180 / .pi
        return h < 0 ? h + 360 : h
    }

    /// CIEDE2000 colour difference (kL = kC = kH = 1).
    package static func ciede2000(_ p: Lab, _ q: Lab) -> Double {
        let (L1, a1, b1) = (p.x, p.y, p.z), (L2, a2, b2) = (q.x, q.y, q.z)
        let C1 = (a1 * a1 + b1 * b1).squareRoot(), C2 = (a2 * a2 + b2 * b2).squareRoot()
        let Cbar = (C1 + C2) / 2
        let G = 0.5 * (1 - (pow(Cbar, 7) / (pow(Cbar, 7) + pow(25, 7))).squareRoot())
        let a1p = (1 + G) * a1, a2p = (1 + G) * a2
        let C1p = (a1p * a1p + b1 * b1).squareRoot(), C2p = (a2p * a2p + b2 * b2).squareRoot()
        func angle(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * 180 / .pi
            return h < 0 ? h + 360 : h
        }
        let h1p = angle(b1, a1p), h2p = angle(b2, a2p)
        let dLp = L2 - L1, dCp = C2p - C1p
        var dhp = 0.0
        if C1p * C2p != 0 {
            dhp = h2p - h1p
            if dhp > 180 { dhp -= 360 } else if dhp < -180 { dhp += 360 }
        }
        let dHp = 2 * (C1p * C2p).squareRoot() * sin(dhp / 2 * .pi / 180)
        let Lbarp = (L1 + L2) / 2, Cbarp = (C1p + C2p) / 2
        var hbarp = h1p + h2p
        if C1p * C2p != 0 {
            if abs(h1p - h2p) <= 180 { hbarp /= 2 } else { hbarp = (h1p + h2p < 360) ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2 }
        }
        let rad = Double.pi / 180
        let T =
            1 - 0.17 * cos((hbarp - 30) * rad) + 0.24 * cos(2 * hbarp * rad) + 0.32 * cos((3 * hbarp + 6) * rad)
            - 0.20 * cos((4 * hbarp - 63) * rad)
        let dTheta = 30 * exp(-pow((hbarp - 275) / 25, 2))
        let RC = 2 * (pow(Cbarp, 7) / (pow(Cbarp, 7) + pow(25, 7))).squareRoot()
        let SL = 1 + 0.015 * pow(Lbarp - 50, 2) / (20 + pow(Lbarp - 50, 2)).squareRoot()
        let SC = 1 + 0.045 * Cbarp, SH = 1 + 0.015 * Cbarp * T
        let RT = -sin(2 * dTheta * rad) * RC
        let l = dLp / SL, c = dCp / SC, h = dHp / SH
        return (l * l + c * c + h * h + RT * c * h).squareRoot()
    }
}
