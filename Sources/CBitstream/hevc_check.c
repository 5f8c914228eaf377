// HEVC slice-data syntax check: parses each slice segment's coding tree with a spec-exact CABAC decoder
// (Rec. ITU-T H.265 clauses 7.3.8 and 9.3) and verifies that the slice ends where its data ends.
//
// Why this catches damage libavcodec conceals: after a flipped bit the arithmetic decoder keeps producing
// plausible syntax, so the decoder draws garbage without any error. But the encoder's flush puts the last bit
// the decoder reads (the stop bit) at a place a desynchronised decoder almost never lands on: it ends early
// (data left over), runs past the data, or ends on a zero bit. Substream entry points and the picture's coverage
// by slice segments give further checks.
#include "slice_check_codec.h"

typedef struct sdrify_hevc_check sdrify_hevc_check;
#include "hevc_params.h"
#include "cabac_engine.h"
#include "nal_units.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// Context variables, one block per syntax element.
enum {
    CTX_SAO_MERGE = 0, CTX_SAO_TYPE = 1, CTX_SPLIT_CU = 2, CTX_TRANSQUANT_BYPASS = 5, CTX_SKIP = 6,
    CTX_PRED_MODE = 9, CTX_PART_MODE = 10, CTX_PREV_INTRA = 14, CTX_CHROMA_PRED = 15, CTX_MERGE_FLAG = 16,
    CTX_MERGE_IDX = 17, CTX_INTER_PRED = 18, CTX_REF_IDX = 23, CTX_MVD_GT0 = 25, CTX_MVD_GT1 = 26, CTX_MVP = 27,
    CTX_ROOT_CBF = 28, CTX_SPLIT_TRANSFORM = 29, CTX_CBF_LUMA = 32, CTX_CBF_CHROMA = 34, CTX_CU_QP_DELTA = 39,
    CTX_CHROMA_QP_OFFSET_FLAG = 41, CTX_CHROMA_QP_OFFSET_IDX = 42, CTX_TRANSFORM_SKIP = 43, CTX_LAST_X = 45,
    CTX_LAST_Y = 63, CTX_CSBF = 81, CTX_SIG = 85, CTX_GT1 = 129, CTX_GT2 = 153, CTX_COUNT = 159,
};

// initValue per initType (0: I; 1: P, or B with cabac_init_flag; 2: B), in the order of the enum above.
static const uint8_t init_values[3][CTX_COUNT] = {
    {
        153, 200, 139, 141, 157, 154, 154, 154, 154, 154, 184, 154, 154, 154, 184, 63, 154, 154,
        154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 154, 153, 138, 138, 111, 141, 94, 138, 182, 154, 154,
        154, 154, 154, 154, 139, 139,
        110, 110, 124, 125, 140, 153, 125, 127, 140, 109, 111, 143, 127, 111, 79, 108, 123, 63,
        110, 110, 124, 125, 140, 153, 125, 127, 140, 109, 111, 143, 127, 111, 79, 108, 123, 63,
        91, 171, 134, 141,
        111, 111, 125, 110, 110, 94, 124, 108, 124, 107, 125, 141, 179, 153, 125, 107, 125, 141, 179, 153, 125, 107,
        125, 141, 179, 153, 125, 140, 139, 182, 182, 152, 136, 152, 136, 153, 136, 139, 111, 136, 139, 111, 141, 111,
        140, 92, 137, 138, 140, 152, 138, 139, 153, 74, 149, 92, 139, 107, 122, 152, 140, 179, 166, 182, 140, 227,
        122, 197,
        138, 153, 136, 167, 152, 152,
    },
    {
        153, 185, 107, 139, 126, 154, 197, 185, 201, 149, 154, 139, 154, 154, 154, 152, 110, 122,
        95, 79, 63, 31, 31, 153, 153, 140, 198, 168, 79, 124, 138, 94, 153, 111, 149, 107, 167, 154, 154,
        154, 154, 154, 154, 139, 139,
        125, 110, 94, 110, 95, 79, 125, 111, 110, 78, 110, 111, 111, 95, 94, 108, 123, 108,
        125, 110, 94, 110, 95, 79, 125, 111, 110, 78, 110, 111, 111, 95, 94, 108, 123, 108,
        121, 140, 61, 154,
        155, 154, 139, 153, 139, 123, 123, 63, 153, 166, 183, 140, 136, 153, 154, 166, 183, 140, 136, 153, 154, 166,
        183, 140, 136, 153, 154, 170, 153, 123, 123, 107, 121, 107, 121, 167, 151, 183, 140, 151, 183, 140, 140, 140,
        154, 196, 196, 167, 154, 152, 167, 182, 182, 134, 149, 136, 153, 121, 136, 137, 169, 194, 166, 167, 154, 167,
        137, 182,
        107, 167, 91, 122, 107, 167,
    },
    {
        153, 160, 107, 139, 126, 154, 197, 185, 201, 134, 154, 139, 154, 154, 183, 152, 154, 137,
        95, 79, 63, 31, 31, 153, 153, 169, 198, 168, 79, 224, 167, 122, 153, 111, 149, 92, 167, 154, 154,
        154, 154, 154, 154, 139, 139,
        125, 110, 124, 110, 95, 94, 125, 111, 111, 79, 125, 126, 111, 111, 79, 108, 123, 93,
        125, 110, 124, 110, 95, 94, 125, 111, 111, 79, 125, 126, 111, 111, 79, 108, 123, 93,
        121, 140, 61, 154,
        170, 154, 139, 153, 139, 123, 123, 63, 124, 166, 183, 140, 136, 153, 154, 166, 183, 140, 136, 153, 154, 166,
        183, 140, 136, 153, 154, 170, 153, 138, 138, 122, 121, 122, 121, 167, 151, 183, 140, 151, 183, 140, 140, 140,
        154, 196, 167, 167, 154, 152, 167, 182, 182, 134, 149, 136, 153, 121, 136, 122, 169, 208, 166, 167, 154, 152,
        167, 182,
        107, 167, 91, 107, 107, 167,
    },
};

// Scan orders (6.5.3-6.5.5): [scanIdx][log2 size 0..3][position] -> x | y << 4.
static uint8_t scan_order[3][4][64];
static const uint8_t sig_ctx_4x4[16] = {0, 1, 4, 5, 2, 3, 4, 5, 6, 6, 8, 8, 7, 7, 8, 8};
// For blocks larger than 4x4, by which neighbouring subblocks are coded (right | below << 1), per raster position
// in the subblock: 2, 1 or 0 as 9.3.4.2.5 derives them.
static uint8_t sig_ctx_pattern[4][16];
// Raster position (y * 4 + x) of each scan position in a 4x4 subblock, per scan order.
static uint8_t pos_raster[3][16];

static void build_scan_orders(void) {
    for (int log2 = 0; log2 < 4; log2++) {
        int size = 1 << log2, i = 0, x = 0, y = 0;
        while (i < size * size) {               // up-right diagonal
            while (y >= 0) {
                if (x < size && y < size) scan_order[0][log2][i++] = (uint8_t)(x | (y << 4));
                y--; x++;
            }
            y = x; x = 0;
        }
        for (int k = 0; k < size * size; k++) {
            scan_order[1][log2][k] = (uint8_t)((k % size) | ((k / size) << 4));   // horizontal
            scan_order[2][log2][k] = (uint8_t)((k / size) | ((k % size) << 4));   // vertical
        }
    }
}

enum { PART_2Nx2N, PART_2NxN, PART_Nx2N, PART_NxN, PART_2NxnU, PART_2NxnD, PART_nLx2N, PART_nRx2N };
enum { SLICE_B = 0, SLICE_P = 1, SLICE_I = 2 };
enum { NOT_INTRA = 255 };

