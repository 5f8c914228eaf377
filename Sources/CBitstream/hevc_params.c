// HEVC parameter sets, read as far as slice parsing needs them (Rec. ITU-T H.265 7.3.2).
#include "hevc_params.h"

#include <string.h>

static void skip_profile_tier_level(BitReader *b, int max_sub_layers_minus1) {
    br_bits(b, 8);                          // profile space, tier, profile idc
    br_bits32(b, 32);                       // compatibility flags
    br_bits(b, 24); br_bits(b, 24);         // source flags and 44 reserved/constraint bits ...
    br_bits(b, 8);                          // ... general_level_idc (48 + 8 = 56 bits after the flags)
    int profile_present[8] = {0}, level_present[8] = {0};
    for (int i = 0; i < max_sub_layers_minus1; i++) {
        profile_present[i] = br_flag(b);
        level_present[i] = br_flag(b);
    }
    if (max_sub_layers_minus1 > 0)
        for (int i = max_sub_layers_minus1; i < 8; i++) br_bits(b, 2);
    for (int i = 0; i < max_sub_layers_minus1; i++) {
        if (profile_present[i]) { br_bits(b, 24); br_bits(b, 24); br_bits(b, 24); br_bits(b, 16); }  // 88 bits
        if (level_present[i]) br_bits(b, 8);
    }
}

static void skip_scaling_list_data(BitReader *b) {
    for (int size_id = 0; size_id < 4; size_id++) {
        for (int matrix_id = 0; matrix_id < 6; matrix_id += (size_id == 3) ? 3 : 1) {
            if (!br_flag(b)) {
                br_ue(b);                   // scaling_list_pred_matrix_id_delta
            } else {
                int coefs = 1 << (4 + (size_id << 1));
                if (coefs > 64) coefs = 64;
                if (size_id > 1) br_se(b);  // dc coefficient
                for (int i = 0; i < coefs && !b->overrun; i++) br_se(b);
            }
        }
    }
}

static void skip_sub_layer_hrd(BitReader *b, int cpb_count, int sub_pic) {
    for (int i = 0; i < cpb_count && !b->overrun; i++) {
        br_ue(b); br_ue(b);
        if (sub_pic) { br_ue(b); br_ue(b); }
        br_flag(b);
    }
}

static void skip_hrd_parameters(BitReader *b, int max_sub_layers_minus1) {
    int nal = br_flag(b), vcl = br_flag(b), sub_pic = 0;
    if (nal || vcl) {
        sub_pic = br_flag(b);
        if (sub_pic) { br_bits(b, 8); br_bits(b, 5); br_flag(b); br_bits(b, 5); }
        br_bits(b, 4); br_bits(b, 4);
        if (sub_pic) br_bits(b, 4);
        br_bits(b, 5); br_bits(b, 5); br_bits(b, 5);
    }
    for (int i = 0; i <= max_sub_layers_minus1 && !b->overrun; i++) {
        int fixed_general = br_flag(b), fixed_within = 1, low_delay = 0, cpb_count = 1;
        if (!fixed_general) fixed_within = br_flag(b);
        if (fixed_within) br_ue(b); else low_delay = br_flag(b);
        if (!low_delay) {
            uint32_t n = br_ue(b);
            if (n > 31) { b->overrun = 1; return; }
            cpb_count = (int)n + 1;
        }
        if (nal) skip_sub_layer_hrd(b, cpb_count, sub_pic);
        if (vcl) skip_sub_layer_hrd(b, cpb_count, sub_pic);
    }
}

static void skip_vui(BitReader *b, int max_sub_layers_minus1) {
    if (br_flag(b)) {                       // aspect_ratio_info_present_flag
        if (br_bits(b, 8) == 255) { br_bits(b, 16); br_bits(b, 16); }
    }
    if (br_flag(b)) br_flag(b);             // overscan
    if (br_flag(b)) {                       // video_signal_type_present_flag
        br_bits(b, 4);
        if (br_flag(b)) br_bits(b, 24);
    }
    if (br_flag(b)) { br_ue(b); br_ue(b); } // chroma_loc_info
    br_flag(b); br_flag(b); br_flag(b);     // neutral chroma, field_seq, frame_field_info
    if (br_flag(b)) { br_ue(b); br_ue(b); br_ue(b); br_ue(b); }   // default display window
    if (br_flag(b)) {                       // vui_timing_info_present_flag
        br_bits32(b, 32); br_bits32(b, 32);
        if (br_flag(b)) br_ue(b);
        if (br_flag(b)) skip_hrd_parameters(b, max_sub_layers_minus1);
    }
    if (br_flag(b)) {                       // bitstream_restriction_flag
        br_flag(b); br_flag(b); br_flag(b);
        br_ue(b); br_ue(b); br_ue(b); br_ue(b); br_ue(b);
    }
}

