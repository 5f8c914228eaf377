// H.264 slice-data syntax check: parses each CABAC slice's macroblocks with a spec-exact decoder (Rec. ITU-T
// H.264 clauses 7.3.4, 7.3.5 and 9.3; entropy decoding only, no reconstruction) and verifies that the slice ends
// where its data ends.
//
// Why this catches damage libavcodec conceals: libavcodec ends a CABAC slice when its last macroblock is decoded
// and complains only when its reader ran well past the data. A flipped bit desynchronises the arithmetic decoder,
// which then keeps producing plausible macroblocks; the picture comes out visibly wrong and nothing is said. But
// the encoder's flush puts the slice's stop bit where a desynchronised decoder almost never lands: the end of
// slice flag comes too early or never, or the decoder ends before or after the data's end, or on a zero bit.
// The picture's coverage by its slices gives a further check.
//
// Parsed: progressive frames (no field pictures or MBAFF) in 4:2:0 or monochrome, CABAC, any bit depth, 8x8
// transforms, PCM macroblocks, weighted prediction, multiple slices. Left unchecked (counted): CAVLC slices,
// 4:2:2 and 4:4:4, interlaced coding, slice groups, SP/SI slices, redundant pictures.
#include "slice_check_codec.h"

typedef struct sdrify_h264_check sdrify_h264_check;
#include "bit_reader.h"
#include "cabac_engine.h"
#include "h264_contexts.h"
#include "nal_units.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// ---- parameter sets (7.3.2.1, 7.3.2.2): only what slice parsing needs ----

enum { MAX_SPS = 32, MAX_PPS = 256, MAX_MBS = 36864 * 4 };   // 8192x4320 in macroblocks, with room

typedef struct {
    int valid;
    const char *unsupported;        // why slices under it are not checked (NULL: checked)
    int chroma_array_type, bit_depth_luma, bit_depth_chroma;
    int log2_max_frame_num, poc_type, log2_max_poc_lsb, delta_pic_order_always_zero;
    int width_mbs, height_mbs, frame_mbs_only, direct_8x8_inference;
} SPS;

typedef struct {
    int valid;
    const char *unsupported;
    int sps_id, bottom_field_pic_order, num_ref_default[2], weighted_pred, weighted_bipred;
    int init_qp, deblocking_control, redundant_pic_cnt_present, transform_8x8;
} PPS;

static void skip_scaling_list(BitReader *b, int size) {
    int last = 8, next = 8;
    for (int j = 0; j < size && next != 0 && !b->overrun; j++) {
        next = (last + br_se(b) + 256) % 256;
        if (next != 0) last = next;
    }
}

static void parse_sps(BitReader *b, SPS *table) {
    int profile = (int)br_bits(b, 8);
    br_bits(b, 16);                                       // constraint flags, level
    uint32_t id = br_ue(b);
    if (id >= MAX_SPS || b->overrun) return;
    SPS s;
    memset(&s, 0, sizeof s);
    s.chroma_array_type = 1; s.bit_depth_luma = 8; s.bit_depth_chroma = 8;
    static const int high_profiles[] = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135};
    for (size_t k = 0; k < sizeof high_profiles / sizeof *high_profiles; k++) {
        if (profile != high_profiles[k]) continue;
        uint32_t format = br_ue(b);
        int separate = format == 3 ? br_flag(b) : 0;
        s.chroma_array_type = separate ? 0 : (int)format;
        if (format > 3) return;
        if (format >= 2) s.unsupported = "4:2:2 and 4:4:4";
        s.bit_depth_luma = 8 + (int)br_ue(b);
        s.bit_depth_chroma = 8 + (int)br_ue(b);
        if (s.bit_depth_luma > 14 || s.bit_depth_chroma > 14) return;
        br_flag(b);                                       // qpprime_y_zero_transform_bypass: reconstruction only
        if (br_flag(b))
            for (int i = 0; i < (format != 3 ? 8 : 12); i++)
                if (br_flag(b)) skip_scaling_list(b, i < 6 ? 16 : 64);
    }
    s.log2_max_frame_num = 4 + (int)br_ue(b);
    s.poc_type = (int)br_ue(b);
    if (s.log2_max_frame_num > 16 || s.poc_type > 2) return;
    if (s.poc_type == 0) {
        s.log2_max_poc_lsb = 4 + (int)br_ue(b);
        if (s.log2_max_poc_lsb > 16) return;
    } else if (s.poc_type == 1) {
        s.delta_pic_order_always_zero = br_flag(b);
        br_se(b); br_se(b);
        uint32_t cycle = br_ue(b);
        if (cycle > 255) return;
        for (uint32_t i = 0; i < cycle; i++) br_se(b);
    }
    br_ue(b);                                             // max_num_ref_frames
    br_flag(b);                                           // gaps_in_frame_num_value_allowed
    s.width_mbs = (int)br_ue(b) + 1;
    int map_units = (int)br_ue(b) + 1;
    s.frame_mbs_only = br_flag(b);
    if (!s.frame_mbs_only) {                              // field pictures and MBAFF frames
        br_flag(b);
        s.unsupported = "interlaced coding";
    }
    s.direct_8x8_inference = br_flag(b);
    if (b->overrun || s.width_mbs > 1024 || map_units > 1024) return;
    s.height_mbs = map_units * (2 - s.frame_mbs_only);
    if (s.width_mbs * s.height_mbs > MAX_MBS) s.unsupported = "pictures over 8K";
    s.valid = 1;
    table[id] = s;
}

/// Whether syntax follows before the RBSP's stop bit (7.2, more_rbsp_data).
static int more_rbsp_data(const BitReader *b) {
    size_t n = b->size;
    while (n > 0 && b->data[n - 1] == 0) n--;
    if (n == 0) return 0;
    size_t stop = n * 8 - 1 - (size_t)__builtin_ctz(b->data[n - 1]);
    return b->pos < stop;
}