typedef struct {
    int slice_type, slice_addr_rs, qp, init_type;
    int sao_luma, sao_chroma;
    int num_ref[2], mvd_l1_zero, max_merge_cand;
    int cu_chroma_qp_offset_enabled;
} SliceHeader;

// What one picture's slice segments share.
typedef struct {
    int active, tracking;          // a picture in progress; all its segments checked so far
    HEVCSPS sps;                   // copies: a parameter set may be replaced between pictures
    HEVCPPS pps;
    int pps_id;
    int ctb_w, ctb_h, ctbs, grid_w, grid_h;
    int *rs_to_ts, *ts_to_rs, *tile_id, *ctb_slice;
    int col_bd[MAX_TILES + 1], row_bd[MAX_TILES + 1];
    uint8_t *depth, *skip, *ipm;   // per 4x4 luma block
    int next_ts;                   // where the next slice segment must start
    SliceHeader sh;                // of the current independent slice segment
    int have_sh;
    uint16_t wpp_ctx[CTX_COUNT], ds_ctx[CTX_COUNT];   // uint16_t: see Parser.ctx
    size_t capacity_ctbs, capacity_grid;
} Picture;

struct sdrify_hevc_check {
    SliceCheckStream stream;       // first: see slice_check_codec.h
    HEVCSPS sps[MAX_SPS];
    HEVCPPS pps[MAX_PPS];
    RBSPBuffer buf;
    Picture pic;
};

// ---- the slice-data parser ----

typedef struct {
    Picture *pic;
    const HEVCSPS *sps;
    const HEVCPPS *pps;
    const SliceHeader *sh;
    BitReader br;                  // the slice's RBSP; br.pos is not used while the arithmetic decoder runs
    CabacEngine e;
    // Context states as uint16_t (see cabac_bin).
    uint16_t ctx[CTX_COUNT];
    const char *error;
    const char *unchecked;         // set (with error) when the slice uses a path left unchecked
    int slice_addr;
    int ctb_rs, ctb_ts;
    int cu_transquant_bypass, cu_intra, part, intra_split, max_trafo_depth, chroma_mode;
    int qp_delta_coded, chroma_qp_offset_coded;
    int log2_qg, log2_cqg;
} Parser;

static inline void fail(Parser *p, const char *why) { if (!p->error) p->error = why; }

static void init_contexts(Parser *p) {
    int qp = p->sh->qp;
    const uint8_t *iv = init_values[p->sh->init_type];
    for (int i = 0; i < CTX_COUNT; i++) {
        int m = (iv[i] >> 4) * 5 - 45, n = ((iv[i] & 15) << 3) - 16;
        p->ctx[i] = cabac_initial_state(m, n, qp);
    }
}

static inline size_t bit_position(const Parser *p) { return cabac_position(&p->e); }

static void seek(Parser *p, size_t byte) { cabac_seek(&p->e, byte); }

static void init_engine(Parser *p) {
    if (cabac_start(&p->e)) fail(p, "invalid arithmetic decoder start");
}

static inline __attribute__((always_inline)) int bin(Parser *p, int ci) { return cabac_bin(&p->e, &p->ctx[ci]); }

static inline __attribute__((always_inline)) int bypass(Parser *p) { return cabac_bypass(&p->e); }

static inline uint32_t bypass_bits(Parser *p, int n) { return cabac_bypass_bits(&p->e, n); }

static inline int terminate(Parser *p) { return cabac_terminate(&p->e); }

static uint32_t exp_golomb_bypass(Parser *p, int k) {
    uint32_t v = 0;
    while (bypass(p)) {
        v += 1u << k;
        if (++k > 20) { fail(p, "exp-Golomb code too long"); return 0; }
    }
    return v + bypass_bits(p, k);
}

static size_t check_stop(Parser *p) {
    const char *why = NULL;
    size_t byte = cabac_stop(&p->e, 1, &why);
    if (why) { fail(p, why); return p->br.size; }
    return byte;
}

static inline int grid_index(const Parser *p, int x, int y) { return (y >> 2) * p->pic->grid_w + (x >> 2); }

// 6.4.1: a left or above neighbour is available when inside the picture, in the same slice and tile, and
// already decoded (its CTB's slice address was set when the CTB was started).
static inline int available(const Parser *p, int x, int y) {
    if (x < 0 || y < 0 || x >= p->sps->width || y >= p->sps->height) return 0;
    const Picture *pic = p->pic;
    int ctb = (y >> p->sps->log2_ctb) * pic->ctb_w + (x >> p->sps->log2_ctb);
    return pic->ctb_slice[ctb] == p->slice_addr && pic->tile_id[pic->rs_to_ts[ctb]] == pic->tile_id[p->ctb_ts];
}

static void fill(const Parser *p, uint8_t *grid, int x0, int y0, int size, uint8_t value) {
    int w = size >> 2, gw = p->pic->grid_w;
    int xs = x0 >> 2, ys = y0 >> 2;
    int wmax = p->pic->grid_w - xs, hmax = p->pic->grid_h - ys;
    if (w > wmax) w = wmax;
    int h = size >> 2;
    if (h > hmax) h = hmax;
    for (int j = 0; j < h; j++) memset(grid + (size_t)(ys + j) * gw + xs, value, (size_t)w);
}

static void sao(Parser *p, int rx, int ry) {
    const Picture *pic = p->pic;
    int rs = p->ctb_rs, merge = 0;
    if (rx > 0 && rs > p->slice_addr && pic->tile_id[p->ctb_ts] == pic->tile_id[pic->rs_to_ts[rs - 1]])
        merge = bin(p, CTX_SAO_MERGE);
    if (!merge && ry > 0 && rs - pic->ctb_w >= p->slice_addr && pic->tile_id[p->ctb_ts] == pic->tile_id[pic->rs_to_ts[rs - pic->ctb_w]])
        merge = bin(p, CTX_SAO_MERGE);
    if (merge) return;
    int chroma_type = 0;
    for (int c = 0; c < (p->sps->chroma_array_type ? 3 : 1); c++) {
        if (!((p->sh->sao_luma && c == 0) || (p->sh->sao_chroma && c > 0))) continue;
        int type;
        if (c < 2) {
            type = bin(p, CTX_SAO_TYPE) ? (bypass(p) ? 2 : 1) : 0;
            if (c == 1) chroma_type = type;
        } else {
            type = chroma_type;
        }
        if (!type) continue;
        int depth = c ? p->sps->bit_depth_chroma : p->sps->bit_depth_luma;
        int cmax = (1 << ((depth < 10 ? depth : 10) - 5)) - 1, abs_nonzero[4];
        for (int i = 0; i < 4; i++) {
            int v = 0;
            while (v < cmax && bypass(p)) v++;
            abs_nonzero[i] = v != 0;
        }
        if (type == 1) {
            for (int i = 0; i < 4; i++) if (abs_nonzero[i]) bypass(p);
            bypass_bits(p, 5);
        } else if (c < 2) {
            bypass_bits(p, 2);
        }
    }
}

/// The unary prefix of coeff_abs_level_remaining (bypass bins, up to 32): 16 bins are divided out at once and
/// only those up to the first 0 are consumed.
static inline int unary_bypass_prefix(Parser *p) {
    int prefix = 0;
    while (prefix < 32) {
        CabacEngine *e = &p->e;
        if (e->cache_bits < 16) cabac_refill(e);
        uint32_t scaled = (e->offset << 16) | (uint32_t)(e->cache >> 48);
        uint32_t q = scaled / e->range;                     // the next 16 bins, first bin highest
        int ones = __builtin_clz(~(q << 16) | 0x8000u);   // leading ones among the 16 (at most 16)
        if (ones > 16) ones = 16;
        int used = ones < 16 ? ones + 1 : 16;
        uint32_t bins = q >> (16 - used);
        e->offset = ((e->offset << used) | cabac_take(e, used)) - bins * e->range;
        prefix += ones;
        if (ones < 16) return prefix;
    }
    return prefix;
}