int hevc_parse_st_rps(BitReader *b, HEVCSPS *sps, int idx) {
    ShortTermRPS *rps = &sps->st_rps[idx];
    int inter = 0;
    if (idx != 0) inter = br_flag(b);
    if (inter) {
        int delta_idx = 1;
        if (idx == sps->num_st_rps) {
            uint32_t d = br_ue(b);
            if (d + 1 > (uint32_t)idx) return -1;
            delta_idx = (int)d + 1;
        }
        int sign = br_flag(b);
        uint32_t abs_minus1 = br_ue(b);
        if (abs_minus1 > 32767) return -1;
        int delta_rps = (1 - 2 * sign) * (int)(abs_minus1 + 1);
        const ShortTermRPS *ref = &sps->st_rps[idx - delta_idx];
        int ref_count = ref->num_negative + ref->num_positive;
        uint8_t used[2 * MAX_RPS_PICS + 1], use_delta[2 * MAX_RPS_PICS + 1];
        for (int j = 0; j <= ref_count; j++) {
            used[j] = (uint8_t)br_flag(b);
            use_delta[j] = used[j] ? 1 : (uint8_t)br_flag(b);
        }
        // 7.4.8: the new set's pictures, negatives (nearest first) then positives.
        ShortTermRPS out = {0};
        int n = 0;
        for (int j = ref->num_positive - 1; j >= 0; j--) {
            int d = ref->delta_poc[ref->num_negative + j] + delta_rps;
            if (d < 0 && use_delta[ref->num_negative + j]) { if (n >= MAX_RPS_PICS) return -1; out.delta_poc[n] = d; out.used[n++] = used[ref->num_negative + j]; }
        }
        if (delta_rps < 0 && use_delta[ref_count]) { if (n >= MAX_RPS_PICS) return -1; out.delta_poc[n] = delta_rps; out.used[n++] = used[ref_count]; }
        for (int j = 0; j < ref->num_negative; j++) {
            int d = ref->delta_poc[j] + delta_rps;
            if (d < 0 && use_delta[j]) { if (n >= MAX_RPS_PICS) return -1; out.delta_poc[n] = d; out.used[n++] = used[j]; }
        }
        out.num_negative = n;
        int p = 0;
        int32_t pos[2 * MAX_RPS_PICS]; uint8_t pos_used[2 * MAX_RPS_PICS];
        for (int j = ref->num_negative - 1; j >= 0; j--) {
            int d = ref->delta_poc[j] + delta_rps;
            if (d > 0 && use_delta[j]) { if (p >= MAX_RPS_PICS) return -1; pos[p] = d; pos_used[p++] = used[j]; }
        }
        if (delta_rps > 0 && use_delta[ref_count]) { if (p >= MAX_RPS_PICS) return -1; pos[p] = delta_rps; pos_used[p++] = used[ref_count]; }
        for (int j = 0; j < ref->num_positive; j++) {
            int d = ref->delta_poc[ref->num_negative + j] + delta_rps;
            if (d > 0 && use_delta[ref->num_negative + j]) { if (p >= MAX_RPS_PICS) return -1; pos[p] = d; pos_used[p++] = used[ref->num_negative + j]; }
        }
        if (n + p > MAX_RPS_PICS) return -1;
        for (int j = 0; j < p; j++) { out.delta_poc[n + j] = pos[j]; out.used[n + j] = pos_used[j]; }
        out.num_positive = p;
        *rps = out;
    } else {
        uint32_t neg = br_ue(b), posn = br_ue(b);
        if (neg > MAX_RPS_PICS || posn > MAX_RPS_PICS || neg + posn > MAX_RPS_PICS) return -1;
        rps->num_negative = (int)neg; rps->num_positive = (int)posn;
        int poc = 0;
        for (uint32_t i = 0; i < neg; i++) {
            poc -= (int)br_ue(b) + 1;
            rps->delta_poc[i] = poc; rps->used[i] = (uint8_t)br_flag(b);
        }
        poc = 0;
        for (uint32_t i = 0; i < posn; i++) {
            poc += (int)br_ue(b) + 1;
            rps->delta_poc[neg + i] = poc; rps->used[neg + i] = (uint8_t)br_flag(b);
        }
    }
    return b->overrun ? -1 : 0;
}

