import SDRifyValues

/// The one part of a Dolby Vision RPU sdrify uses: the display-management level-1 block, the shot's darkest,
/// average and brightest light as 12-bit PQ codes. libavcodec 5.1 parses the RPU's header, mapping and static
/// colour metadata but not its extension blocks, so the whole RPU is walked here to reach them (syntax as
/// published for the RPU data payload: header, reshaping curves, NLQ, colour metadata, extension blocks).
package struct DolbyVisionLevel1: Equatable, Sendable {
    var minPQ: Int, averagePQ: Int, maxPQ: Int  // 0-4095

    package var maxLuminance: Double { PQ.decode(Double(maxPQ) / 4095) }
    package var averageLuminance: Double { PQ.decode(Double(averagePQ) / 4095) }

    /// Reads level 1 from an RPU as libavcodec hands it over (AV_FRAME_DATA_DOVI_RPU_BUFFER: the NAL payload with
    /// its 0x19 prefix and emulation-prevention bytes). nil when the RPU has none or is damaged.
    package static func read(rpu raw: [UInt8]) -> DolbyVisionLevel1? {
        guard raw.first == 0x19 else { return nil }
        var r = BitReader(SEIReader.unescape(Array(raw.dropFirst())))
        return try? level1(&r)
    }

    private static func level1(_ r: inout BitReader) throws -> DolbyVisionLevel1? {
        guard try r.bits(6) == 2 else { return nil }  // rpu_type 2: the only one with this syntax
        let format = try r.bits(11)
        try r.skip(8)  // vdr_rpu_profile, vdr_rpu_level
        guard try r.flag() else { return nil }  // vdr_seq_info_present (always set in practice)
        try r.skip(1)  // chroma_resampling_explicit_filter_flag
        let coefType = try r.bits(2)
        guard coefType <= 1 else { return nil }
        let log2Denom = coefType == 0 ? try r.unsignedGolomb() : 32
        guard (13...32).contains(log2Denom) else { return nil }
        try r.skip(3)  // vdr_rpu_normalized_idc, bl_video_full_range_flag
        var blDepth = 8, elDepth = 8, disableResidual = true
        if format & 0x700 == 0 {
            blDepth = try r.unsignedGolomb() + 8
            elDepth = try r.unsignedGolomb() + 8
            _ = try r.unsignedGolomb()  // vdr_bit_depth_minus8
            guard blDepth <= 16, elDepth <= 16 else { return nil }
            try r.skip(5)  // spatial filter flag, 3 reserved bits, EL filter flag
            disableResidual = try r.flag()
        }
        let dmPresent = try r.flag()
        let usePrevious = try r.flag()
        let nlq = format & 0x700 == 0 && !disableResidual
        func coefficient() throws {  // se_coef: Golomb integer part + fraction, or a float
            if coefType == 0 { _ = try r.signedGolomb(); try r.skip(log2Denom) } else { try r.skip(32) }
        }
        func unsignedCoefficient() throws {
            if coefType == 0 { _ = try r.unsignedGolomb(); try r.skip(log2Denom) } else { try r.skip(32) }
        }
        if usePrevious {
            _ = try r.unsignedGolomb()  // prev_vdr_rpu_id
        } else {
            _ = try r.unsignedGolomb()  // vdr_rpu_id
            _ = try r.unsignedGolomb()  // mapping_color_space
            _ = try r.unsignedGolomb()  // mapping_chroma_format_idc
            var pivots: [Int] = []
            for _ in 0..<3 {
                let n = try r.unsignedGolomb() + 2
                guard n <= 9 else { return nil }
                pivots.append(n)
                try r.skip(n * blDepth)
            }
            var nlqMethod = 0
            if nlq {
                nlqMethod = try r.bits(3)
                try r.skip(2 * blDepth)
            }
            _ = try r.unsignedGolomb()  // num_x_partitions_minus1
            _ = try r.unsignedGolomb()  // num_y_partitions_minus1
            for n in pivots {
                for _ in 0..<(n - 1) {
                    switch try r.unsignedGolomb() {
                    case 0:  // polynomial
                        let order = try r.unsignedGolomb() + 1
                        guard order <= 2 else { return nil }
                        if order == 1, try r.flag() { return nil }  // linear interpolation: undocumented
                        for _ in 0...order { try coefficient() }
                    case 1:  // MMR
                        let order = try r.bits(2) + 1
                        guard order <= 3 else { return nil }
                        try coefficient()
                        for _ in 0..<(order * 7) { try coefficient() }
                    default: return nil
                    }
                }
            }
            if nlq {
                for _ in 0..<3 {
                    try r.skip(elDepth)  // nlq_offset
                    try unsignedCoefficient()  // vdr_in_max
                    if nlqMethod == 0 { try unsignedCoefficient(); try unsignedCoefficient() }  // linear dead zone
                }
            }
        }
        guard dmPresent else { return nil }
        _ = try r.unsignedGolomb()  // affected_dm_metadata_id
        _ = try r.unsignedGolomb()  // current_dm_metadata_id
        _ = try r.unsignedGolomb()  // scene_refresh_flag
        try r.skip(9 * 16 + 3 * 32 + 9 * 16)  // YCC→RGB matrix and offsets, RGB→LMS matrix
        try r.skip(16 * 3 + 32 + 5 + 2 + 2 + 2)  // signal EOTF and its parameters, depth, space, format, range
        try r.skip(12 + 12 + 10)  // source min/max PQ, source diagonal
        let blocks = try r.unsignedGolomb()
        try r.byteAlign()
        for _ in 0..<min(blocks, 255) {
            let length = try r.unsignedGolomb()
            let level = try r.bits(8)
            guard length * 8 <= r.bitsLeft else { return nil }
            if level == 1, length >= 5 {
                let minPQ = try r.bits(12), maxPQ = try r.bits(12), averagePQ = try r.bits(12)
                return DolbyVisionLevel1(minPQ: minPQ, averagePQ: averagePQ, maxPQ: maxPQ)
            }
            try r.skip(length * 8)
        }
        return nil
    }
}