static int coeff_abs_level_remaining(Parser *p, int rice) {
    int prefix = unary_bypass_prefix(p);
    if (prefix > 32) prefix = 32;
    if (prefix <= 3) return (prefix << rice) + (int)bypass_bits(p, rice);
    if (prefix - 3 + rice > 22) { fail(p, "coefficient code too long"); return 0; }
    return (((1 << (prefix - 3)) + 2) << rice) + (int)bypass_bits(p, prefix - 3 + rice);
}

static int scan_index(const Parser *p, int x0, int y0, int log2, int c) {
    if (!p->cu_intra || !(log2 == 2 || (log2 == 3 && c == 0))) return 0;
    int mode = c == 0 ? p->pic->ipm[grid_index(p, x0, y0)] : p->chroma_mode;
    if (mode >= 6 && mode <= 14) return 2;
    if (mode >= 22 && mode <= 30) return 1;
    return 0;
}

// Where most of the time goes (coefficients): a clone for CPUs with LZCNT/BMI2 (renormalisation), as CKernels does.
#if defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void residual_coding(Parser *p, int x0, int y0, int log2, int c) {
    if (p->pps->transform_skip && !p->cu_transquant_bypass && log2 <= p->pps->log2_max_ts_size)
        bin(p, CTX_TRANSFORM_SKIP + (c ? 1 : 0));
    int cmax = (log2 << 1) - 1, off, shift;
    if (c == 0) { off = 3 * (log2 - 2) + ((log2 - 1) >> 2); shift = (log2 + 1) >> 2; }
    else { off = 15; shift = log2 - 2; }
    int px = 0, py = 0;
    while (px < cmax && bin(p, CTX_LAST_X + off + (px >> shift))) px++;
    while (py < cmax && bin(p, CTX_LAST_Y + off + (py >> shift))) py++;
    int lx = px, ly = py;
    if (px > 3) { int n = (px >> 1) - 1; lx = (1 << n) * (2 + (px & 1)) + (int)bypass_bits(p, n); }
    if (py > 3) { int n = (py >> 1) - 1; ly = (1 << n) * (2 + (py & 1)) + (int)bypass_bits(p, n); }
    int scan = scan_index(p, x0, y0, log2, c);
    if (scan == 2) { int t = lx; lx = ly; ly = t; }

    int log2sb = log2 - 2, sbw = 1 << log2sb;
    const uint8_t *sb_scan = scan_order[scan][log2sb], *pos_scan = scan_order[scan][2];
    int last_sb = 0, last_pos = 0;
    int want_sb = (lx >> 2) | ((ly >> 2) << 4), want_pos = (lx & 3) | ((ly & 3) << 4);
    for (int i = 0; i < sbw * sbw; i++) if (sb_scan[i] == want_sb) { last_sb = i; break; }
    for (int i = 0; i < 16; i++) if (pos_scan[i] == want_pos) { last_pos = i; break; }

    uint16_t csbf[64] = {0};   // not uint8_t: see Parser.ctx
    int greater1_ctx = 1;
    for (int i = last_sb; i >= 0 && !p->error; i--) {
        int xs = sb_scan[i] & 15, ys = sb_scan[i] >> 4;
        int right = xs < sbw - 1 ? csbf[ys * 8 + xs + 1] : 0, below = ys < sbw - 1 ? csbf[(ys + 1) * 8 + xs] : 0;
        int coded = 1, infer_dc = 0;
        if (i < last_sb && i > 0) {
            coded = bin(p, CTX_CSBF + ((right | below) ? 1 : 0) + (c ? 2 : 0));
            infer_dc = 1;
        }
        csbf[ys * 8 + xs] = (uint16_t)coded;
        int sig[16], nsig = 0;
        if (i == last_sb) sig[nsig++] = last_pos;
        if (coded) {
            // sig_coeff_flag contexts (9.3.4.2.5): a per-subblock table plus a per-subblock offset.
            const uint8_t *table = log2 == 2 ? sig_ctx_4x4 : sig_ctx_pattern[right | (below << 1)];
            int add = c ? 27 : 0;
            if (log2 > 2) {
                if (c == 0) add += ((xs | ys) ? 3 : 0) + (log2 == 3 ? (scan == 0 ? 9 : 15) : 21);
                else add += log2 == 3 ? 9 : 12;
            }
            int dc_special = log2 > 2 && i == 0;   // the transform block's first coefficient has a context of its own
            const uint8_t *raster = pos_raster[scan];
            // No branch on the flags (they are as unpredictable as the picture): every position is written to
            // the next free slot, which only a significant one takes.
            for (int n = (i == last_sb ? last_pos - 1 : 15); n > 0; n--) {
                int r = raster[n];
                int s = bin(p, CTX_SIG + table[r] + add);
                sig[nsig] = n;
                nsig += s;
                infer_dc &= !s;
            }
            if (i != last_sb || last_pos > 0) {   // position 0, unless it was the last position itself
                int s = 1;
                if (!infer_dc) s = bin(p, CTX_SIG + (dc_special ? (c ? 27 : 0) : table[raster[0]] + add));
                sig[nsig] = 0;
                nsig += s;
            }
        }
        if (nsig == 0) continue;
        int ctx_set = (i == 0 || c > 0) ? 0 : 2;
        if (i != last_sb && greater1_ctx == 0) ctx_set++;
        greater1_ctx = 1;
        int g1[8] = {0}, first_g1 = -1;
        for (int k = 0; k < nsig && k < 8; k++) {   // branch-free too: selects, not ifs
            int b = bin(p, CTX_GT1 + ctx_set * 4 + greater1_ctx + (c ? 16 : 0));
            g1[k] = b;
            first_g1 = (b && first_g1 < 0) ? k : first_g1;
            greater1_ctx = b ? 0 : greater1_ctx + (greater1_ctx > 0 && greater1_ctx < 3);
        }
        int g2 = first_g1 >= 0 ? bin(p, CTX_GT2 + ctx_set + (c ? 4 : 0)) : 0;
        int hidden = p->pps->sign_hiding && !p->cu_transquant_bypass && sig[0] - sig[nsig - 1] > 3;
        bypass_bits(p, hidden ? nsig - 1 : nsig);
        int rice = 0;
        for (int k = 0; k < nsig; k++) {
            int base = 1 + (k < 8 ? g1[k] : 0) + (k == first_g1 ? g2 : 0);
            if (base == (k < 8 ? (k == first_g1 ? 3 : 2) : 1)) {
                int rem = coeff_abs_level_remaining(p, rice);
                if (base + rem > 3 * (1 << rice) && rice < 4) rice++;
            }
        }
    }
}

