// Our own colour enums (ITU-T H.273 code points), so FFmpeg's never leak past Media/ (the mpv model).
// Names are ffprobe's, so `sdrify probe --json` reads like `ffprobe -show_streams`.

package enum ColorPrimaries: Int32, Sendable {
    case bt709 = 1, unspecified = 2, bt470m = 4, bt470bg = 5, smpte170m = 6, smpte240m = 7, film = 8
    case bt2020 = 9, smpte428 = 10, smpte431 = 11, smpte432 = 12, ebu3213 = 22

    package var name: String {
        switch self {
        case .bt709: "bt709";
        case .unspecified: "unknown";
        case .bt470m: "bt470m";
        case .bt470bg: "bt470bg"
        case .smpte170m: "smpte170m";
        case .smpte240m: "smpte240m";
        case .film: "film";
        case .bt2020: "bt2020"
        case .smpte428: "smpte428";
        case .smpte431: "smpte431";
        case .smpte432: "smpte432";
        case .ebu3213: "ebu3213"
        }
    }
}

extension ColorPrimaries {
    /// Primaries whose gamut reaches well past BT.709's (Display P3 on iPhones, DCI-P3, BT.2020): SDR in them is
    /// converted into BT.709's gamut. BT.601's primaries are near enough that players treat them as BT.709.
    package var isWideGamut: Bool { self == .bt2020 || self == .smpte431 || self == .smpte432 }
}

package enum TransferCharacteristic: Int32, Sendable {
    case bt709 = 1, unspecified = 2, gamma22 = 4, gamma28 = 5, smpte170m = 6, smpte240m = 7, linear = 8
    case log100 = 9, log316 = 10, iec61966_2_4 = 11, bt1361e = 12, iec61966_2_1 = 13, bt2020_10 = 14
    case bt2020_12 = 15, smpte2084 = 16, smpte428 = 17, aribStdB67 = 18

    package var name: String {
        switch self {
        case .bt709: "bt709";
        case .unspecified: "unknown";
        case .gamma22: "gamma22";
        case .gamma28: "gamma28"
        case .smpte170m: "smpte170m";
        case .smpte240m: "smpte240m";
        case .linear: "linear";
        case .log100: "log100"
        case .log316: "log316";
        case .iec61966_2_4: "iec61966-2-4";
        case .bt1361e: "bt1361e"
        case .iec61966_2_1: "iec61966-2-1";
        case .bt2020_10: "bt2020-10";
        case .bt2020_12: "bt2020-12"
        case .smpte2084: "smpte2084";
        case .smpte428: "smpte428";
        case .aribStdB67: "arib-std-b67"
        }
    }
}

package enum MatrixCoefficients: Int32, Sendable {
    case rgb = 0, bt709 = 1, unspecified = 2, fcc = 4, bt470bg = 5, smpte170m = 6, smpte240m = 7, ycgco = 8
    case bt2020nc = 9, bt2020c = 10, smpte2085 = 11, chromaDerivedNC = 12, chromaDerivedC = 13, ictcp = 14

    package var name: String {
        switch self {
        case .rgb: "gbr";
        case .bt709: "bt709";
        case .unspecified: "unknown";
        case .fcc: "fcc";
        case .bt470bg: "bt470bg"
        case .smpte170m: "smpte170m";
        case .smpte240m: "smpte240m";
        case .ycgco: "ycgco";
        case .bt2020nc: "bt2020nc"
        case .bt2020c: "bt2020c";
        case .smpte2085: "smpte2085";
        case .chromaDerivedNC: "chroma-derived-nc"
        case .chromaDerivedC: "chroma-derived-c";
        case .ictcp: "ictcp"
        }
    }
}

package enum ColorRange: Int32, Sendable {
    case unspecified = 0, limited = 1, full = 2
    package var name: String {
        switch self {
        case .unspecified: "unknown";
        case .limited: "tv";
        case .full: "pc"
        }
    }
}

/// Where chroma samples sit relative to luma (H.273 chroma sample location, FFmpeg's order).
package enum ChromaLocation: Int32, Sendable {
    case unspecified = 0, left = 1, center = 2, topLeft = 3, top = 4, bottomLeft = 5, bottom = 6
}

/// The HDR kind of a stream, from its transfer characteristic; of a render's pictures, what they carry (SDR: 8-bit
/// BT.709; PQ or HLG: the HDR kept, 10-bit BT.2020).
package enum HDRKind: String, Sendable {
    case sdr, pq, hlg

    /// Significant bits of a render's samples of this kind.
    package var renderBitDepth: Int { self == .sdr ? 8 : 10 }
}

