/// The fields of an AV1 sequence header OBU (AV1 spec 5.5) that name a stream: profile, level, tier, bit depth.
/// Read from an encoder's extradata (the sequence header OBU, as SVT-AV1 gives it) or from an `av1C` box's payload
/// (its 4-byte header, then the same OBUs).
package struct AV1SequenceHeader: Equatable, Sendable {
    package var profile: Int
    package var level: Int  // seq_level_idx of operating point 0
    package var tier: Int
    package var bitDepth: Int
    package var monochrome: Bool

    /// The RFC 6381 `CODECS` value of AV1-ISOBMFF §5: `av01.P.LLT.DD` (profile, level, tier M or H, bit depth).
    package var codecString: String {
        "av01.\(profile)." + (level < 10 ? "0" : "") + "\(level)\(tier == 0 ? "M" : "H")." + (bitDepth < 10 ? "0" : "") + "\(bitDepth)"
    }

    /// nil when `bytes` hold no sequence header OBU, or a damaged one.
    package init?(_ bytes: [UInt8]) {
        var at = bytes.first == 0x81 && bytes.count >= 4 ? 4 : 0  // av1C: marker and version 1, then config OBUs
        while at < bytes.count {
            let header = bytes[at]
            let type = Int(header >> 3) & 0x0F, hasExtension = header & 0x04 != 0, hasSize = header & 0x02 != 0
            at += hasExtension ? 2 : 1
            var size = bytes.count - at
            if hasSize {
                guard let (value, length) = AV1SequenceHeader.leb128(bytes, at) else { return nil }
                size = value; at += length
            }
            guard size >= 0, at <= bytes.count, size <= bytes.count - at else { return nil }
            if type == 1 {  // OBU_SEQUENCE_HEADER
                guard let parsed = try? AV1SequenceHeader.parse(BitReader(Array(bytes[at..<(at + size)]))) else { return nil }
                self = parsed
                return
            }
            at += size
        }
        return nil
    }

    private init(profile: Int, level: Int, tier: Int, bitDepth: Int, monochrome: Bool) {
        self.profile = profile; self.level = level; self.tier = tier; self.bitDepth = bitDepth; self.monochrome = monochrome
    }

    /// leb128(): the value and the bytes it took (at most 8).
    private static func leb128(_ bytes: [UInt8], _ start: Int) -> (Int, Int)? {
        var value = 0
        for i in 0..<8 where start + i < bytes.count {
            let b = bytes[start + i]
            value |= Int(b & 0x7F) << (7 * i)
            if b & 0x80 == 0 { return (value, i + 1) }
        }
        return nil
    }

    /// sequence_header_obu() up to color_config()'s bit depth and mono_chrome.
    private static func parse(_ reader: BitReader) throws -> AV1SequenceHeader {
        var r = reader
        let profile = try r.bits(3)
        try r.skip(1)  // still_picture
        let reduced = try r.flag()
        var level = 0, tier = 0
        if reduced {
            level = try r.bits(5)
        } else {
            var bufferDelayLength = 0
            var decoderModel = false
            if try r.flag() {  // timing_info_present_flag
                try r.skip(64)  // num_units_in_display_tick, time_scale
                if try r.flag() { _ = try uvlc(&r) }  // equal_picture_interval: num_ticks_per_picture_minus_1
                decoderModel = try r.flag()
                if decoderModel {
                    bufferDelayLength = try r.bits(5) + 1
                    try r.skip(32 + 5 + 5)  // num_units_in_decoding_tick, two lengths
                }
            }
            let initialDisplayDelay = try r.flag()
            let operatingPoints = try r.bits(5) + 1
            for i in 0..<operatingPoints {
                try r.skip(12)  // operating_point_idc
                let idx = try r.bits(5)
                let t = try idx > 7 ? r.bits(1) : 0
                if i == 0 { level = idx; tier = t }
                if decoderModel, try r.flag() { try r.skip(2 * bufferDelayLength + 1) }
                if initialDisplayDelay, try r.flag() { try r.skip(4) }
            }
        }
        let widthBits = try r.bits(4) + 1, heightBits = try r.bits(4) + 1
        try r.skip(widthBits + heightBits)
        if !reduced, try r.flag() { try r.skip(4 + 3) }  // frame_id_numbers_present_flag: two lengths
        try r.skip(3)  // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
        if !reduced {
            try r.skip(4)  // interintra, masked compound, warped motion, dual filter
            let orderHint = try r.flag()
            if orderHint { try r.skip(2) }  // jnt_comp, ref_frame_mvs
            let screenContent = try r.flag() ? 2 : r.bits(1)  // seq_choose_screen_content_tools
            if screenContent > 0, try !r.flag() { try r.skip(1) }  // seq_choose_integer_mv, seq_force_integer_mv
            if orderHint { try r.skip(3) }
        }
        try r.skip(3)  // superres, cdef, restoration
        // color_config()
        let high = try r.flag()
        let bitDepth = try profile == 2 && high ? (r.flag() ? 12 : 10) : (high ? 10 : 8)
        let monochrome = try profile == 1 ? false : r.flag()
        return AV1SequenceHeader(profile: profile, level: level, tier: tier, bitDepth: bitDepth, monochrome: monochrome)
    }

    /// uvlc(): leading zeros, then as many bits; 32 or more zeros is the largest value.
    private static func uvlc(_ r: inout BitReader) throws -> Int {
        var zeros = 0
        while try !r.flag() {
            zeros += 1
            if zeros >= 32 { return Int(UInt32.max) }
        }
        return try zeros == 0 ? 0 : r.bits(zeros) + (1 << zeros) - 1
    }
}