static void parse_pps(BitReader *b, PPS *table) {
    uint32_t id = br_ue(b), sps_id = br_ue(b);
    if (id >= MAX_PPS || sps_id >= MAX_SPS || b->overrun) return;
    PPS p;
    memset(&p, 0, sizeof p);
    p.sps_id = (int)sps_id;
    if (!br_flag(b)) p.unsupported = "CAVLC";
    p.bottom_field_pic_order = br_flag(b);
    if (br_ue(b) > 0) {                                   // slice groups: their map is not followed here
        if (!p.unsupported) p.unsupported = "slice groups";
        p.valid = 1;
        table[id] = p;
        return;
    }
    p.num_ref_default[0] = (int)br_ue(b) + 1;
    p.num_ref_default[1] = (int)br_ue(b) + 1;
    p.weighted_pred = br_flag(b);
    p.weighted_bipred = (int)br_bits(b, 2);
    p.init_qp = 26 + br_se(b);
    br_se(b); br_se(b);                                   // pic_init_qs, chroma_qp_index_offset
    p.deblocking_control = br_flag(b);
    br_flag(b);                                           // constrained_intra_pred: no effect without partitions
    p.redundant_pic_cnt_present = br_flag(b);
    if (more_rbsp_data(b)) p.transform_8x8 = br_flag(b);
    if (b->overrun || p.num_ref_default[0] > 32 || p.num_ref_default[1] > 32 || p.weighted_bipred > 2) return;
    p.valid = 1;
    table[id] = p;
}

// ---- slice header (7.3.3) ----

enum { SLICE_P = 0, SLICE_B = 1, SLICE_I = 2 };

typedef struct {
    int first_mb, type, qp, num_ref[2], cabac_init_idc, redundant;
    SPS sps;                       // copies: a parameter set may be replaced while its slices are checked
    PPS pps;
} SliceHeader;

typedef struct {
    SPS sps[MAX_SPS];
    PPS pps[MAX_PPS];
} ParameterSets;

static int skip_pred_weight_table(BitReader *b, const SliceHeader *sh) {
    br_ue(b);
    if (sh->sps.chroma_array_type != 0) br_ue(b);
    for (int list = 0; list < (sh->type == SLICE_B ? 2 : 1); list++)
        for (int i = 0; i < sh->num_ref[list]; i++) {
            if (br_flag(b)) { br_se(b); br_se(b); }
            if (sh->sps.chroma_array_type != 0 && br_flag(b)) { br_se(b); br_se(b); br_se(b); br_se(b); }
            if (b->overrun) return -1;
        }
    return 0;
}

/// Reads the header up to slice_data. Returns NULL when the slice is to be checked; otherwise a reason it is
/// not, prefixed with '!' when the header itself is damaged.
static const char *parse_slice_header(const ParameterSets *ps, BitReader *b, int nal_type, int nal_ref_idc,
                                      SliceHeader *sh) {
    memset(sh, 0, sizeof *sh);
    uint32_t first_mb = br_ue(b), type = br_ue(b), pps_id = br_ue(b);
    if (b->overrun || type > 9 || pps_id >= MAX_PPS) return "!a damaged slice header";
    const PPS *pps = &ps->pps[pps_id];
    if (!pps->valid) return "a slice without its picture parameter set";
    const SPS *sps = &ps->sps[pps->sps_id];
    if (!sps->valid) return "a slice without its sequence parameter set";
    if (pps->unsupported) return pps->unsupported;
    if (sps->unsupported) return sps->unsupported;
    sh->sps = *sps; sh->pps = *pps;
    sh->type = (int)type % 5;
    if (sh->type > SLICE_I) return "SP and SI slices";
    if (first_mb >= (uint32_t)(sps->width_mbs * sps->height_mbs)) return "!a slice starting outside its picture";
    sh->first_mb = (int)first_mb;
    br_bits(b, sps->log2_max_frame_num);                  // (no field_pic_flag: interlaced SPSs are unsupported)
    int idr = nal_type == 5;
    if (idr) br_ue(b);
    if (sps->poc_type == 0) {
        br_bits(b, sps->log2_max_poc_lsb);
        if (pps->bottom_field_pic_order) br_se(b);
    } else if (sps->poc_type == 1 && !sps->delta_pic_order_always_zero) {
        br_se(b);
        if (pps->bottom_field_pic_order) br_se(b);
    }
    if (pps->redundant_pic_cnt_present) sh->redundant = (int)br_ue(b);
    if (sh->redundant) return "redundant pictures";
    if (sh->type == SLICE_B) br_flag(b);                  // direct_spatial_mv_pred: reconstruction only
    sh->num_ref[0] = pps->num_ref_default[0];
    sh->num_ref[1] = sh->type == SLICE_B ? pps->num_ref_default[1] : 0;
    if (sh->type != SLICE_I) {
        if (sh->type == SLICE_P) sh->num_ref[1] = 0;
        if (br_flag(b)) {
            sh->num_ref[0] = (int)br_ue(b) + 1;
            if (sh->type == SLICE_B) sh->num_ref[1] = (int)br_ue(b) + 1;
        }
        if (sh->num_ref[0] > 32 || sh->num_ref[1] > 32) return "!a damaged slice header (reference count)";
        for (int list = 0; list < (sh->type == SLICE_B ? 2 : 1); list++) {
            if (!br_flag(b)) continue;                    // ref_pic_list_modification
            for (int n = 0;; n++) {
                uint32_t op = br_ue(b);
                if (op == 3) break;
                if (op > 5 || n > 32 || b->overrun) return "!a damaged slice header (reference list modification)";
                br_ue(b);
            }
        }
    } else {
        sh->num_ref[0] = 0;
    }
    if ((pps->weighted_pred && sh->type == SLICE_P) || (pps->weighted_bipred == 1 && sh->type == SLICE_B))
        if (skip_pred_weight_table(b, sh)) return "!a damaged slice header (weights)";
    if (nal_ref_idc != 0) {                               // dec_ref_pic_marking
        if (idr) {
            br_flag(b); br_flag(b);
        } else if (br_flag(b)) {
            for (int n = 0;; n++) {
                uint32_t op = br_ue(b);
                if (op == 0) break;
                if (op > 6 || n > 66 || b->overrun) return "!a damaged slice header (reference marking)";
                if (op == 1 || op == 3) br_ue(b);
                if (op == 2) br_ue(b);
                if (op == 3 || op == 6) br_ue(b);
                if (op == 4) br_ue(b);
            }
        }
    }
    if (sh->type != SLICE_I) {
        uint32_t idc = br_ue(b);
        if (idc > 2) return "!a damaged slice header (cabac_init_idc)";
        sh->cabac_init_idc = (int)idc;
    }
    sh->qp = pps->init_qp + br_se(b);
    if (sh->qp < -6 * (sps->bit_depth_luma - 8) || sh->qp > 51) return "!a damaged slice header (QP)";
    if (pps->deblocking_control) {
        uint32_t idc = br_ue(b);
        if (idc > 2) return "!a damaged slice header (deblocking)";
        if (idc != 1) {
            int32_t alpha = br_se(b), beta = br_se(b);
            if (alpha < -6 || alpha > 6 || beta < -6 || beta > 6) return "!a damaged slice header (deblocking)";
        }
    }
    if (b->overrun) return "!a damaged slice header";
    return NULL;
}

