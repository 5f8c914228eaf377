import CFFmpeg
import SDRifyProbe

/// The RFC 6381 `CODECS` value of a stream as written (HLS master playlists): `avc1.PPCCLL` from the H.264 SPS,
/// `hvc1.…` from the HEVC profile-tier-level, `av01.…` from the AV1 sequence header, `mp4a.40.N` from the AAC
/// AudioSpecificConfig. Read from the
/// stream's own parameter sets (avcC/hvcC, or Annex B as the encoders give them), so it names what was encoded.
enum CodecString {
    static func of(_ par: UnsafeMutablePointer<AVCodecParameters>) -> String? {
        let p = par.pointee
        guard let data = p.extradata, p.extradata_size > 0 else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
        switch p.codec_id {
        case AV_CODEC_ID_H264: return h264(bytes)
        case AV_CODEC_ID_HEVC: return hevc(bytes)
        case AV_CODEC_ID_AV1: return AV1SequenceHeader(bytes)?.codecString
        case AV_CODEC_ID_AAC: return aac(bytes)
        default: return nil
        }
    }

    static func h264(_ bytes: [UInt8]) -> String? {
        let sps: ArraySlice<UInt8>
        if bytes.first == 1, bytes.count >= 4 {
            sps = bytes[1..<4]  // avcC: profile, constraint flags, level
        } else {
            guard let nal = nalUnits(bytes).first(where: { ($0.first ?? 0) & 0x1F == 7 }), nal.count >= 4 else { return nil }
            sps = unescaped(nal)[1..<4]
        }
        return "avc1." + sps.map { hex($0, width: 2) }.joined()
    }

    package static func hevc(_ bytes: [UInt8]) -> String? {
        // The 12 bytes of general_profile_tier_level: in hvcC after its version byte; in Annex B inside the VPS,
        // after its 2-byte NAL header and 4 bytes of fields.
        let ptl: [UInt8]
        if bytes.first == 1, bytes.count >= 13 {
            ptl = Array(bytes[1..<13])
        } else {
            guard let vps = nalUnits(bytes).first(where: { (($0.first ?? 0) >> 1) & 0x3F == 32 }) else { return nil }
            let rbsp = unescaped(vps)
            guard rbsp.count >= 18 else { return nil }
            ptl = Array(rbsp[6..<18])
        }
        let space = ["", "A", "B", "C"][Int(ptl[0] >> 6)]
        let tier = ptl[0] & 0x20 != 0 ? "H" : "L"
        let profile = ptl[0] & 0x1F
        let compat = ptl[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var reversed: UInt32 = 0
        for bit in 0..<32 where compat & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        var constraints = Array(ptl[5..<11])
        while constraints.last == 0 { constraints.removeLast() }
        return
            (["hvc1", "\(space)\(profile)", String(reversed, radix: 16, uppercase: true), "\(tier)\(ptl[11])"]
            + constraints.map { hex($0, width: 1) }).joined(separator: ".")
    }

    static func aac(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first else { return nil }
        var objectType = Int(first >> 3)
        if objectType == 31, bytes.count >= 2 { objectType = 32 + Int((first & 0x07) << 3 | bytes[1] >> 5) }
        return objectType == 0 ? nil : "mp4a.40.\(objectType)"
    }

    /// The NAL units of an Annex B byte stream (start codes removed).
    private static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.enumerated().map { n, s in
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > s, bytes[end - 1] == 0 { end -= 1 }  // a 4-byte start code's leading zero
            return Array(bytes[s..<end])
        }
    }

    /// A NAL unit without its emulation-prevention bytes (00 00 03 → 00 00).
    private static func unescaped(_ nal: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(nal.count)
        var zeros = 0
        for b in nal {
            if zeros >= 2, b == 3 { zeros = 0; continue }
            zeros = b == 0 ? zeros + 1 : 0
            out.append(b)
        }
        return out
    }

    private static func hex(_ b: UInt8, width: Int) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