static void transform_unit(Parser *p, int x0, int y0, int xb, int yb, int log2, int blk, int cbf_luma, int cbf_cb, int cbf_cr) {
    int cbf_chroma = cbf_cb || cbf_cr;
    if (!cbf_luma && !cbf_chroma) return;
    if (p->pps->cu_qp_delta && !p->qp_delta_coded) {
        int v = 0;
        if (bin(p, CTX_CU_QP_DELTA)) {
            v = 1;
            while (v < 5 && bin(p, CTX_CU_QP_DELTA + 1)) v++;
            if (v == 5) v += (int)exp_golomb_bypass(p, 0);
        }
        if (v) bypass(p);
        p->qp_delta_coded = 1;
    }
    if (p->sh->cu_chroma_qp_offset_enabled && cbf_chroma && !p->cu_transquant_bypass && !p->chroma_qp_offset_coded) {
        if (bin(p, CTX_CHROMA_QP_OFFSET_FLAG) && p->pps->chroma_qp_offset_list_len > 1) {
            int i = 0;
            while (i < p->pps->chroma_qp_offset_list_len - 1 && bin(p, CTX_CHROMA_QP_OFFSET_IDX)) i++;
        }
        p->chroma_qp_offset_coded = 1;
    }
    if (cbf_luma) residual_coding(p, x0, y0, log2, 0);
    if (log2 > 2) {
        if (cbf_cb) residual_coding(p, x0, y0, log2 - 1, 1);
        if (cbf_cr) residual_coding(p, x0, y0, log2 - 1, 2);
    } else if (blk == 3) {
        if (cbf_cb) residual_coding(p, xb, yb, 2, 1);
        if (cbf_cr) residual_coding(p, xb, yb, 2, 2);
    }
}

static void transform_tree(Parser *p, int x0, int y0, int xb, int yb, int log2, int depth, int blk, int parent_cb, int parent_cr) {
    if (p->error) return;
    const HEVCSPS *sps = p->sps;
    int split;
    if (log2 <= sps->log2_max_tb && log2 > sps->log2_min_tb && depth < p->max_trafo_depth && !(p->intra_split && depth == 0)) {
        split = bin(p, CTX_SPLIT_TRANSFORM + 5 - log2);
    } else {
        int inter_split = sps->max_th_depth_inter == 0 && !p->cu_intra && p->part != PART_2Nx2N && depth == 0;
        split = log2 > sps->log2_max_tb || (p->intra_split && depth == 0) || inter_split;
    }
    int cbf_cb = 0, cbf_cr = 0;
    if (sps->chroma_array_type != 0) {
        if (log2 > 2) {
            if (depth == 0 || parent_cb) cbf_cb = bin(p, CTX_CBF_CHROMA + depth);
            if (depth == 0 || parent_cr) cbf_cr = bin(p, CTX_CBF_CHROMA + depth);
        } else {
            cbf_cb = parent_cb; cbf_cr = parent_cr;   // 4x4 luma: chroma is coded with the fourth block
        }
    }
    if (split) {
        int h = 1 << (log2 - 1);
        transform_tree(p, x0, y0, x0, y0, log2 - 1, depth + 1, 0, cbf_cb, cbf_cr);
        transform_tree(p, x0 + h, y0, x0, y0, log2 - 1, depth + 1, 1, cbf_cb, cbf_cr);
        transform_tree(p, x0, y0 + h, x0, y0, log2 - 1, depth + 1, 2, cbf_cb, cbf_cr);
        transform_tree(p, x0 + h, y0 + h, x0, y0, log2 - 1, depth + 1, 3, cbf_cb, cbf_cr);
    } else {
        int cbf_luma = 1;
        if (p->cu_intra || depth != 0 || cbf_cb || cbf_cr) cbf_luma = bin(p, CTX_CBF_LUMA + (depth == 0 ? 1 : 0));
        transform_unit(p, x0, y0, xb, yb, log2, blk, cbf_luma, cbf_cb, cbf_cr);
    }
}

static void mvd_coding(Parser *p) {
    int g0x = bin(p, CTX_MVD_GT0), g0y = bin(p, CTX_MVD_GT0);
    int g1x = g0x ? bin(p, CTX_MVD_GT1) : 0, g1y = g0y ? bin(p, CTX_MVD_GT1) : 0;
    if (g0x) { if (g1x) exp_golomb_bypass(p, 1); bypass(p); }
    if (g0y) { if (g1y) exp_golomb_bypass(p, 1); bypass(p); }
}

static void merge_idx(Parser *p) {
    int max = p->sh->max_merge_cand;
    if (max > 1 && bin(p, CTX_MERGE_IDX)) {
        int i = 1;
        while (i < max - 1 && bypass(p)) i++;
    }
}

static void ref_idx(Parser *p, int count) {
    int i = 0;
    while (i < count - 1) {
        int b = i < 2 ? bin(p, CTX_REF_IDX + i) : bypass(p);
        if (!b) break;
        i++;
    }
}

/// Returns the merge flag.
static int prediction_unit(Parser *p, int w, int h, int ct_depth) {
    if (bin(p, CTX_MERGE_FLAG)) { merge_idx(p); return 1; }
    enum { L0, L1, BI } pred = L0;
    if (p->sh->slice_type == SLICE_B) {
        if (w + h != 12 && bin(p, CTX_INTER_PRED + ct_depth)) pred = BI;
        else pred = bin(p, CTX_INTER_PRED + 4) ? L1 : L0;
    }
    if (pred != L1) {
        if (p->sh->num_ref[0] > 1) ref_idx(p, p->sh->num_ref[0]);
        mvd_coding(p);
        bin(p, CTX_MVP);
    }
    if (pred != L0) {
        if (p->sh->num_ref[1] > 1) ref_idx(p, p->sh->num_ref[1]);
        if (!(p->sh->mvd_l1_zero && pred == BI)) mvd_coding(p);
        bin(p, CTX_MVP);
    }
    return 0;
}

static int part_mode(Parser *p, int intra, int log2) {
    if (bin(p, CTX_PART_MODE)) return PART_2Nx2N;
    if (intra) return PART_NxN;
    if (log2 == p->sps->log2_min_cb) {
        if (bin(p, CTX_PART_MODE + 1)) return PART_2NxN;
        if (log2 == 3) return PART_Nx2N;
        return bin(p, CTX_PART_MODE + 2) ? PART_Nx2N : PART_NxN;
    }
    if (!p->sps->amp) return bin(p, CTX_PART_MODE + 1) ? PART_2NxN : PART_Nx2N;
    if (bin(p, CTX_PART_MODE + 1)) {
        if (bin(p, CTX_PART_MODE + 3)) return PART_2NxN;
        return bypass(p) ? PART_2NxnD : PART_2NxnU;
    }
    if (bin(p, CTX_PART_MODE + 3)) return PART_Nx2N;
    return bypass(p) ? PART_nRx2N : PART_nLx2N;
}

// 8.4.2: the luma intra mode from the most probable modes of the left and above neighbours.
static int luma_mode(Parser *p, int x, int y, int prev, int code) {
    int a = 1, b = 1;
    if (available(p, x - 1, y)) { int m = p->pic->ipm[grid_index(p, x - 1, y)]; a = m == NOT_INTRA ? 1 : m; }
    if (available(p, x, y - 1) && y - 1 >= ((y >> p->sps->log2_ctb) << p->sps->log2_ctb)) {
        int m = p->pic->ipm[grid_index(p, x, y - 1)];
        b = m == NOT_INTRA ? 1 : m;
    }
    int list[3];
    if (a == b) {
        if (a < 2) { list[0] = 0; list[1] = 1; list[2] = 26; }
        else { list[0] = a; list[1] = 2 + ((a + 29) % 32); list[2] = 2 + ((a - 2 + 1) % 32); }
    } else {
        list[0] = a; list[1] = b;
        list[2] = (a != 0 && b != 0) ? 0 : ((a != 1 && b != 1) ? 1 : 26);
    }
    if (prev) return list[code];
    for (int i = 0; i < 2; i++)
        for (int j = i + 1; j < 3; j++)
            if (list[i] > list[j]) { int t = list[i]; list[i] = list[j]; list[j] = t; }
    int mode = code;
    for (int i = 0; i < 3; i++) if (mode >= list[i]) mode++;
    return mode;
}