// ---- the slice-data parser ----

// What later macroblocks' contexts need of a macroblock.
enum { MB_SKIP = 1, MB_INTRA = 2, MB_PCM = 4, MB_I16 = 8, MB_INXN = 16, MB_DIRECT16 = 32, MB_T8X8 = 64 };

typedef struct {
    int32_t slice;                 // the slice it belongs to (numbered over the whole stream)
    uint8_t flags;
    uint8_t cbp_luma, cbp_chroma;  // 4 bits (8x8 blocks, raster); 0, 1 or 2
    uint8_t chroma_pred;
    uint8_t cbf_dc;                // coded_block_flag: bit 0 luma DC, bits 1 and 2 chroma DC
    uint8_t cbf_chroma[2];         // chroma AC 4x4 blocks, raster (2x2)
    uint16_t cbf_luma;             // luma 4x4 blocks, raster (4x4)
    uint8_t ref_gt0[2];            // per list: 8x8 partitions (raster) coded with a reference index above 0
    uint8_t mvd[2][16][2];         // per list, per 4x4 block (raster): |mvd| (x, y), capped at 64
} MBInfo;

typedef struct {
    CabacEngine e;
    uint16_t ctx[H264_CONTEXTS];   // uint16_t: see cabac_bin
    const SliceHeader *sh;
    MBInfo *mbs, *cur, *left, *top;
    int slice_id;
    int prev_qp_delta_nonzero;
    const char *error;
} Parser;

static inline void fail(Parser *p, const char *why) { if (!p->error) p->error = why; }

static inline __attribute__((always_inline)) int bin(Parser *p, int ci) { return cabac_bin(&p->e, &p->ctx[ci]); }

static uint32_t exp_golomb_bypass(Parser *p, int k, int max_k) {
    uint32_t v = 0;
    while (cabac_bypass(&p->e)) {
        v += 1u << k;
        if (++k > max_k) { fail(p, "slice data out of step with its syntax: a value too large"); return 0; }
    }
    return v + cabac_bypass_bits(&p->e, k);
}

// ctxIdx offsets (Table 9-34) and the per-block-category offsets (Table 9-40).
enum {
    CTX_MB_TYPE_I = 3, CTX_SKIP_P = 11, CTX_MB_TYPE_P = 14, CTX_MB_TYPE_P_INTRA = 17, CTX_SUB_P = 21,
    CTX_SKIP_B = 24, CTX_MB_TYPE_B = 27, CTX_MB_TYPE_B_INTRA = 32, CTX_SUB_B = 36, CTX_MVD_X = 40, CTX_MVD_Y = 47,
    CTX_REF_IDX = 54, CTX_QP_DELTA = 60, CTX_CHROMA_PRED = 64, CTX_PREV_INTRA = 68, CTX_REM_INTRA = 69,
    CTX_CBP_LUMA = 73, CTX_CBP_CHROMA = 77, CTX_CBF = 85, CTX_SIG = 105, CTX_LAST = 166, CTX_ABS = 227,
    CTX_TRANSFORM_8X8 = 399, CTX_SIG_8X8 = 402, CTX_LAST_8X8 = 417, CTX_ABS_8X8 = 426,
};
enum { CAT_LUMA_DC, CAT_LUMA_AC, CAT_LUMA_4X4, CAT_CHROMA_DC, CAT_CHROMA_AC, CAT_LUMA_8X8 };
static const uint8_t cbf_cat_offset[5] = {0, 4, 8, 12, 16};
static const uint8_t sig_cat_offset[6] = {0, 15, 29, 44, 47, 0};
// Frame-coded 8x8 blocks: significant_coeff_flag and last_significant_coeff_flag ctxIdxInc by scan position
// (Table 9-43).
static const uint8_t sig_8x8[63] = {
    0, 1, 2, 3, 4, 5, 5, 4, 4, 3, 3, 4, 4, 4, 5, 5, 4, 4, 4, 4, 3, 3, 6, 7, 7, 7, 8, 9, 10, 9, 8, 7,
    7, 6, 11, 12, 13, 11, 6, 7, 8, 9, 14, 10, 9, 8, 6, 11, 12, 13, 11, 6, 9, 14, 10, 9, 11, 12, 13, 11, 14, 10, 12,
};
static const uint8_t last_8x8[63] = {
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8,
};

// ctxIdx of significant_coeff_flag and last_significant_coeff_flag by block category and scan position, and of
// the first bin of coeff_abs_level_minus1 by category (built from the tables above once).
static uint16_t sig_ctx[6][64], last_ctx[6][64];
static const uint16_t abs_ctx[6] = {CTX_ABS, CTX_ABS + 10, CTX_ABS + 20, CTX_ABS + 30, CTX_ABS + 39, CTX_ABS_8X8};

static void build_coefficient_contexts(void) {
    for (int cat = 0; cat < 6; cat++)
        for (int i = 0; i < 63; i++) {
            if (cat == CAT_LUMA_8X8) {
                sig_ctx[cat][i] = (uint16_t)(CTX_SIG_8X8 + sig_8x8[i]);
                last_ctx[cat][i] = (uint16_t)(CTX_LAST_8X8 + last_8x8[i]);
            } else {
                int inc = cat == CAT_CHROMA_DC ? (i < 2 ? i : 2) : i;   // chroma DC (4:2:0): Min(i / NumC8x8, 2)
                sig_ctx[cat][i] = (uint16_t)(CTX_SIG + sig_cat_offset[cat] + inc);
                last_ctx[cat][i] = (uint16_t)(CTX_LAST + sig_cat_offset[cat] + inc);
            }
        }
}

