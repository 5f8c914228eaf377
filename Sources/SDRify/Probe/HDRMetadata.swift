/// SMPTE ST 2086 mastering display colour volume. Chromaticities are CIE 1931 xy; luminance in cd/m².
public struct MasteringDisplay: Equatable, Sendable {
    public var redX, redY, greenX, greenY, blueX, blueY: Double
    public var whitePointX, whitePointY: Double
    public var minLuminance: Double  // cd/m²
    public var maxLuminance: Double  // cd/m²

    public init(redX: Double, redY: Double, greenX: Double, greenY: Double, blueX: Double, blueY: Double,
                whitePointX: Double, whitePointY: Double, minLuminance: Double, maxLuminance: Double) {
        self.redX = redX; self.redY = redY; self.greenX = greenX; self.greenY = greenY
        self.blueX = blueX; self.blueY = blueY; self.whitePointX = whitePointX; self.whitePointY = whitePointY
        self.minLuminance = minLuminance; self.maxLuminance = maxLuminance
    }
}

/// CTA-861.3 content light level.
public struct ContentLightLevel: Equatable, Sendable {
    public var maxCLL: Int   // cd/m², brightest pixel of the programme
    public var maxFALL: Int  // cd/m², brightest frame average
    public init(maxCLL: Int, maxFALL: Int) { self.maxCLL = maxCLL; self.maxFALL = maxFALL }
}

/// Dolby Vision decoder configuration record (dvcC/dvvC).
public struct DolbyVisionConfig: Equatable, Sendable {
    public var profile: Int
    public var level: Int
    public var rpuPresent: Bool
    public var elPresent: Bool
    public var blPresent: Bool
    public var blCompatibilityID: Int
}

/// The HDR side information of a stream, sanitised once before use (the libplacebo model).
public struct HDRMetadata: Equatable, Sendable {
    public var masteringDisplay: MasteringDisplay?
    public var contentLightLevel: ContentLightLevel?

    public init(masteringDisplay: MasteringDisplay? = nil, contentLightLevel: ContentLightLevel? = nil) {
        self.masteringDisplay = masteringDisplay
        self.contentLightLevel = contentLightLevel
    }

    /// The source peak the tone curve starts from, in cd/m² (DESIGN §4): MaxCLL if sane, else the mastering
    /// display's max luminance if sane, else the default for the transfer. Nonsense (0, < 100, min ≥ max)
    /// counts as absent; values above PQ's 10000 cd/m² are capped.
    public func sourcePeak(for kind: HDRKind) -> Double {
        let defaultPeak = 1000.0
        if kind == .hlg { return defaultPeak }  // HLG is relative: its nominal peak is the display's 1000 cd/m²
        if let cll = contentLightLevel, cll.maxCLL >= 100 {
            let masteringMax = masteringDisplay.flatMap { HDRMetadata.saneMax($0) } ?? 10000
            return min(Double(cll.maxCLL), masteringMax, 10000)
        }
        if let md = masteringDisplay, let peak = HDRMetadata.saneMax(md) { return min(peak, 10000) }
        return defaultPeak
    }

    static func saneMax(_ md: MasteringDisplay) -> Double? {
        guard md.maxLuminance.isFinite, md.maxLuminance >= 100, md.minLuminance >= 0,
              md.minLuminance < md.maxLuminance else { return nil }
        return md.maxLuminance
    }
}

/// Per-picture dynamic HDR metadata: what the file says of the shot's light (hints, checked against what the
/// picture itself measures before they are used).
public struct DynamicHDRMetadata: Equatable, Sendable {
    public enum Source: String, Sendable { case dolbyVision = "dovi", hdr10Plus = "hdr10+" }
    public var source: Source
    public var peak: Double     // cd/m²: the shot's brightest (DV level 1 max; HDR10+ maxSCL)
    public var average: Double  // cd/m²: its average (DV level 1 avg; HDR10+ average maxRGB)

    public init(source: Source, peak: Double, average: Double) {
        self.source = source; self.peak = peak; self.average = average
    }
}