static void coding_unit(Parser *p, int x0, int y0, int log2, int ct_depth) {
    const HEVCSPS *sps = p->sps;
    Picture *pic = p->pic;
    int size = 1 << log2;
    p->cu_transquant_bypass = p->pps->transquant_bypass ? bin(p, CTX_TRANSQUANT_BYPASS) : 0;
    int skip = 0;
    if (p->sh->slice_type != SLICE_I) {
        int inc = (available(p, x0 - 1, y0) && pic->skip[grid_index(p, x0 - 1, y0)]) +
                  (available(p, x0, y0 - 1) && pic->skip[grid_index(p, x0, y0 - 1)]);
        skip = bin(p, CTX_SKIP + inc);
    }
    fill(p, pic->depth, x0, y0, size, (uint8_t)ct_depth);
    fill(p, pic->skip, x0, y0, size, (uint8_t)skip);
    fill(p, pic->ipm, x0, y0, size, NOT_INTRA);
    if (skip) { merge_idx(p); return; }
    int intra = p->sh->slice_type == SLICE_I ? 1 : bin(p, CTX_PRED_MODE);
    int part = PART_2Nx2N, merge0 = 0;
    if (!intra || log2 == sps->log2_min_cb) part = part_mode(p, intra, log2);
    p->cu_intra = intra; p->part = part;
    if (intra) {
        if (part == PART_2Nx2N && sps->pcm && log2 >= sps->log2_min_pcm && log2 <= sps->log2_max_pcm && terminate(p)) {
            p->unchecked = "PCM samples";  // no encoder here makes them: that path stays unverified
            p->error = p->unchecked;
            return;
        }
        int n = part == PART_NxN ? 4 : 1, pb = part == PART_NxN ? size / 2 : size, prev[4], first = 0;
        for (int i = 0; i < n; i++) prev[i] = bin(p, CTX_PREV_INTRA);
        for (int i = 0; i < n; i++) {
            int code = prev[i] ? (bypass(p) ? (bypass(p) ? 2 : 1) : 0) : (int)bypass_bits(p, 5);
            int xp = x0 + (i & 1) * pb, yp = y0 + (i >> 1) * pb;
            int mode = luma_mode(p, xp, yp, prev[i], code);
            if (i == 0) first = mode;
            fill(p, pic->ipm, xp, yp, pb, (uint8_t)mode);
        }
        if (sps->chroma_array_type) {
            int icpm = bin(p, CTX_CHROMA_PRED) ? (int)bypass_bits(p, 2) : 4;
            static const int candidates[4] = {0, 26, 10, 1};
            p->chroma_mode = icpm == 4 ? first : (candidates[icpm] == first ? 34 : candidates[icpm]);
        }
    } else {
        int q = size / 4, h = size / 2;
        switch (part) {
        case PART_2Nx2N: merge0 = prediction_unit(p, size, size, ct_depth); break;
        case PART_2NxN: merge0 = prediction_unit(p, size, h, ct_depth); prediction_unit(p, size, h, ct_depth); break;
        case PART_Nx2N: merge0 = prediction_unit(p, h, size, ct_depth); prediction_unit(p, h, size, ct_depth); break;
        case PART_2NxnU: merge0 = prediction_unit(p, size, q, ct_depth); prediction_unit(p, size, size - q, ct_depth); break;
        case PART_2NxnD: merge0 = prediction_unit(p, size, size - q, ct_depth); prediction_unit(p, size, q, ct_depth); break;
        case PART_nLx2N: merge0 = prediction_unit(p, q, size, ct_depth); prediction_unit(p, size - q, size, ct_depth); break;
        case PART_nRx2N: merge0 = prediction_unit(p, size - q, size, ct_depth); prediction_unit(p, q, size, ct_depth); break;
        default:
            merge0 = prediction_unit(p, h, h, ct_depth);
            for (int i = 1; i < 4; i++) prediction_unit(p, h, h, ct_depth);
        }
    }
    int root = 1;
    if (!intra && !(part == PART_2Nx2N && merge0)) root = bin(p, CTX_ROOT_CBF);
    if (!root) return;
    p->intra_split = intra && part == PART_NxN;
    p->max_trafo_depth = intra ? sps->max_th_depth_intra + p->intra_split : sps->max_th_depth_inter;
    transform_tree(p, x0, y0, x0, y0, log2, 0, 0, 0, 0);
}

static void coding_quadtree(Parser *p, int x0, int y0, int log2, int depth) {
    if (p->error) return;
    const HEVCSPS *sps = p->sps;
    int size = 1 << log2, split;
    if (x0 + size <= sps->width && y0 + size <= sps->height && log2 > sps->log2_min_cb) {
        int inc = (available(p, x0 - 1, y0) && p->pic->depth[grid_index(p, x0 - 1, y0)] > depth) +
                  (available(p, x0, y0 - 1) && p->pic->depth[grid_index(p, x0, y0 - 1)] > depth);
        split = bin(p, CTX_SPLIT_CU + inc);
    } else {
        split = log2 > sps->log2_min_cb;
    }
    if (p->pps->cu_qp_delta && log2 >= p->log2_qg) p->qp_delta_coded = 0;
    if (p->sh->cu_chroma_qp_offset_enabled && log2 >= p->log2_cqg) p->chroma_qp_offset_coded = 0;
    if (split) {
        int h = size >> 1;
        coding_quadtree(p, x0, y0, log2 - 1, depth + 1);
        if (x0 + h < sps->width) coding_quadtree(p, x0 + h, y0, log2 - 1, depth + 1);
        if (y0 + h < sps->height) coding_quadtree(p, x0, y0 + h, log2 - 1, depth + 1);
        if (x0 + h < sps->width && y0 + h < sps->height) coding_quadtree(p, x0 + h, y0 + h, log2 - 1, depth + 1);
    } else {
        coding_unit(p, x0, y0, log2, depth);
    }
}

// ---- picture layout (6.5.1) ----