/// residual_block_cabac (7.3.5.3.3) after its coded_block_flag: the significance map and the levels.
static inline __attribute__((always_inline)) void residual_block(Parser *p, int cat, int max_coeff) {
    const uint16_t *sig = sig_ctx[cat], *last = last_ctx[cat];
    int coeffs = 0, i = 0;
    for (; i < max_coeff - 1; i++)
        if (bin(p, sig[i])) {
            coeffs++;
            if (bin(p, last[i])) break;
        }
    if (i == max_coeff - 1) coeffs++;                       // the last position, significant by inference
    // coeff_abs_level_minus1: the first bin's context counts the levels of 1 so far until one above 1 is seen,
    // the later bins' count those above 1 (up to 4, 3 for chroma DC).
    const int base = abs_ctx[cat], max_gt1 = cat == CAT_CHROMA_DC ? 3 : 4;
    int eq1 = 0, gt1 = 0;
    for (int k = 0; k < coeffs; k++) {
        if (!bin(p, base + (gt1 ? 0 : (eq1 < 3 ? 1 + eq1 : 4)))) {
            eq1++;
        } else {
            const int ci = base + 5 + (gt1 < max_gt1 ? gt1 : max_gt1);
            int prefix = 1;
            while (prefix < 14 && bin(p, ci)) prefix++;
            if (prefix == 14) exp_golomb_bypass(p, 0, 8 + p->sh->sps.bit_depth_luma);
            gt1++;
        }
        cabac_bypass(&p->e);                                // coeff_sign_flag
    }
}

// coded_block_flag's neighbour terms (9.3.3.1.1.9): a missing neighbour counts 1 for intra macroblocks, 0 for
// inter; a PCM neighbour 1 (its bits are all set); otherwise the neighbour block's flag, 0 where it was not coded.
static inline int cbf_missing(const Parser *p) { return (p->cur->flags & MB_INTRA) ? 1 : 0; }

static int coded_block_flag(Parser *p, int cat, int a, int b) {
    return bin(p, CTX_CBF + cbf_cat_offset[cat] + a + 2 * b);
}

static int luma_cbf_inc_a(const Parser *p, int x, int y) {
    if (x > 0) return (p->cur->cbf_luma >> (y * 4 + x - 1)) & 1;
    return p->left ? (p->left->cbf_luma >> (y * 4 + 3)) & 1 : cbf_missing(p);
}

static int luma_cbf_inc_b(const Parser *p, int x, int y) {
    if (y > 0) return (p->cur->cbf_luma >> ((y - 1) * 4 + x)) & 1;
    return p->top ? (p->top->cbf_luma >> (12 + x)) & 1 : cbf_missing(p);
}

/// One 4x4 luma block (categories 1 and 2) at (x, y) in 4x4 units.
static void luma_block(Parser *p, int cat, int x, int y) {
    if (coded_block_flag(p, cat, luma_cbf_inc_a(p, x, y), luma_cbf_inc_b(p, x, y))) {
        p->cur->cbf_luma |= (uint16_t)(1u << (y * 4 + x));
        residual_block(p, cat, cat == CAT_LUMA_AC ? 15 : 16);
    }
}

// Where most of the time goes (coefficients): a clone for CPUs with LZCNT/BMI2 (renormalisation), as in the HEVC
// check.
#if defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void residual(Parser *p) {
    MBInfo *m = p->cur;
    if (m->flags & MB_I16) {
        int a = p->left ? p->left->cbf_dc & 1 : 1, b = p->top ? p->top->cbf_dc & 1 : 1;
        if (coded_block_flag(p, CAT_LUMA_DC, a, b)) { m->cbf_dc |= 1; residual_block(p, CAT_LUMA_DC, 16); }
    }
    for (int b8 = 0; b8 < 4; b8++) {
        if (!((m->cbp_luma >> b8) & 1)) continue;
        int x0 = (b8 & 1) * 2, y0 = (b8 >> 1) * 2;
        if (m->flags & MB_T8X8) {
            // coded_block_flag of an 8x8 block is inferred (1) outside 4:4:4; its 4x4 blocks count as coded.
            m->cbf_luma |= (uint16_t)(0x33u << (y0 * 4 + x0));
            residual_block(p, CAT_LUMA_8X8, 64);
        } else {
            int cat = (m->flags & MB_I16) ? CAT_LUMA_AC : CAT_LUMA_4X4;
            for (int k = 0; k < 4; k++) luma_block(p, cat, x0 + (k & 1), y0 + (k >> 1));
        }
        if (p->error) return;
    }
    if (p->sh->sps.chroma_array_type == 0 || m->cbp_chroma == 0) return;
    for (int c = 0; c < 2; c++) {
        int bit = 2 << c;
        int a = p->left ? (p->left->cbf_dc & bit) != 0 : cbf_missing(p);
        int b = p->top ? (p->top->cbf_dc & bit) != 0 : cbf_missing(p);
        if (coded_block_flag(p, CAT_CHROMA_DC, a, b)) { m->cbf_dc |= (uint8_t)bit; residual_block(p, CAT_CHROMA_DC, 4); }
    }
    if (m->cbp_chroma != 2) return;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++) {
            int x = k & 1, y = k >> 1;
            int a = x > 0 ? (m->cbf_chroma[c] >> (y * 2)) & 1
                          : (p->left ? (p->left->cbf_chroma[c] >> (y * 2 + 1)) & 1 : cbf_missing(p));
            int b = y > 0 ? (m->cbf_chroma[c] >> x) & 1 : (p->top ? (p->top->cbf_chroma[c] >> (2 + x)) & 1 : cbf_missing(p));
            if (coded_block_flag(p, CAT_CHROMA_AC, a, b)) {
                m->cbf_chroma[c] |= (uint8_t)(1u << k);
                residual_block(p, CAT_CHROMA_AC, 15);
            }
        }
}

// ---- macroblock prediction syntax ----

enum { PRED_L0 = 1, PRED_L1 = 2, PRED_BI = 3 };

