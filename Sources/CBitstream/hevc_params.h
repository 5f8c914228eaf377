// Internal to the HEVC check: bit reading and parameter sets (Rec. ITU-T H.265 clause 7).
#ifndef SDRIFY_HEVC_PARAMS_H
#define SDRIFY_HEVC_PARAMS_H

#include "bit_reader.h"

static inline int ceil_log2(uint32_t v) {
    int n = 0;
    while (((uint32_t)1 << n) < v) n++;
    return n;
}

// ---- parameter sets: only what slice parsing needs ----

enum { MAX_SPS = 16, MAX_PPS = 64, MAX_RPS_PICS = 16, MAX_TILES = 64 };

typedef struct {
    int num_negative, num_positive;
    int32_t delta_poc[2 * MAX_RPS_PICS];   // negatives first, then positives
    uint8_t used[2 * MAX_RPS_PICS];
} ShortTermRPS;

typedef struct {
    int valid;
    const char *unsupported;                // why slices under it are not checked (NULL: checked)
    int chroma_array_type;                  // 0 monochrome, 1 4:2:0 (others unsupported)
    int width, height;                      // luma samples
    int bit_depth_luma, bit_depth_chroma;
    int log2_max_poc_lsb;
    int log2_min_cb, log2_ctb, log2_min_tb, log2_max_tb;
    int max_th_depth_inter, max_th_depth_intra;
    int amp, sao, pcm;
    int pcm_depth_luma, pcm_depth_chroma, log2_min_pcm, log2_max_pcm;
    int num_st_rps;
    ShortTermRPS st_rps[65];                // [num_st_rps] holds a slice header's own set
    int long_term_present, num_lt_sps;
    uint8_t lt_used_sps[33];
    int temporal_mvp;
} HEVCSPS;

typedef struct {
    int valid;
    const char *unsupported;
    int sps_id;
    int dependent_slices, output_flag_present, num_extra_bits, sign_hiding, cabac_init_present;
    int num_ref_l0_default, num_ref_l1_default, init_qp;
    int transform_skip, cu_qp_delta, diff_cu_qp_delta_depth;
    int chroma_qp_offsets_present, weighted_pred, weighted_bipred, transquant_bypass;
    int tiles, wpp, num_tile_cols, num_tile_rows, uniform_spacing;
    int col_width[MAX_TILES], row_height[MAX_TILES];
    int loop_filter_across_slices, deblocking_override, deblocking_disabled;
    int lists_modification, slice_header_extension;
    int log2_max_ts_size;
    int chroma_qp_offset_list, diff_cu_chroma_qp_offset_depth, chroma_qp_offset_list_len;
} HEVCPPS;

/// Parse an SPS / PPS RBSP (after the two-byte NAL header). Return the id, or -1 when unreadable.
int hevc_parse_sps(BitReader *b, HEVCSPS *sps_table);
int hevc_parse_pps(BitReader *b, HEVCPPS *pps_table);
/// A short-term reference picture set (7.3.7), in an SPS (idx < num) or a slice header (idx == num).
int hevc_parse_st_rps(BitReader *b, HEVCSPS *sps, int idx);

#endif