int hevc_parse_sps(BitReader *b, HEVCSPS *table) {
    br_bits(b, 4);                                  // sps_video_parameter_set_id
    int max_sub_layers_minus1 = (int)br_bits(b, 3);
    br_flag(b);
    skip_profile_tier_level(b, max_sub_layers_minus1);
    uint32_t id = br_ue(b);
    if (id >= MAX_SPS || b->overrun) return -1;
    HEVCSPS s;
    memset(&s, 0, sizeof s);
    uint32_t chroma_format = br_ue(b);
    int separate_planes = 0;
    if (chroma_format > 3) return -1;
    if (chroma_format == 3) separate_planes = br_flag(b);
    s.chroma_array_type = separate_planes ? 0 : (int)chroma_format;
    if (s.chroma_array_type > 1) s.unsupported = "4:2:2 and 4:4:4";
    uint32_t w = br_ue(b), h = br_ue(b);
    if (w == 0 || h == 0 || w > 16888 || h > 16888) return -1;
    s.width = (int)w; s.height = (int)h;
    if (br_flag(b)) { br_ue(b); br_ue(b); br_ue(b); br_ue(b); }   // conformance window
    uint32_t depth_luma = br_ue(b), depth_chroma = br_ue(b);
    if (depth_luma > 8 || depth_chroma > 8) return -1;
    s.bit_depth_luma = (int)depth_luma + 8; s.bit_depth_chroma = (int)depth_chroma + 8;
    uint32_t poc_lsb = br_ue(b);
    if (poc_lsb > 12) return -1;
    s.log2_max_poc_lsb = (int)poc_lsb + 4;
    int ordering_all = br_flag(b);
    for (int i = ordering_all ? 0 : max_sub_layers_minus1; i <= max_sub_layers_minus1; i++) { br_ue(b); br_ue(b); br_ue(b); }
    uint32_t min_cb = br_ue(b) + 3, diff_cb = br_ue(b), min_tb = br_ue(b) + 2, diff_tb = br_ue(b);
    if (min_cb > 6 || min_cb + diff_cb > 6 || min_cb + diff_cb < 4 || min_tb > 5 || min_tb + diff_tb > 5 || min_tb >= min_cb)
        return -1;
    s.log2_min_cb = (int)min_cb; s.log2_ctb = (int)(min_cb + diff_cb);
    s.log2_min_tb = (int)min_tb; s.log2_max_tb = (int)(min_tb + diff_tb);
    if (s.log2_max_tb > s.log2_ctb) return -1;
    if ((s.width & ((1 << s.log2_min_cb) - 1)) || (s.height & ((1 << s.log2_min_cb) - 1))) return -1;
    uint32_t th_inter = br_ue(b), th_intra = br_ue(b);
    if (th_inter > 4 || th_intra > 4) return -1;
    s.max_th_depth_inter = (int)th_inter; s.max_th_depth_intra = (int)th_intra;
    if (br_flag(b) && br_flag(b)) skip_scaling_list_data(b);
    s.amp = br_flag(b);
    s.sao = br_flag(b);
    s.pcm = br_flag(b);
    if (s.pcm) {
        s.pcm_depth_luma = (int)br_bits(b, 4) + 1;
        s.pcm_depth_chroma = (int)br_bits(b, 4) + 1;
        uint32_t min_pcm = br_ue(b) + 3, diff_pcm = br_ue(b);
        if (min_pcm > 5 || min_pcm + diff_pcm > 5) return -1;
        s.log2_min_pcm = (int)min_pcm; s.log2_max_pcm = (int)(min_pcm + diff_pcm);
        br_flag(b);
    }
    uint32_t num_rps = br_ue(b);
    if (num_rps > 64) return -1;
    s.num_st_rps = (int)num_rps;
    for (int i = 0; i < s.num_st_rps; i++)
        if (hevc_parse_st_rps(b, &s, i) < 0) return -1;
    s.long_term_present = br_flag(b);
    if (s.long_term_present) {
        uint32_t n = br_ue(b);
        if (n > 32) return -1;
        s.num_lt_sps = (int)n;
        for (int i = 0; i < s.num_lt_sps; i++) {
            br_bits(b, s.log2_max_poc_lsb);
            s.lt_used_sps[i] = (uint8_t)br_flag(b);
        }
    }
    s.temporal_mvp = br_flag(b);
    br_flag(b);                                     // strong_intra_smoothing_enabled_flag
    if (br_flag(b)) skip_vui(b, max_sub_layers_minus1);
    if (br_flag(b)) {                               // sps_extension_present_flag
        int range = br_flag(b), multilayer = br_flag(b), ext3d = br_flag(b), scc = br_flag(b), ext4 = (int)br_bits(b, 4);
        if (range) {
            br_flag(b);                             // transform_skip_rotation: reconstruction only
            int ts_context = br_flag(b);
            int implicit_rdpcm = br_flag(b);        // changes sign hiding of transform-skipped intra blocks
            int explicit_rdpcm = br_flag(b), extended = br_flag(b);
            br_flag(b); br_flag(b);                 // intra smoothing, high precision offsets
            int persistent_rice = br_flag(b), bypass_align = br_flag(b);
            if (ts_context || implicit_rdpcm || explicit_rdpcm || extended || persistent_rice || bypass_align)
                s.unsupported = "range extension tools";
        }
        if (multilayer) br_flag(b);
        if (ext3d || scc || ext4) s.unsupported = "3D or screen content extensions";
    }
    if (b->overrun) return -1;
    s.valid = 1;
    table[id] = s;
    return (int)id;
}