/// ref_idx_lX (9.3.3.1.1.6) of the partition whose top-left 4x4 block is (x, y), which covers w x h 4x4 blocks.
static void ref_idx(Parser *p, int list, int x, int y, int w, int h) {
    int a = x > 0 ? (p->cur->ref_gt0[list] >> ((y >> 1) * 2 + ((x - 1) >> 1))) & 1
                  : (p->left ? (p->left->ref_gt0[list] >> ((y >> 1) * 2 + 1)) & 1 : 0);
    int b = y > 0 ? (p->cur->ref_gt0[list] >> (((y - 1) >> 1) * 2 + (x >> 1))) & 1
                  : (p->top ? (p->top->ref_gt0[list] >> (2 + (x >> 1))) & 1 : 0);
    int v = 0;
    if (bin(p, CTX_REF_IDX + a + 2 * b)) {
        v = 1;
        if (bin(p, CTX_REF_IDX + 4)) {
            v = 2;
            while (bin(p, CTX_REF_IDX + 5)) if (++v > 32) break;
        }
    }
    if (v >= p->sh->num_ref[list]) { fail(p, "slice data out of step with its syntax: a reference index out of range"); return; }
    if (v > 0)
        for (int j = y; j < y + h; j += 2)
            for (int i = x; i < x + w; i += 2) p->cur->ref_gt0[list] |= (uint8_t)(1u << ((j >> 1) * 2 + (i >> 1)));
}

/// One mvd component (9.3.3.1.1.7, UEG3): returns its absolute value.
static int mvd_component(Parser *p, int base, int sum) {
    if (!bin(p, base + (sum < 3 ? 0 : (sum <= 32 ? 1 : 2)))) return 0;
    int v = 1;
    while (v < 9 && bin(p, base + (v < 4 ? v + 2 : 6))) v++;
    if (v == 9) v += (int)exp_golomb_bypass(p, 3, 18);
    cabac_bypass(&p->e);                                    // sign
    if (v > 32768) fail(p, "slice data out of step with its syntax: a motion vector difference out of range");
    return v;
}

static void mvd(Parser *p, int list, int x, int y, int w, int h) {
    int v[2];
    for (int c = 0; c < 2; c++) {
        int a = x > 0 ? p->cur->mvd[list][y * 4 + x - 1][c] : (p->left ? p->left->mvd[list][y * 4 + 3][c] : 0);
        int b = y > 0 ? p->cur->mvd[list][(y - 1) * 4 + x][c] : (p->top ? p->top->mvd[list][12 + x][c] : 0);
        v[c] = mvd_component(p, c ? CTX_MVD_Y : CTX_MVD_X, a + b);
    }
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            for (int c = 0; c < 2; c++) p->cur->mvd[list][j * 4 + i][c] = (uint8_t)(v[c] > 64 ? 64 : v[c]);
}

typedef struct { int8_t x, y, w, h, pred; } Partition;   // in 4x4 blocks; pred: PRED_* (0: direct)

/// mb_pred for inter macroblocks with one or two partitions (7.3.5.1).
static void inter_pred(Parser *p, const Partition *parts, int count) {
    for (int list = 0; list < 2; list++)
        if (p->sh->num_ref[list] > 1)
            for (int k = 0; k < count; k++)
                if (parts[k].pred & (1 << list)) ref_idx(p, list, parts[k].x, parts[k].y, parts[k].w, parts[k].h);
    for (int list = 0; list < 2; list++)
        for (int k = 0; k < count; k++)
            if (parts[k].pred & (1 << list)) mvd(p, list, parts[k].x, parts[k].y, parts[k].w, parts[k].h);
}

/// sub_mb_pred (7.3.5.2). Returns whether every partition is at least 8x8 (for transform_size_8x8_flag).
static int sub_mb_pred(Parser *p, int b_slice) {
    // Sub-macroblock types: prediction (PRED_*, 0 for B_Direct_8x8) and shape (0: 8x8, 1: 8x4, 2: 4x8, 3: 4x4).
    static const uint8_t b_pred[13] = {0, 1, 2, 3, 1, 1, 2, 2, 3, 3, 1, 2, 3};
    static const uint8_t b_shape[13] = {0, 0, 0, 0, 1, 2, 1, 2, 1, 2, 3, 3, 3};
    int pred[4], shape[4], all_8x8 = 1;
    for (int s = 0; s < 4; s++) {
        int t;
        if (!b_slice) {
            if (bin(p, CTX_SUB_P)) t = 0;
            else if (!bin(p, CTX_SUB_P + 1)) t = 1;
            else t = bin(p, CTX_SUB_P + 2) ? 2 : 3;
            pred[s] = PRED_L0; shape[s] = t;
        } else {
            if (!bin(p, CTX_SUB_B)) t = 0;
            else if (!bin(p, CTX_SUB_B + 1)) t = 1 + bin(p, CTX_SUB_B + 3);
            else if (bin(p, CTX_SUB_B + 2)) {
                if (bin(p, CTX_SUB_B + 3)) t = 11 + bin(p, CTX_SUB_B + 3);
                else { t = 7 + 2 * bin(p, CTX_SUB_B + 3); t += bin(p, CTX_SUB_B + 3); }
            } else {
                t = 3 + 2 * bin(p, CTX_SUB_B + 3);
                t += bin(p, CTX_SUB_B + 3);
            }
            pred[s] = b_pred[t]; shape[s] = b_shape[t];
        }
        if (pred[s] == 0) { if (!p->sh->sps.direct_8x8_inference) all_8x8 = 0; }
        else if (shape[s] != 0) all_8x8 = 0;
    }
    for (int list = 0; list < 2; list++)
        if (p->sh->num_ref[list] > 1)
            for (int s = 0; s < 4; s++)
                if (pred[s] & (1 << list)) ref_idx(p, list, (s & 1) * 2, (s >> 1) * 2, 2, 2);
    for (int list = 0; list < 2; list++)
        for (int s = 0; s < 4; s++) {
            if (!(pred[s] & (1 << list))) continue;
            int x0 = (s & 1) * 2, y0 = (s >> 1) * 2;
            switch (shape[s]) {
            case 0: mvd(p, list, x0, y0, 2, 2); break;
            case 1: mvd(p, list, x0, y0, 2, 1); mvd(p, list, x0, y0 + 1, 2, 1); break;
            case 2: mvd(p, list, x0, y0, 1, 2); mvd(p, list, x0 + 1, y0, 1, 2); break;
            default: for (int k = 0; k < 4; k++) mvd(p, list, x0 + (k & 1), y0 + (k >> 1), 1, 1); break;
            }
        }
    return all_8x8;
}