/// `--range`: the output's pictures SDR (every source tone mapped), or the HDR kept where the source has it.
package enum RangeRequest: String, CaseIterable, Sendable {
    case sdr, hdr

    /// The kind a render of this request carries, given its first HDR source's kind (nil when no source is HDR): an
    /// HDR output of SDR sources is HLG, which SDR screens also show (BT.2408 places SDR in it at 203 cd/m²).
    package func kind(firstHDRSource: HDRKind?) -> HDRKind {
        switch self {
        case .sdr: .sdr
        case .hdr: firstHDRSource ?? .hlg
        }
    }
}

/// The colour description of a stream or frame, as tagged.
package struct ColorDescription: Equatable, Sendable {
    package var primaries: ColorPrimaries
    package var transfer: TransferCharacteristic
    package var matrix: MatrixCoefficients
    package var range: ColorRange
    package var chromaLocation: ChromaLocation

    package init(
        primaries: ColorPrimaries = .unspecified, transfer: TransferCharacteristic = .unspecified,
        matrix: MatrixCoefficients = .unspecified, range: ColorRange = .unspecified,
        chromaLocation: ChromaLocation = .unspecified
    ) {
        self.primaries = primaries
        self.transfer = transfer
        self.matrix = matrix
        self.range = range
        self.chromaLocation = chromaLocation
    }

    /// What every sdrify output is: BT.709 primaries, transfer and matrix, limited range, left-sited chroma.
    package static let sdrOutput = ColorDescription(
        primaries: .bt709, transfer: .bt709, matrix: .bt709,
        range: .limited, chromaLocation: .left)

    /// What a render's pictures are tagged as: `sdrOutput` for SDR, and for the HDR kept (`--range hdr`) BT.2020
    /// primaries and non-constant-luminance matrix with the kind's transfer, limited range, left-sited chroma.
    package static func output(_ kind: HDRKind) -> ColorDescription {
        switch kind {
        case .sdr: sdrOutput
        case .pq, .hlg:
            ColorDescription(
                primaries: .bt2020, transfer: kind == .pq ? .smpte2084 : .aribStdB67, matrix: .bt2020nc, range: .limited,
                chromaLocation: .left)
        }
    }

    package var hdrKind: HDRKind {
        switch transfer {
        case .smpte2084: .pq
        case .aribStdB67: .hlg
        default: .sdr
        }
    }

    /// This description with its unspecified fields taken from `other` (what a decoded picture says).
    package func filled(from other: ColorDescription) -> ColorDescription {
        var c = self
        if c.primaries == .unspecified { c.primaries = other.primaries }
        if c.transfer == .unspecified { c.transfer = other.transfer }
        if c.matrix == .unspecified { c.matrix = other.matrix }
        if c.range == .unspecified { c.range = other.range }
        if c.chromaLocation == .unspecified { c.chromaLocation = other.chromaLocation }
        return c
    }

    /// Untagged fields filled the way players guess: BT.709 for HD, BT.601 (smpte170m) for SD sizes;
    /// BT.2020 for HDR transfers; limited range.
    package func resolved(width: Int, height: Int) -> ColorDescription {
        var c = self
        let isSD = width <= 1024 && height <= 576
        let hdr = hdrKind != .sdr
        if c.primaries == .unspecified { c.primaries = hdr ? .bt2020 : (isSD ? .smpte170m : .bt709) }
        if c.matrix == .unspecified { c.matrix = hdr ? .bt2020nc : (isSD ? .smpte170m : .bt709) }
        if c.transfer == .unspecified { c.transfer = .bt709 }
        if c.range == .unspecified { c.range = .limited }
        if c.chromaLocation == .unspecified { c.chromaLocation = .left }
        return c
    }
}

extension MatrixCoefficients {
    /// The luma weights (Kr, Kb) of a non-constant-luminance Y'CbCr matrix, where it has them.
    package var lumaWeights: (kr: Double, kb: Double)? {
        switch self {
        case .bt709: (0.2126, 0.0722)
        case .bt470bg, .smpte170m: (0.299, 0.114)
        case .fcc: (0.30, 0.11)
        case .smpte240m: (0.212, 0.087)
        case .bt2020nc, .bt2020c: (0.2627, 0.0593)
        default: nil
        }
    }
}

extension ColorPrimaries {
    /// Relative luminance of linear R, G, B in these primaries (D65), where sdrify knows them.
    package var luminanceWeights: (r: Double, g: Double, b: Double)? {
        switch self {
        case .bt709: (0.2126, 0.7152, 0.0722)
        case .bt2020: (0.2627, 0.6780, 0.0593)
        default: nil
        }
    }
}