int hevc_parse_pps(BitReader *b, HEVCPPS *table) {
    uint32_t id = br_ue(b), sps_id = br_ue(b);
    if (id >= MAX_PPS || sps_id >= MAX_SPS || b->overrun) return -1;
    HEVCPPS p;
    memset(&p, 0, sizeof p);
    p.sps_id = (int)sps_id;
    p.dependent_slices = br_flag(b);
    p.output_flag_present = br_flag(b);
    p.num_extra_bits = (int)br_bits(b, 3);
    p.sign_hiding = br_flag(b);
    p.cabac_init_present = br_flag(b);
    uint32_t l0 = br_ue(b), l1 = br_ue(b);
    if (l0 > 14 || l1 > 14) return -1;
    p.num_ref_l0_default = (int)l0 + 1; p.num_ref_l1_default = (int)l1 + 1;
    int32_t qp = br_se(b);
    if (qp < -26 - 48 || qp > 25) return -1;
    p.init_qp = 26 + qp;
    br_flag(b);                                     // constrained_intra_pred_flag
    p.transform_skip = br_flag(b);
    p.cu_qp_delta = br_flag(b);
    if (p.cu_qp_delta) {
        uint32_t d = br_ue(b);
        if (d > 3) return -1;
        p.diff_cu_qp_delta_depth = (int)d;
    }
    br_se(b); br_se(b);                             // cb/cr qp offsets
    p.chroma_qp_offsets_present = br_flag(b);
    p.weighted_pred = br_flag(b);
    p.weighted_bipred = br_flag(b);
    p.transquant_bypass = br_flag(b);
    p.tiles = br_flag(b);
    p.wpp = br_flag(b);
    p.num_tile_cols = p.num_tile_rows = 1;
    p.uniform_spacing = 1;
    if (p.tiles) {
        uint32_t cols = br_ue(b) + 1, rows = br_ue(b) + 1;
        if (cols > MAX_TILES || rows > MAX_TILES) return -1;
        p.num_tile_cols = (int)cols; p.num_tile_rows = (int)rows;
        p.uniform_spacing = br_flag(b);
        if (!p.uniform_spacing) {
            for (int i = 0; i < p.num_tile_cols - 1; i++) { uint32_t v = br_ue(b); if (v > 4095) return -1; p.col_width[i] = (int)v + 1; }
            for (int i = 0; i < p.num_tile_rows - 1; i++) { uint32_t v = br_ue(b); if (v > 4095) return -1; p.row_height[i] = (int)v + 1; }
        }
        br_flag(b);                                 // loop_filter_across_tiles_enabled_flag
    }
    p.loop_filter_across_slices = br_flag(b);
    if (br_flag(b)) {                               // deblocking_filter_control_present_flag
        p.deblocking_override = br_flag(b);
        p.deblocking_disabled = br_flag(b);
        if (!p.deblocking_disabled) { br_se(b); br_se(b); }
    }
    if (br_flag(b)) skip_scaling_list_data(b);
    p.lists_modification = br_flag(b);
    br_ue(b);                                       // log2_parallel_merge_level_minus2
    p.slice_header_extension = br_flag(b);
    p.log2_max_ts_size = 2;
    if (br_flag(b)) {                               // pps_extension_present_flag
        int range = br_flag(b), multilayer = br_flag(b), ext3d = br_flag(b), scc = br_flag(b), ext4 = (int)br_bits(b, 4);
        if (range) {
            if (p.transform_skip) {
                uint32_t v = br_ue(b);
                if (v > 3) return -1;
                p.log2_max_ts_size = (int)v + 2;
            }
            if (br_flag(b)) p.unsupported = "cross-component prediction";
            p.chroma_qp_offset_list = br_flag(b);
            if (p.chroma_qp_offset_list) {
                uint32_t depth = br_ue(b), len = br_ue(b);
                if (depth > 3 || len > 5) return -1;
                p.diff_cu_chroma_qp_offset_depth = (int)depth;
                p.chroma_qp_offset_list_len = (int)len + 1;
                for (uint32_t i = 0; i <= len; i++) { br_se(b); br_se(b); }
            }
            br_ue(b); br_ue(b);                     // SAO offset scales: reconstruction only
        }
        if (multilayer || ext3d || scc || ext4) p.unsupported = "multilayer, 3D or screen content extensions";
    }
    if (b->overrun) return -1;
    p.valid = 1;
    table[id] = p;
    return (int)id;
}