/// The intra part of mb_type (Table 9-36): 0 for I_NxN, 1...24 for I_16x16 types, 25 for I_PCM.
static int mb_type_intra(Parser *p, int i_slice) {
    int base = i_slice ? CTX_MB_TYPE_I : (p->sh->type == SLICE_P ? CTX_MB_TYPE_P_INTRA : CTX_MB_TYPE_B_INTRA);
    if (i_slice) {
        int a = p->left && (p->left->flags & (MB_I16 | MB_PCM)), b = p->top && (p->top->flags & (MB_I16 | MB_PCM));
        if (!bin(p, base + a + b)) return 0;
    } else if (!bin(p, base)) {
        return 0;
    }
    if (cabac_terminate(&p->e)) return 25;
    // Later bins: ctxIdxInc 3, 4, 5/6, 6/7, 7 in I slices; 1, 2, 2/3, 3, 3 as a suffix in P and B slices.
    int t = 1 + 12 * bin(p, base + (i_slice ? 3 : 1));
    if (bin(p, base + (i_slice ? 4 : 2))) t += 4 + 4 * bin(p, base + (i_slice ? 5 : 2));
    t += 2 * bin(p, base + (i_slice ? 6 : 3));
    t += bin(p, base + (i_slice ? 7 : 3));
    return t;
}

static void intra_pred(Parser *p) {
    MBInfo *m = p->cur;
    if (m->flags & MB_INXN) {
        int blocks = (m->flags & MB_T8X8) ? 4 : 16;
        for (int k = 0; k < blocks; k++)
            if (!bin(p, CTX_PREV_INTRA)) { bin(p, CTX_REM_INTRA); bin(p, CTX_REM_INTRA); bin(p, CTX_REM_INTRA); }
    }
    if (p->sh->sps.chroma_array_type == 0) return;
    int a = p->left && (p->left->flags & (MB_INTRA | MB_PCM)) == MB_INTRA && p->left->chroma_pred;
    int b = p->top && (p->top->flags & (MB_INTRA | MB_PCM)) == MB_INTRA && p->top->chroma_pred;
    int mode = 0;
    if (bin(p, CTX_CHROMA_PRED + a + b)) {
        mode = 1;
        if (bin(p, CTX_CHROMA_PRED + 3)) mode = 2 + bin(p, CTX_CHROMA_PRED + 3);
    }
    m->chroma_pred = (uint8_t)mode;
}

static void coded_block_pattern(Parser *p) {
    MBInfo *m = p->cur;
    int luma = 0;
    for (int b8 = 0; b8 < 4; b8++) {
        int x = b8 & 1, y = b8 >> 1;
        // A neighbouring 8x8 block counts when present, not PCM and without coefficients.
        int a = x > 0 ? !((luma >> (b8 - 1)) & 1)
                      : (p->left && !(p->left->flags & MB_PCM) && !((p->left->cbp_luma >> (b8 + 1)) & 1));
        int b = y > 0 ? !((luma >> (b8 - 2)) & 1)
                      : (p->top && !(p->top->flags & MB_PCM) && !((p->top->cbp_luma >> (b8 + 2)) & 1));
        luma |= bin(p, CTX_CBP_LUMA + a + 2 * b) << b8;
    }
    m->cbp_luma = (uint8_t)luma;
    if (p->sh->sps.chroma_array_type == 0) return;
    int a = p->left && !(p->left->flags & MB_SKIP) && p->left->cbp_chroma != 0;
    int b = p->top && !(p->top->flags & MB_SKIP) && p->top->cbp_chroma != 0;
    if (!bin(p, CTX_CBP_CHROMA + a + 2 * b)) return;
    a = p->left && !(p->left->flags & MB_SKIP) && p->left->cbp_chroma == 2;
    b = p->top && !(p->top->flags & MB_SKIP) && p->top->cbp_chroma == 2;
    m->cbp_chroma = (uint8_t)(1 + bin(p, CTX_CBP_CHROMA + 4 + a + 2 * b));
}

static void qp_delta(Parser *p) {
    int k = 0;
    if (bin(p, CTX_QP_DELTA + p->prev_qp_delta_nonzero)) {
        k = 1;
        if (bin(p, CTX_QP_DELTA + 2)) {
            k = 2;
            int limit = 2 * (52 + 6 * (p->sh->sps.bit_depth_luma - 8));
            while (bin(p, CTX_QP_DELTA + 3)) if (++k > limit) break;
        }
    }
    int delta = (k & 1) ? (k + 1) / 2 : -(k / 2);
    int bound = 26 + 3 * (p->sh->sps.bit_depth_luma - 8);
    if (delta < -bound || delta > bound - 1) fail(p, "slice data out of step with its syntax: mb_qp_delta out of range");
    p->prev_qp_delta_nonzero = k != 0;
}

static int transform_8x8_inc(const Parser *p) {
    return (p->left && (p->left->flags & MB_T8X8)) + (p->top && (p->top->flags & MB_T8X8));
}

/// I_PCM samples: the arithmetic decoder stops (as at a slice's end), the samples follow byte-aligned, and
/// decoding restarts after them (9.3.1.2).
static void pcm_samples(Parser *p) {
    const char *why = NULL;
    size_t byte = cabac_stop(&p->e, 0, &why);
    if (why) { fail(p, why); return; }
    const SPS *s = &p->sh->sps;
    size_t bits = 256 * (size_t)s->bit_depth_luma + (s->chroma_array_type ? 128 * (size_t)s->bit_depth_chroma : 0);
    if (byte + bits / 8 > p->e.size) { fail(p, "slice data ends inside a PCM macroblock"); return; }
    cabac_seek(&p->e, byte + bits / 8);
    if (cabac_start(&p->e)) fail(p, "slice data out of step with its syntax: a bad restart after PCM samples");
}