static int layout_picture(Picture *pic) {
    const HEVCSPS *sps = &pic->sps;
    const HEVCPPS *pps = &pic->pps;
    int cw = (sps->width + (1 << sps->log2_ctb) - 1) >> sps->log2_ctb, ch = (sps->height + (1 << sps->log2_ctb) - 1) >> sps->log2_ctb;
    int ctbs = cw * ch;
    if (pps->num_tile_cols > cw || pps->num_tile_rows > ch) return -1;
    int gw = (sps->width + 3) >> 2, gh = (sps->height + 3) >> 2;
    if ((size_t)ctbs > pic->capacity_ctbs) {
        free(pic->rs_to_ts); free(pic->ts_to_rs); free(pic->tile_id); free(pic->ctb_slice);
        pic->rs_to_ts = malloc(sizeof(int) * (size_t)ctbs); pic->ts_to_rs = malloc(sizeof(int) * (size_t)ctbs);
        pic->tile_id = malloc(sizeof(int) * (size_t)ctbs); pic->ctb_slice = malloc(sizeof(int) * (size_t)ctbs);
        pic->capacity_ctbs = pic->rs_to_ts && pic->ts_to_rs && pic->tile_id && pic->ctb_slice ? (size_t)ctbs : 0;
        if (!pic->capacity_ctbs) return -1;
    }
    if ((size_t)gw * (size_t)gh > pic->capacity_grid) {
        free(pic->depth); free(pic->skip); free(pic->ipm);
        size_t n = (size_t)gw * (size_t)gh;
        pic->depth = malloc(n); pic->skip = malloc(n); pic->ipm = malloc(n);
        pic->capacity_grid = pic->depth && pic->skip && pic->ipm ? n : 0;
        if (!pic->capacity_grid) return -1;
    }
    pic->ctb_w = cw; pic->ctb_h = ch; pic->ctbs = ctbs; pic->grid_w = gw; pic->grid_h = gh;
    int col_w[MAX_TILES], row_h[MAX_TILES];
    int cols = pps->num_tile_cols, rows = pps->num_tile_rows;
    if (pps->uniform_spacing) {
        for (int i = 0; i < cols; i++) col_w[i] = ((i + 1) * cw) / cols - (i * cw) / cols;
        for (int j = 0; j < rows; j++) row_h[j] = ((j + 1) * ch) / rows - (j * ch) / rows;
    } else {
        int used = 0;
        for (int i = 0; i < cols - 1; i++) { col_w[i] = pps->col_width[i]; used += col_w[i]; }
        if (used >= cw) return -1;
        col_w[cols - 1] = cw - used;
        used = 0;
        for (int j = 0; j < rows - 1; j++) { row_h[j] = pps->row_height[j]; used += row_h[j]; }
        if (used >= ch) return -1;
        row_h[rows - 1] = ch - used;
    }
    pic->col_bd[0] = pic->row_bd[0] = 0;
    for (int i = 0; i < cols; i++) pic->col_bd[i + 1] = pic->col_bd[i] + col_w[i];
    for (int j = 0; j < rows; j++) pic->row_bd[j + 1] = pic->row_bd[j] + row_h[j];
    for (int rs = 0; rs < ctbs; rs++) {
        int tx = rs % cw, ty = rs / cw, tile_x = 0, tile_y = 0;
        for (int i = 0; i < cols; i++) if (tx >= pic->col_bd[i]) tile_x = i;
        for (int j = 0; j < rows; j++) if (ty >= pic->row_bd[j]) tile_y = j;
        int v = 0;
        for (int i = 0; i < tile_x; i++) v += row_h[tile_y] * col_w[i];
        for (int j = 0; j < tile_y; j++) v += cw * row_h[j];
        v += (ty - pic->row_bd[tile_y]) * col_w[tile_x] + tx - pic->col_bd[tile_x];
        pic->rs_to_ts[rs] = v;
        pic->ts_to_rs[v] = rs;
    }
    for (int j = 0, id = 0; j < rows; j++)
        for (int i = 0; i < cols; i++, id++)
            for (int y = pic->row_bd[j]; y < pic->row_bd[j + 1]; y++)
                for (int x = pic->col_bd[i]; x < pic->col_bd[i + 1]; x++)
                    pic->tile_id[pic->rs_to_ts[y * cw + x]] = id;
    for (int i = 0; i < ctbs; i++) pic->ctb_slice[i] = -1;
    return 0;
}

// ---- slice segments ----

typedef struct {
    int first_in_pic, dependent, address;
    size_t data_start;             // RBSP byte where slice data begins
    int entry_points;
    uint32_t entry_offsets[512];   // bytes, NAL payload coordinates (emulation prevention included)
} SegmentHeader;

static void skip_pred_weight_table(BitReader *b, const HEVCSPS *sps, const SliceHeader *sh) {
    br_ue(b);
    if (sps->chroma_array_type) br_se(b);
    for (int list = 0; list < (sh->slice_type == SLICE_B ? 2 : 1); list++) {
        int n = sh->num_ref[list], luma[16], chroma[16] = {0};
        for (int i = 0; i < n; i++) luma[i] = br_flag(b);
        if (sps->chroma_array_type) for (int i = 0; i < n; i++) chroma[i] = br_flag(b);
        for (int i = 0; i < n; i++) {
            if (luma[i]) { br_se(b); br_se(b); }
            if (chroma[i]) { br_se(b); br_se(b); br_se(b); br_se(b); }
        }
    }
}

