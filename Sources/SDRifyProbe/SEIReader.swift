import Foundation
import SDRifyValues

/// Reads, without decoding, the SEI messages probe reports from one H.264 or HEVC access unit: mastering
/// display colour volume (137), content light level (144), display orientation (47) and alternative transfer
/// characteristics (147: cameras that tag BT.2020 in the VUI and mean HLG). ITU-T H.264 D.2 and H.265 D.2
/// share these payloads.
package struct SEIReader {
    package enum Codec { case h264, hevc }

    package struct Result: Equatable {
        package var masteringDisplay: MasteringDisplay?
        package var contentLightLevel: ContentLightLevel?
        package var displayMatrix: DisplayMatrix?
        package var preferredTransfer: Int?  // H.273 code point
    }

    let codec: Codec
    let lengthSize: Int?  // NAL length prefix size (avcC/hvcC); nil for Annex B start codes

    /// The NAL length size from avcC/hvcC extradata, or nil when the stream uses start codes.
    package static func lengthSize(codec: Codec, extradata: [UInt8]) -> Int? {
        guard let version = extradata.first, version == 1 else { return nil }
        switch codec {
        case .h264: return extradata.count > 4 ? Int(extradata[4] & 3) + 1 : nil
        case .hevc: return extradata.count > 21 ? Int(extradata[21] & 3) + 1 : nil
        }
    }

    package func read(_ unit: [UInt8]) -> Result {
        var result = Result()
        for nal in nalUnits(unit) {
            guard let first = nal.first else { continue }
            let isSEI: Bool, header: Int
            switch codec {
            case .h264: isSEI = first & 0x1F == 6; header = 1
            case .hevc: isSEI = (first >> 1) & 0x3F == 39 || (first >> 1) & 0x3F == 40; header = 2
            }
            guard isSEI, nal.count > header else { continue }
            parseMessages(SEIReader.unescape(Array(nal.dropFirst(header))), into: &result)  // slices keep their offsets
        }
        return result
    }

    /// The Dolby Vision level-1 metadata of an HEVC access unit's RPU (NAL unit type 62), if it has one.
    package func dolbyVisionLevel1(_ unit: [UInt8]) -> DolbyVisionLevel1? {
        guard codec == .hevc else { return nil }
        for nal in nalUnits(unit) where nal.count > 2 && (nal[nal.startIndex] >> 1) & 0x3F == 62 {
            return DolbyVisionLevel1.read(rpu: Array(nal.dropFirst(2)))
        }
        return nil
    }

    /// Splits an access unit into NAL units (without prefixes or start codes).
    func nalUnits(_ d: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        if let n = lengthSize {
            var pos = 0
            while pos + n <= d.count {
                let size = d[pos..<pos + n].reduce(0) { $0 << 8 | Int($1) }
                pos += n
                guard size > 0, pos + size <= d.count else { break }
                units.append(d[pos..<pos + size])
                pos += size
            }
            return units
        }
        var starts: [Int] = []
        var i = 0
        while i + 3 <= d.count {
            if d[i] == 0, d[i + 1] == 0, d[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        for (k, s) in starts.enumerated() {
            var e = k + 1 < starts.count ? starts[k + 1] - 3 : d.count
            while e > s, d[e - 1] == 0 { e -= 1 }  // a 4-byte start code's leading zero
            if e > s { units.append(d[s..<e]) }
        }
        return units
    }

    /// Removes emulation-prevention bytes (00 00 03 → 00 00).
    static func unescape(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var zeros = 0
        for byte in b {
            if zeros >= 2 && byte == 3 { zeros = 0; continue }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }

    private func parseMessages(_ rbsp: [UInt8], into result: inout Result) {
        var pos = 0
        func varLength() -> Int? {
            var v = 0
            while pos < rbsp.count {
                let b = rbsp[pos]; pos += 1
                v += Int(b)
                if b != 0xFF { return v }
            }
            return nil
        }
        while pos < rbsp.count, rbsp[pos] != 0x80 {
            guard let type = varLength(), let size = varLength(), pos + size <= rbsp.count else { return }
            let payload = Array(rbsp[pos..<pos + size])
            pos += size
            switch type {
            case 137 where payload.count >= 24: result.masteringDisplay = SEIReader.mastering(payload)
            case 144 where payload.count >= 4:
                result.contentLightLevel = ContentLightLevel(
                    maxCLL: Int(payload[0]) << 8 | Int(payload[1]),
                    maxFALL: Int(payload[2]) << 8 | Int(payload[3]))
            case 47: if let m = SEIReader.orientation(payload) { result.displayMatrix = m }
            case 147 where payload.count >= 1: result.preferredTransfer = Int(payload[0])
            default: break
            }
        }
    }

    /// Primaries come in G, B, R order, in units of 0.00002; luminance in 0.0001 cd/m².
    static func mastering(_ p: [UInt8]) -> MasteringDisplay {
        func u16(_ i: Int) -> Double { Double(Int(p[i]) << 8 | Int(p[i + 1])) }
        func u32(_ i: Int) -> Double { Double(Int(p[i]) << 24 | Int(p[i + 1]) << 16 | Int(p[i + 2]) << 8 | Int(p[i + 3])) }
        let c = 0.00002
        return MasteringDisplay(
            redX: u16(8) * c, redY: u16(10) * c, greenX: u16(0) * c, greenY: u16(2) * c,
            blueX: u16(4) * c, blueY: u16(6) * c, whitePointX: u16(12) * c, whitePointY: u16(14) * c,
            minLuminance: u32(20) * 0.0001, maxLuminance: u32(16) * 0.0001)
    }

    /// display_orientation: cancel u(1), hor_flip u(1), ver_flip u(1), anticlockwise_rotation u(16) in 1/65536
    /// turns; as a matrix the way FFmpeg builds it (rotation, then flips on the columns).
    static func orientation(_ p: [UInt8]) -> DisplayMatrix? {
        guard p.count >= 3 else { return nil }
        var bit = 0
        func read(_ n: Int) -> Int {
            var v = 0
            for _ in 0..<n {
                let byte = bit / 8 < p.count ? p[bit / 8] : 0
                v = v << 1 | Int((byte >> (7 - UInt8(bit % 8))) & 1)
                bit += 1
            }
            return v
        }
        guard read(1) == 0 else { return nil }  // cancelled
        let hflip = read(1), vflip = read(1)
        let turns = Double(read(16)) / 65536
        let theta = turns * 2 * .pi
        let (cs, sn) = ((cos(theta) * 65536).rounded() / 65536, (sin(theta) * 65536).rounded() / 65536)
        let fh = hflip == 1 ? -1.0 : 1.0, fv = vflip == 1 ? -1.0 : 1.0
        return DisplayMatrix(a: cs * fh, b: -sn * fv, c: sn * fh, d: cs * fv)
    }

    package init(codec: Codec, lengthSize: Int?) {
        self.codec = codec
        self.lengthSize = lengthSize
    }
}