static void macroblock_layer(Parser *p) {
    MBInfo *m = p->cur;
    int type = p->sh->type, intra = -1;
    Partition parts[2];
    int count = 0, sub = 0;
    if (type == SLICE_I) {
        intra = mb_type_intra(p, 1);
    } else if (type == SLICE_P) {
        if (bin(p, CTX_MB_TYPE_P)) intra = mb_type_intra(p, 0);
        else if (!bin(p, CTX_MB_TYPE_P + 1)) {
            if (bin(p, CTX_MB_TYPE_P + 2)) sub = 1;
            else { parts[0] = (Partition){0, 0, 4, 4, PRED_L0}; count = 1; }
        } else if (bin(p, CTX_MB_TYPE_P + 3)) {
            parts[0] = (Partition){0, 0, 4, 2, PRED_L0}; parts[1] = (Partition){0, 2, 4, 2, PRED_L0}; count = 2;
        } else {
            parts[0] = (Partition){0, 0, 2, 4, PRED_L0}; parts[1] = (Partition){2, 0, 2, 4, PRED_L0}; count = 2;
        }
    } else {
        int a = p->left && !(p->left->flags & MB_DIRECT16), b = p->top && !(p->top->flags & MB_DIRECT16);
        int t;
        if (!bin(p, CTX_MB_TYPE_B + a + b)) t = 0;
        else if (!bin(p, CTX_MB_TYPE_B + 3)) t = 1 + bin(p, CTX_MB_TYPE_B + 5);
        else {
            int bits = bin(p, CTX_MB_TYPE_B + 4) << 3;
            bits |= bin(p, CTX_MB_TYPE_B + 5) << 2;
            bits |= bin(p, CTX_MB_TYPE_B + 5) << 1;
            bits |= bin(p, CTX_MB_TYPE_B + 5);
            if (bits < 8) t = bits + 3;
            else if (bits == 13) t = -1;
            else if (bits == 14) t = 11;
            else if (bits == 15) t = 22;
            else t = ((bits << 1) | bin(p, CTX_MB_TYPE_B + 5)) - 4;
        }
        if (t < 0) intra = mb_type_intra(p, 0);
        else if (t == 0) m->flags |= MB_DIRECT16;
        else if (t == 22) sub = 1;
        else if (t <= 3) { parts[0] = (Partition){0, 0, 4, 4, (int8_t)t}; count = 1; }
        else {
            static const uint8_t first[9] = {1, 2, 1, 2, 1, 2, 3, 3, 3}, second[9] = {1, 2, 2, 1, 3, 3, 1, 2, 3};
            int k = (t - 4) / 2;
            if (t % 2 == 0) {
                parts[0] = (Partition){0, 0, 4, 2, (int8_t)first[k]}; parts[1] = (Partition){0, 2, 4, 2, (int8_t)second[k]};
            } else {
                parts[0] = (Partition){0, 0, 2, 4, (int8_t)first[k]}; parts[1] = (Partition){2, 0, 2, 4, (int8_t)second[k]};
            }
            count = 2;
        }
    }
    if (p->error) return;

    if (intra == 25) {                                      // I_PCM: every neighbour term counts it as coded
        m->flags |= MB_INTRA | MB_PCM;
        m->cbp_luma = 15; m->cbp_chroma = 2;
        m->cbf_luma = 0xFFFF; m->cbf_dc = 7; m->cbf_chroma[0] = m->cbf_chroma[1] = 15;
        p->prev_qp_delta_nonzero = 0;
        pcm_samples(p);
        return;
    }
    const PPS *pps = &p->sh->pps;
    int all_8x8 = 1;
    if (intra >= 0) {
        m->flags |= MB_INTRA;
        if (intra == 0) {
            m->flags |= MB_INXN;
            if (pps->transform_8x8 && bin(p, CTX_TRANSFORM_8X8 + transform_8x8_inc(p))) m->flags |= MB_T8X8;
        } else {
            m->flags |= MB_I16;
            m->cbp_chroma = (uint8_t)(((intra - 1) / 4) % 3);
            m->cbp_luma = intra >= 13 ? 15 : 0;
            if (p->sh->sps.chroma_array_type == 0 && m->cbp_chroma) { fail(p, "slice data out of step with its syntax: chroma in a monochrome picture"); return; }
        }
        intra_pred(p);
    } else if (sub) {
        all_8x8 = sub_mb_pred(p, type == SLICE_B);
    } else if (count) {
        inter_pred(p, parts, count);
    }
    if (p->error) return;
    if (!(m->flags & MB_I16)) {
        coded_block_pattern(p);
        if (m->cbp_luma && pps->transform_8x8 && !(m->flags & MB_INTRA) && all_8x8 &&
            (!(m->flags & MB_DIRECT16) || p->sh->sps.direct_8x8_inference))
            if (bin(p, CTX_TRANSFORM_8X8 + transform_8x8_inc(p))) m->flags |= MB_T8X8;
    }
    if (m->cbp_luma || m->cbp_chroma || (m->flags & MB_I16)) {
        qp_delta(p);
        if (p->error) return;
        residual(p);
    } else {
        p->prev_qp_delta_nonzero = 0;
    }
}

struct sdrify_h264_check {
    SliceCheckStream stream;       // first: see slice_check_codec.h
    ParameterSets ps;
    RBSPBuffer buf;
    MBInfo *mbs;
    size_t mbs_capacity;
    int32_t slice_id;
    int tracking, next_mb, pic_mbs;    // the picture in progress: where its next slice must start
};

/// Room for a picture of `mbs` macroblocks. Returns 0, or -1 without memory.
static int reserve_macroblocks(sdrify_h264_check *c, int mbs) {
    if ((size_t)mbs <= c->mbs_capacity) return 0;
    MBInfo *m = realloc(c->mbs, (size_t)mbs * sizeof *m);
    if (!m) return -1;
    c->mbs = m; c->mbs_capacity = (size_t)mbs;
    for (int i = 0; i < mbs; i++) c->mbs[i].slice = -1;
    return 0;
}

