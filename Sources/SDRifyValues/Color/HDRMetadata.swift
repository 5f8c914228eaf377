/// SMPTE ST 2086 mastering display colour volume. Chromaticities are CIE 1931 xy; luminance in cd/m².
package struct MasteringDisplay: Equatable, Sendable {
    package var redX, redY, greenX, greenY, blueX, blueY: Double
    package var whitePointX, whitePointY: Double
    package var minLuminance: Double  // cd/m²
    package var maxLuminance: Double  // cd/m²

    package init(
        redX: Double, redY: Double, greenX: Double, greenY: Double, blueX: Double, blueY: Double,
        whitePointX: Double, whitePointY: Double, minLuminance: Double, maxLuminance: Double
    ) {
        self.redX = redX; self.redY = redY; self.greenX = greenX; self.greenY = greenY
        self.blueX = blueX; self.blueY = blueY; self.whitePointX = whitePointX; self.whitePointY = whitePointY
        self.minLuminance = minLuminance; self.maxLuminance = maxLuminance
    }
}

extension MasteringDisplay {
    /// Why these values cannot describe a real mastering display (nil when they can): luminances swapped or
    /// outside any display's, primaries out of their places (red must have the largest x, green the largest y,
    /// blue the smallest y) or a white point outside their triangle. Real files carry such nonsense.
    package var defect: String? {
        let values = [redX, redY, greenX, greenY, blueX, blueY, whitePointX, whitePointY, minLuminance, maxLuminance]
        guard values.allSatisfy(\.isFinite) else { return "values are not numbers" }
        if minLuminance >= maxLuminance { return "min luminance \(minLuminance) ≥ max \(maxLuminance) cd/m² (swapped?)" }
        if maxLuminance < 50 || maxLuminance > 10000 { return "max luminance \(maxLuminance) cd/m² is outside 50–10000" }
        if minLuminance < 0 || minLuminance > 5 { return "min luminance \(minLuminance) cd/m² is outside 0–5" }
        let points = [(redX, redY), (greenX, greenY), (blueX, blueY), (whitePointX, whitePointY)]
        // x + y = 1 is the spectral locus's red end (BT.2020 red lies on it); beyond is no colour.
        if points.contains(where: { $0.0 <= 0 || $0.1 <= 0 || $0.0 + $0.1 > 1.0001 }) {
            return "a chromaticity is not a colour (x, y ≤ 0 or x + y > 1)"
        }
        guard redX > greenX, redX > blueX, greenY > redY, greenY > blueY, blueY < redY else {
            return "primaries out of order (red, green, blue not where their names put them)"
        }
        func side(_ a: (Double, Double), _ b: (Double, Double), _ p: (Double, Double)) -> Double {
            (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
        }
        let r = points[0], g = points[1], b = points[2], w = points[3]
        let signs = [side(r, g, w), side(g, b, w), side(b, r, w)]
        guard signs.allSatisfy({ $0 > 0 }) || signs.allSatisfy({ $0 < 0 }) else { return "white point outside the primaries' triangle" }
        return nil
    }
}

/// CTA-861.3 content light level.
package struct ContentLightLevel: Equatable, Sendable {
    package var maxCLL: Int  // cd/m², brightest pixel of the programme
    package var maxFALL: Int  // cd/m², brightest frame average

    package init(maxCLL: Int, maxFALL: Int) { self.maxCLL = maxCLL; self.maxFALL = maxFALL }

    /// Why these values cannot be a programme's (nil when they can). 0 means "unknown" and is no defect.
    package var defect: String? {
        if maxCLL > 10000 { return "MaxCLL \(maxCLL) cd/m² is beyond PQ's 10000" }
        if maxCLL > 0 && maxFALL > maxCLL { return "MaxFALL \(maxFALL) is above MaxCLL \(maxCLL) cd/m²" }
        return nil
    }
}

/// Dolby Vision decoder configuration record (dvcC/dvvC).
package struct DolbyVisionConfig: Equatable, Sendable {
    package var profile: Int
    package var level: Int
    package var rpuPresent: Bool
    package var elPresent: Bool
    package var blPresent: Bool
    package var blCompatibilityID: Int

    package init(profile: Int, level: Int, rpuPresent: Bool, elPresent: Bool, blPresent: Bool, blCompatibilityID: Int) {
        self.profile = profile
        self.level = level
        self.rpuPresent = rpuPresent
        self.elPresent = elPresent
        self.blPresent = blPresent
        self.blCompatibilityID = blCompatibilityID
    }
}

/// The HDR side information of a stream, sanitised once before use (the libplacebo model).
package struct HDRMetadata: Equatable, Sendable {
    package var masteringDisplay: MasteringDisplay?
    package var contentLightLevel: ContentLightLevel?

    package init(masteringDisplay: MasteringDisplay? = nil, contentLightLevel: ContentLightLevel? = nil) {
        self.masteringDisplay = masteringDisplay
        self.contentLightLevel = contentLightLevel
    }

    /// The source peak the tone curve starts from, in cd/m² (DESIGN §4): MaxCLL if sane, else the mastering
    /// display's max luminance if sane, else the default for the transfer. Nonsense (0, < 100, min ≥ max)
    /// counts as absent; values above PQ's 10000 cd/m² are capped.
    package func sourcePeak(for kind: HDRKind) -> Double {
        let defaultPeak = 1000.0
        if kind == .hlg { return defaultPeak }  // HLG is relative: its nominal peak is the display's 1000 cd/m²
        if let cll = contentLightLevel, cll.maxCLL >= 100, cll.defect == nil {
            let masteringMax = masteringDisplay.flatMap { HDRMetadata.saneMax($0) } ?? 10000
            return min(Double(cll.maxCLL), masteringMax, 10000)
        }
        if let md = masteringDisplay, let peak = HDRMetadata.saneMax(md) { return min(peak, 10000) }
        return defaultPeak
    }

    static func saneMax(_ md: MasteringDisplay) -> Double? {
        guard md.defect == nil, md.maxLuminance >= 100 else { return nil }
        return md.maxLuminance
    }

    /// One warning per malformed item ("… : ignored"), for probe and convert.
    package var warnings: [String] {
        var w: [String] = []
        if let d = masteringDisplay?.defect { w.append("malformed mastering-display metadata (\(d)): ignored") }
        if let d = contentLightLevel?.defect { w.append("malformed content-light-level metadata (\(d)): ignored") }
        return w
    }
}

/// Per-picture dynamic HDR metadata: what the file says of the shot's light (hints, checked against what the
/// picture itself measures before they are used).
package struct DynamicHDRMetadata: Equatable, Sendable {
    package enum Source: String, Sendable { case dolbyVision = "dovi", hdr10Plus = "hdr10+" }
    package var source: Source
    package var peak: Double  // cd/m²: the shot's brightest (DV level 1 max; HDR10+ maxSCL)
    package var average: Double  // cd/m²: its average (DV level 1 avg; HDR10+ average maxRGB)

    package init(source: Source, peak: Double, average: Double) {
        self.source = source; self.peak = peak; self.average = average
    }
}