/// 7.3.6.1. Returns NULL when read, else why the segment cannot be checked; a reason starting with '!' is a
/// header the active parameter sets make impossible (damage: libavcodec decodes such slices with wrong fields).
static const char *parse_segment_header(sdrify_hevc_check *c, BitReader *b, int nal_type, SegmentHeader *seg,
                                        SliceHeader *sh) {
    Picture *pic = &c->pic;
    seg->first_in_pic = br_flag(b);
    if (nal_type >= 16 && nal_type <= 23) br_flag(b);
    uint32_t pps_id = br_ue(b);
    if (pps_id >= MAX_PPS || !c->pps[pps_id].valid) return "missing picture parameter set";
    const HEVCPPS *pps = &c->pps[pps_id];
    if (!c->sps[pps->sps_id].valid) return "missing sequence parameter set";
    if (pps->unsupported) return pps->unsupported;
    if (c->sps[pps->sps_id].unsupported) return c->sps[pps->sps_id].unsupported;
    // What the check allocates follows the picture size: beyond 8K its cost is not worth a hostile header's.
    if ((int64_t)c->sps[pps->sps_id].width * c->sps[pps->sps_id].height > 8192 * 4352) return "picture larger than 8K";
    if (seg->first_in_pic) {
        pic->sps = c->sps[pps->sps_id];
        pic->pps = *pps;
        pic->pps_id = (int)pps_id;
        if (layout_picture(pic) < 0) return "tile layout";
        pic->active = 1; pic->tracking = 1; pic->next_ts = 0; pic->have_sh = 0;
    } else if (!pic->active || pic->pps_id != (int)pps_id) {
        return "a picture whose first slice was not seen";
    }
    const HEVCSPS *sps = &pic->sps;
    seg->dependent = 0;
    seg->address = 0;
    if (!seg->first_in_pic) {
        if (pps->dependent_slices) seg->dependent = br_flag(b);
        seg->address = (int)br_bits(b, ceil_log2((uint32_t)pic->ctbs));
        if (seg->address >= pic->ctbs) return "!slice header: address outside the picture";
    }
    if (seg->dependent) {
        if (!pic->have_sh) return "dependent slice segment without its slice";
        *sh = pic->sh;
    } else {
        memset(sh, 0, sizeof *sh);
        sh->slice_addr_rs = seg->address;
        br_bits(b, pps->num_extra_bits);
        uint32_t type = br_ue(b);
        if (type > 2) return "!slice header: impossible slice type";
        sh->slice_type = (int)type;
        if (pps->output_flag_present) br_flag(b);
        int num_pic_total = 0, temporal_mvp = 0;
        if (nal_type != 19 && nal_type != 20) {
            br_bits(b, sps->log2_max_poc_lsb);
            HEVCSPS *msps = &pic->sps;  // the slice's own set goes to st_rps[num_st_rps]
            const ShortTermRPS *rps = NULL;
            if (!br_flag(b)) {
                if (hevc_parse_st_rps(b, msps, msps->num_st_rps) < 0) return "!slice header: impossible reference picture set";
                rps = &msps->st_rps[msps->num_st_rps];
            } else {
                if (msps->num_st_rps == 0) return "!slice header: impossible reference picture set";
                uint32_t idx = msps->num_st_rps > 1 ? br_bits(b, ceil_log2((uint32_t)msps->num_st_rps)) : 0;
                if (idx >= (uint32_t)msps->num_st_rps) return "!slice header: impossible reference picture set";
                rps = &msps->st_rps[idx];
            }
            for (int i = 0; i < rps->num_negative + rps->num_positive; i++) num_pic_total += rps->used[i];
            if (sps->long_term_present) {
                uint32_t n_sps = 0;
                if (sps->num_lt_sps > 0) n_sps = br_ue(b);
                uint32_t n_pics = br_ue(b);
                if (n_sps > (uint32_t)sps->num_lt_sps || n_pics > 32) return "!slice header: impossible long-term pictures";
                for (uint32_t i = 0; i < n_sps + n_pics; i++) {
                    if (i < n_sps) {
                        uint32_t idx = sps->num_lt_sps > 1 ? br_bits(b, ceil_log2((uint32_t)sps->num_lt_sps)) : 0;
                        if (idx >= (uint32_t)sps->num_lt_sps) return "!slice header: impossible long-term pictures";
                        num_pic_total += sps->lt_used_sps[idx];
                    } else {
                        br_bits(b, sps->log2_max_poc_lsb);
                        num_pic_total += br_flag(b);
                    }
                    if (br_flag(b)) br_ue(b);
                }
            }
            if (sps->temporal_mvp) temporal_mvp = br_flag(b);
        }
        if (sps->sao) {
            sh->sao_luma = br_flag(b);
            if (sps->chroma_array_type) sh->sao_chroma = br_flag(b);
        }
        if (sh->slice_type != SLICE_I) {
            sh->num_ref[0] = pps->num_ref_l0_default;
            sh->num_ref[1] = sh->slice_type == SLICE_B ? pps->num_ref_l1_default : 0;
            if (br_flag(b)) {
                uint32_t l0 = br_ue(b), l1 = sh->slice_type == SLICE_B ? br_ue(b) : 0;
                if (l0 > 14 || l1 > 14) return "!slice header: impossible reference counts";
                sh->num_ref[0] = (int)l0 + 1;
                if (sh->slice_type == SLICE_B) sh->num_ref[1] = (int)l1 + 1;
            }
            if (pps->lists_modification && num_pic_total > 1) {
                int bits = ceil_log2((uint32_t)num_pic_total);
                if (br_flag(b)) for (int i = 0; i < sh->num_ref[0]; i++) br_bits(b, bits);
                if (sh->slice_type == SLICE_B && br_flag(b)) for (int i = 0; i < sh->num_ref[1]; i++) br_bits(b, bits);
            }
            if (sh->slice_type == SLICE_B) sh->mvd_l1_zero = br_flag(b);
            int cabac_init = pps->cabac_init_present ? br_flag(b) : 0;
            sh->init_type = sh->slice_type == SLICE_P ? (cabac_init ? 2 : 1) : (cabac_init ? 1 : 2);
            if (temporal_mvp) {
                int from_l0 = sh->slice_type == SLICE_B ? br_flag(b) : 1;
                if ((from_l0 && sh->num_ref[0] > 1) || (!from_l0 && sh->num_ref[1] > 1)) br_ue(b);
            }
            if ((pps->weighted_pred && sh->slice_type == SLICE_P) || (pps->weighted_bipred && sh->slice_type == SLICE_B))
                skip_pred_weight_table(b, sps, sh);
            uint32_t five_minus = br_ue(b);
            if (five_minus > 4) return "!slice header: impossible merge candidate count";
            sh->max_merge_cand = 5 - (int)five_minus;
        }
        int32_t qp_delta = br_se(b);
        sh->qp = pps->init_qp + qp_delta;
        if (sh->qp < -6 * (sps->bit_depth_luma - 8) || sh->qp > 51) return "!slice header: QP out of range";
        if (pps->chroma_qp_offsets_present) { br_se(b); br_se(b); }
        if (pps->chroma_qp_offset_list) sh->cu_chroma_qp_offset_enabled = br_flag(b);
        int deblocking_disabled = pps->deblocking_disabled;
        if (pps->deblocking_override && br_flag(b)) {
            deblocking_disabled = br_flag(b);
            if (!deblocking_disabled) { br_se(b); br_se(b); }
        }
        if (pps->loop_filter_across_slices && (sh->sao_luma || sh->sao_chroma || !deblocking_disabled)) br_flag(b);
    }
    seg->entry_points = 0;
    if (pps->tiles || pps->wpp) {
        uint32_t n = br_ue(b);
        if (n >= (uint32_t)pic->ctbs) return "!slice header: impossible entry points";
        if (n > 512) return "more entry points than this check holds";
        seg->entry_points = (int)n;
        if (n > 0) {
            uint32_t len = br_ue(b) + 1;
            if (len > 32) return "!slice header: impossible entry points";
            for (uint32_t i = 0; i < n; i++) seg->entry_offsets[i] = br_bits32(b, (int)len) + 1;
        }
    }
    if (pps->slice_header_extension) {
        uint32_t len = br_ue(b);
        if (len > 256) return "!slice header: impossible extension";
        for (uint32_t i = 0; i < len; i++) br_bits(b, 8);
    }
    if (!br_flag(b)) return "!slice header: does not end on its alignment bit";
    while (b->pos & 7) br_flag(b);
    if (b->overrun || (b->pos >> 3) >= b->size) return "!slice header: runs past its data";
    seg->data_start = b->pos >> 3;
    return NULL;
}

static size_t nal_offset_of(const sdrify_hevc_check *c, size_t rbsp_offset) {
    size_t n = rbsp_offset;
    for (size_t i = 0; i < c->buf.removed_count && c->buf.removed[i] <= n; i++) n++;
    return n;
}

static size_t rbsp_offset_of(const sdrify_hevc_check *c, size_t nal_offset) {
    size_t removed = 0;
    for (size_t i = 0; i < c->buf.removed_count && c->buf.removed[i] < nal_offset; i++) removed++;
    return nal_offset - removed;
}

/// Parses one slice segment's data. Returns NULL, or what is wrong.
static const char *check_segment(sdrify_hevc_check *c, BitReader *b, const SegmentHeader *seg, const SliceHeader *sh,
                                 int *unchecked) {
    Picture *pic = &c->pic;
    Parser p;
    memset(&p, 0, sizeof p);
    p.pic = pic; p.sps = &pic->sps; p.pps = &pic->pps; p.sh = sh;
    p.br = *b;
    p.e.data = b->data; p.e.size = b->size;
    seek(&p, seg->data_start);
    p.slice_addr = sh->slice_addr_rs;
    p.log2_qg = pic->sps.log2_ctb - pic->pps.diff_cu_qp_delta_depth;
    p.log2_cqg = pic->sps.log2_ctb - pic->pps.diff_cu_chroma_qp_offset_depth;
    int ts = pic->rs_to_ts[seg->address];
    if (ts != pic->next_ts) return "a slice segment is missing";
    size_t substream_nal = nal_offset_of(c, seg->data_start);
    int subset = 0;
    init_engine(&p);
    const int w = pic->ctb_w, log2ctb = pic->sps.log2_ctb;
    for (int first = 1;; first = 0) {
        int rs = pic->ts_to_rs[ts];
        p.ctb_rs = rs; p.ctb_ts = ts;
        int first_in_tile = ts == 0 || pic->tile_id[ts] != pic->tile_id[ts - 1];
        int row_start = rs % w == 0 || pic->tile_id[ts] != pic->tile_id[pic->rs_to_ts[rs - 1]];
        pic->ctb_slice[rs] = p.slice_addr;
        if (first_in_tile) {
            init_contexts(&p);
        } else if (pic->pps.wpp && row_start) {
            int x = ((rs % w) << log2ctb) + (1 << log2ctb), y = ((rs / w) << log2ctb) - (1 << log2ctb);
            if (available(&p, x, y)) memcpy(p.ctx, pic->wpp_ctx, sizeof p.ctx);
            else init_contexts(&p);
        } else if (first) {
            if (seg->dependent) memcpy(p.ctx, pic->ds_ctx, sizeof p.ctx);
            else init_contexts(&p);
        }
        if (sh->sao_luma || sh->sao_chroma) sao(&p, rs % w, rs / w);
        coding_quadtree(&p, (rs % w) << log2ctb, (rs / w) << log2ctb, log2ctb, 0);
        if (p.unchecked) { *unchecked = 1; return p.unchecked; }
        if (p.error) return p.error;
        if (bit_position(&p) > p.br.size * 8 + 64) return "slice data ends before its coding tree does";
        if (pic->pps.wpp && (rs % w == 1 || (rs >= 2 && pic->tile_id[ts] != pic->tile_id[pic->rs_to_ts[rs - 2]])))
            memcpy(pic->wpp_ctx, p.ctx, sizeof p.ctx);
        int end = terminate(&p);
        ts++;
        if (end) {
            size_t byte = check_stop(&p);
            if (p.error) return p.error;
            for (size_t i = byte; i < p.br.size; i++)
                if (p.br.data[i]) return "slice data goes on after its coding tree ends";
            if (seg->entry_points > 0 && subset != seg->entry_points) return "slice data out of step with its entry points";
            if (pic->pps.dependent_slices) memcpy(pic->ds_ctx, p.ctx, sizeof p.ctx);
            pic->next_ts = ts;
            return NULL;
        }
        if (ts >= pic->ctbs) return "slice data runs past the end of the picture";
        int next_rs = pic->ts_to_rs[ts];
        if ((pic->pps.tiles && pic->tile_id[ts] != pic->tile_id[ts - 1]) ||
            (pic->pps.wpp && (next_rs % w == 0 || pic->tile_id[ts] != pic->tile_id[pic->rs_to_ts[next_rs - 1]]))) {
            if (!terminate(&p)) return "slice data out of step with its coding tree: a substream does not end where its row or tile does";
            size_t byte = check_stop(&p);
            if (p.error) return p.error;
            if (subset < seg->entry_points) {
                substream_nal += seg->entry_offsets[subset];
                if (rbsp_offset_of(c, substream_nal) != byte) return "slice data out of step with its entry points";
            }
            subset++;
            seek(&p, byte);
            init_engine(&p);
            if (p.error) return p.error;
        }
    }
}