/// Parses one slice's data (its picture's macroblocks reserved). Returns NULL, or what is wrong; *end_mb receives
/// the address after its last macroblock.
static const char *check_slice_data(sdrify_h264_check *c, const BitReader *b, const SliceHeader *sh, int *end_mb) {
    const int w = sh->sps.width_mbs, mbs = w * sh->sps.height_mbs;
    Parser p;
    memset(&p, 0, sizeof p);
    p.sh = sh; p.mbs = c->mbs;
    p.slice_id = ++c->slice_id;
    // cabac_alignment_one_bit up to the byte boundary, then the arithmetic decoder.
    size_t pos = b->pos;
    for (; pos & 7; pos++)
        if (!((b->data[pos >> 3] >> (7 - (pos & 7))) & 1)) return "slice data out of step with its header: a zero alignment bit";
    if (pos >= b->size * 8) return "a slice without data";
    p.e.data = b->data; p.e.size = b->size;
    cabac_seek(&p.e, pos >> 3);
    if (cabac_start(&p.e)) return "slice data out of step with its header: an invalid arithmetic decoder start";
    const int8_t (*init)[2] = h264_context_init[sh->type == SLICE_I ? 0 : 1 + sh->cabac_init_idc];
    for (int i = 0; i < H264_CONTEXTS; i++) p.ctx[i] = cabac_initial_state(init[i][0], init[i][1], sh->qp);

    for (int addr = sh->first_mb;;) {
        MBInfo *m = &p.mbs[addr];
        memset(m, 0, sizeof *m);
        m->slice = p.slice_id;
        p.cur = m;
        p.left = addr % w && p.mbs[addr - 1].slice == p.slice_id ? &p.mbs[addr - 1] : NULL;
        p.top = addr >= w && p.mbs[addr - w].slice == p.slice_id ? &p.mbs[addr - w] : NULL;
        int skip = 0;
        if (sh->type != SLICE_I) {
            int base = sh->type == SLICE_P ? CTX_SKIP_P : CTX_SKIP_B;
            int a = p.left && !(p.left->flags & MB_SKIP), bb = p.top && !(p.top->flags & MB_SKIP);
            skip = bin(&p, base + a + bb);
        }
        if (skip) {
            m->flags = MB_SKIP | (sh->type == SLICE_B ? MB_DIRECT16 : 0);
            p.prev_qp_delta_nonzero = 0;
        } else {
            macroblock_layer(&p);
        }
        if (p.error) return p.error;
        if (cabac_position(&p.e) > p.e.size * 8 + 64) return "slice data ends before its macroblocks do";
        addr++;
        if (cabac_terminate(&p.e)) {
            const char *why = NULL;
            size_t byte = cabac_stop(&p.e, 0, &why);
            if (why) return why;
            for (size_t i = byte; i < b->size; i++)
                if (b->data[i]) return "slice data goes on after its last macroblock";
            *end_mb = addr;
            return NULL;
        }
        if (addr >= mbs) return "slice data runs past the end of the picture";
    }
}

// ---- NAL units and packets ----

static int picture_incomplete(sdrify_h264_check *c) {
    int incomplete = c->tracking && c->next_mb != c->pic_mbs;
    c->tracking = 0;
    return incomplete;
}

static int check_nal(void *context, const uint8_t *nal, size_t size, const char **problem) {
    sdrify_h264_check *c = context;
    if (size < 2) return 0;
    if (nal[0] & 0x80) { *problem = "a NAL unit header with its forbidden bit set"; return 1; }
    int type = nal[0] & 31, ref_idc = (nal[0] >> 5) & 3;
    int vcl = type >= 1 && type <= 5;
    c->stream.packet_pictures += vcl;
    if (type == 10 || type == 11) {                         // end of sequence / stream: the picture before must be whole
        if (picture_incomplete(c)) { *problem = "a picture is missing slices"; return 1; }
        return 0;
    }
    if (type != 1 && type != 5 && type != 7 && type != 8) {
        if (vcl) { c->stream.counts.slices_unchecked++; c->tracking = 0; }   // data partitions
        return 0;
    }
    int n = rbsp_unescape(&c->buf, nal + 1, size - 1);
    if (n < 0) return 0;
    BitReader b = {c->buf.rbsp, (size_t)n, 0, 0};
    if (type == 7) { parse_sps(&b, c->ps.sps); return 0; }
    if (type == 8) { parse_pps(&b, c->ps.pps); return 0; }
    SliceHeader sh;
    const char *skip = parse_slice_header(&c->ps, &b, type, ref_idc, &sh);
    int damaged = 0;
    if (!skip && sh.first_mb == 0 && picture_incomplete(c)) { *problem = "a picture is missing slices"; damaged = 1; }
    if (skip && skip[0] == '!') {
        c->tracking = 0;
        c->stream.counts.slices_checked++;
        if (!damaged) *problem = skip + 1;
        return damaged + 1;
    }
    if (skip) {
        c->stream.counts.slices_unchecked++;
        c->tracking = 0;
        return damaged;
    }
    int mbs = sh.sps.width_mbs * sh.sps.height_mbs;
    if (reserve_macroblocks(c, mbs)) {
        c->stream.counts.slices_unchecked++;
        c->tracking = 0;
        return damaged;
    }
    if (sh.first_mb == 0) { c->tracking = 1; c->next_mb = 0; c->pic_mbs = mbs; }
    else if (c->tracking && (sh.first_mb != c->next_mb || mbs != c->pic_mbs)) {
        c->tracking = 0;
        c->stream.counts.slices_checked++;
        if (!damaged) *problem = "a slice is missing";
        return damaged + 1;
    }
    int end = 0;
    const char *bad = check_slice_data(c, &b, &sh, &end);
    c->stream.counts.slices_checked++;
    if (bad) {
        c->tracking = 0;                                    // one report per picture
        if (!damaged) *problem = bad;
        return damaged + 1;
    }
    if (c->tracking) c->next_mb = end;
    return damaged;
}

static void build_tables(void) { cabac_build_tables(); build_coefficient_contexts(); }

static void *check_create(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_tables);
    return calloc(1, sizeof(sdrify_h264_check));
}

static void check_free(void *check) {
    sdrify_h264_check *c = check;
    if (!c) return;
    rbsp_free(&c->buf);
    free(c->mbs);
    free(c);
}

static void check_configure(void *check, const uint8_t *d, size_t size) {
    sdrify_h264_check *c = check;
    if (!d || size == 0) return;
    const char *ignored = NULL;
    // avcC when its first byte is 1, as libavcodec decides; otherwise Annex B.
    if (d[0] == 1 && size >= 7) {
        c->stream.nal_length_size = (d[4] & 3) + 1;
        size_t pos = 6;
        for (int set = 0; set < 2; set++) {
            if (pos >= size) return;
            int count = set == 0 ? d[5] & 31 : d[pos++];
            for (int k = 0; k < count && pos + 2 <= size; k++) {
                size_t len = ((size_t)d[pos] << 8) | d[pos + 1];
                pos += 2;
                if (pos + len > size) return;
                check_nal(c, d + pos, len, &ignored);
                pos += len;
            }
        }
        return;
    }
    c->stream.nal_length_size = 0;
    nal_walk_annexb(d, size, check_nal, c, &ignored);
}

static int check_finish(void *check, const char **problem) {
    sdrify_h264_check *c = check;
    *problem = picture_incomplete(c) ? "a picture is missing slices" : NULL;
    return *problem != NULL;
}

const SliceCheckCodec h264_slice_check = {check_create, check_free, check_configure, check_nal, check_finish};