// ---- NAL units and packets ----

static int picture_incomplete(sdrify_hevc_check *c) {
    Picture *pic = &c->pic;
    int incomplete = pic->active && pic->tracking && pic->next_ts != pic->ctbs;
    pic->active = 0;
    return incomplete;
}

static int check_nal(void *context, const uint8_t *nal, size_t size, const char **problem) {
    sdrify_hevc_check *c = context;
    if (size < 3) return 0;
    if (nal[0] & 0x80) { *problem = "a NAL unit header with its forbidden bit set"; return 1; }
    int type = (nal[0] >> 1) & 63, layer = ((nal[0] & 1) << 5) | (nal[1] >> 3);
    if (layer != 0) return 0;
    int vcl = type <= 9 || (type >= 16 && type <= 21);
    c->stream.packet_pictures += vcl;
    if (!vcl && type != 33 && type != 34) {
        if (type == 36 || type == 37) {  // end of sequence / bitstream: the picture before must be whole
            if (picture_incomplete(c)) { *problem = "a picture is missing slice segments"; return 1; }
        }
        return 0;
    }
    // Offsets are counted from the NAL header's end, where the RBSP (and entry point offsets) begin.
    int n = rbsp_unescape(&c->buf, nal + 2, size - 2);
    if (n < 0) return 0;
    BitReader b = {c->buf.rbsp, (size_t)n, 0, 0};
    if (type == 33) { hevc_parse_sps(&b, c->sps); return 0; }
    if (type == 34) { hevc_parse_pps(&b, c->pps); return 0; }
    // removed[] holds offsets within nal + 2: the same coordinates as the RBSP.
    int first = n > 0 && (c->buf.rbsp[0] & 0x80);
    int damaged = 0;
    if (first && picture_incomplete(c)) { *problem = "a picture is missing slice segments"; damaged = 1; }
    SegmentHeader seg;
    SliceHeader sh;
    const char *skip = parse_segment_header(c, &b, type, &seg, &sh);
    if (skip && skip[0] == '!') {
        c->pic.tracking = 0;
        if (!damaged) *problem = skip + 1;
        c->stream.counts.slices_checked++;
        return damaged + 1;
    }
    if (skip) {
        c->stream.counts.slices_unchecked++;
        c->pic.tracking = 0;
        return damaged;
    }
    if (!seg.first_in_pic && !c->pic.tracking) {   // the picture is already reported, or partly unchecked
        c->stream.counts.slices_unchecked++;
        return damaged;
    }
    if (!seg.dependent) { c->pic.sh = sh; c->pic.have_sh = 1; }
    int unchecked = 0;
    const char *bad = check_segment(c, &b, &seg, &sh, &unchecked);
    if (unchecked) {
        c->stream.counts.slices_unchecked++;
        c->pic.tracking = 0;
        return damaged;
    }
    c->stream.counts.slices_checked++;
    if (bad) {
        c->pic.tracking = 0;      // one report per picture
        if (!damaged) *problem = bad;
        damaged++;
    }
    return damaged;
}

static void build_sig_tables(void) {
    for (int prev = 0; prev < 4; prev++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 4; x++) {
                int v;
                if (prev == 0) v = (x + y == 0) ? 2 : (x + y < 3) ? 1 : 0;
                else if (prev == 1) v = y == 0 ? 2 : (y == 1 ? 1 : 0);
                else if (prev == 2) v = x == 0 ? 2 : (x == 1 ? 1 : 0);
                else v = 2;
                sig_ctx_pattern[prev][y * 4 + x] = (uint8_t)v;
            }
    for (int scan = 0; scan < 3; scan++)
        for (int n = 0; n < 16; n++) pos_raster[scan][n] = (uint8_t)((scan_order[scan][2][n] >> 4) * 4 + (scan_order[scan][2][n] & 15));
}

static void build_tables(void) { build_scan_orders(); cabac_build_tables(); build_sig_tables(); }

static void *check_create(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, build_tables);
    sdrify_hevc_check *c = calloc(1, sizeof *c);
    if (c) c->stream.nal_length_size = 0;
    return c;
}

static void check_free(void *check) {
    sdrify_hevc_check *c = check;
    if (!c) return;
    Picture *pic = &c->pic;
    free(pic->rs_to_ts); free(pic->ts_to_rs); free(pic->tile_id); free(pic->ctb_slice);
    free(pic->depth); free(pic->skip); free(pic->ipm);
    rbsp_free(&c->buf);
    free(c);
}

static int check_extradata_nals(sdrify_hevc_check *c, const uint8_t *d, size_t size) {
    const char *ignored = NULL;
    // hvcC unless it starts like Annex B (00 00 01, 00 00 00 01): the test libavcodec applies, so a damaged
    // configurationVersion does not leave the packets unchecked while the decoder reads them as hvcC.
    if (size >= 23 && (d[0] || d[1] || d[2] > 1)) {
        c->stream.nal_length_size = (d[21] & 3) + 1;
        size_t pos = 23;
        int arrays = d[22];
        for (int a = 0; a < arrays && pos + 3 <= size; a++) {
            int count = (d[pos + 1] << 8) | d[pos + 2];
            pos += 3;
            for (int k = 0; k < count && pos + 2 <= size; k++) {
                size_t len = ((size_t)d[pos] << 8) | d[pos + 1];
                pos += 2;
                if (pos + len > size) return 0;
                check_nal(c, d + pos, len, &ignored);
                pos += len;
            }
        }
        return 0;
    }
    c->stream.nal_length_size = 0;
    return nal_walk_annexb(d, size, check_nal, c, &ignored);
}

static void check_configure(void *check, const uint8_t *extradata, size_t size) {
    sdrify_hevc_check *c = check;
    if (extradata && size) check_extradata_nals(c, extradata, size);
}

static int check_finish(void *check, const char **problem) {
    sdrify_hevc_check *c = check;
    *problem = picture_incomplete(c) ? "a picture is missing slice segments" : NULL;
    return *problem != NULL;
}

const SliceCheckCodec hevc_slice_check = {check_create, check_free, check_configure, check_nal, check_finish};
