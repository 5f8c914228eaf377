#include "sdrify_kernels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

// Written branch-free (selects, not ifs) so the compiler vectorises it; see GainTable.swift for the method.
// NaN in `a` gives `b` (the comparison fails), so fmin_(fmax_(x, lo), hi) clamps NaN to lo: table indices stay
// inside their tables whatever the input. They compile to minps/maxps, which behave the same way.
static inline float fmin_(float a, float b) { return a < b ? a : b; }
static inline float fmax_(float a, float b) { return a > b ? a : b; }
static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

// 2^x from the float's exponent bits and a cubic on the fraction (within 0.01 %), for the grid's values.
static inline float exp2_approx(float x) {
    x = fminf(fmaxf(x, -126.0f), 126.0f);
    float whole = floorf(x), f = x - whole;
    float p = 1.0f + f * (0.6958776f + f * (0.2251990f + f * 0.0789234f));
    return p * float_of((uint32_t)((int32_t)whole + 127) << 23);
}

// The loop's work, one pixel at a time in the functions below and in three loops over them (selects, not branches,
// so the compiler vectorises each loop).

// The curve: the colour scaled by its gain (*R, *G, *B), with local contrast where `detail`, and its luminance (*yk).
// False for black, negative and NaN luminance.
static inline __attribute__((always_inline)) int scale_pixel(
    float *pR, float *pG, float *pB, float *pyk, const float *restrict gains, unsigned base, float min_y, float max_y,
    float inverse, float w, float ratio_lo, float ratio_hi, const int detail) {
    const float kr = 0.2126f, kg = 0.7152f, kb = 0.0722f;
    float R = *pR, G = *pG, B = *pB;
    float y0 = kr * R + kg * G + kb * B;
    int alive = y0 > 0.0f;
    float y = fmin_(fmax_(y0, min_y), max_y);

    // Gain: index and interpolation fraction straight from the float's bits.
    uint32_t u = bits_of(y);
    int32_t idx = (int32_t)((u >> 16) - base);
    float f = float_of(((u & 0xFFFFu) << 7) | 0x3F800000u) - 1.0f;
    float g0 = gains[idx], g1 = gains[idx + 1];
    float k = alive ? g0 + (g1 - g0) * f : 0.0f;
    if (detail) {
        // r = y / the neighbourhood's light, within 2^±clamp; r^w by its second-order expansion about 1
        // (within 0.3 % over that range), which needs no log or exp.
        float t = fmin_(fmax_(y * inverse, ratio_lo), ratio_hi) - 1.0f;
        // Within a quarter of SDR white of the top, detail no longer darkens (a flat saturated surface beside
        // brighter light stays flat), and it never lifts a channel past white (the over-white step would only
        // take it back, desaturated): lights reach white by the curve.
        w *= t < 0.0f ? fmin_(fmax_((1.0f - y * k) * 4.0f, 0.0f), 1.0f) : 1.0f;
        float m = 1.0f + t * (w + 0.5f * w * (w - 1.0f) * t);
        k *= fmin_(m, fmax_(1.0f / (fmax_(R, fmax_(G, B)) * k), 1.0f));
    }
    *pR = R * k; *pG = G * k; *pB = B * k;
    *pyk = y * k;
    return alive;
}

// Whether a scaled colour's result is not simply itself: a channel under 0, or over SDR white once the first step
// below has run (it can round a channel of exactly 1 up).
static inline __attribute__((always_inline)) int needs_placing(float R, float G, float B, float yk, int alive) {
    float lo = fmin_(R, fmin_(G, B));
    float hi = fmax_(yk + (R - yk), fmax_(yk + (G - yk), yk + (B - yk)));
    return alive && (lo < 0.0f || hi > 1.0f);
}

// A scaled colour placed inside BT.709: the gamut mapper's share of the result (*share) and its input (keep), and
// the cheap way's result (out). For a colour inside, out is the colour itself, computed with every factor at 1.
static inline __attribute__((always_inline)) void place_pixel(
    float R, float G, float B, float yk, int alive, float *share_out, float keep[3], float out[3]) {
    // Clearly outside BT.709, the gamut mapper's (gamut.c: along the colour's own hue in Oklab) share of the
    // result, 0 to 1 with no step: from a channel at −0.05 to one at −0.15, and for a colour over white (its
    // lowest channel under half its highest, fully under a quarter) from 1.5 to 2 times white. Near-greys and
    // colours just over white (noise on a saturated colour at SDR white, a tinted white wall) keep the cheap
    // way below, and there can be many of them.
    float lo = fmin_(R, fmin_(G, B)), hi = fmax_(R, fmax_(G, B));
    const float big = 60000.0f;
    float under = fmin_(fmax_((-0.05f - lo) * 10.0f, 0.0f), 1.0f);
    float colour = fmin_(fmax_((0.5f - lo / fmax_(hi, 1e-6f)) * 4.0f, 0.0f), 1.0f);
    float bright = fmin_(fmax_((hi - 1.5f) * 2.0f, 0.0f), 1.0f) * colour;
    *share_out = alive ? fmax_(under, bright) : 0.0f;
    keep[0] = fmin_(fmax_(R, -big), big); keep[1] = fmin_(fmax_(G, -big), big); keep[2] = fmin_(fmax_(B, -big), big);

    // Within the margin, the cheap way: toward grey at equal luminance until the lowest channel is 0; beyond SDR
    // white, desaturate toward grey until the highest channel is m (t2 of the way), then scale to 1 (s). m is
    // sqrt(max) for a near-grey (a tinted white: half whitened, half dimmed) and max itself for a saturated colour
    // (`colour`), which is only dimmed and so keeps its saturation: whitened, a blue sky over white in its blue
    // channel alone came out paler and lighter than the makers' own SDR (issue 55). Both factors from one
    // division: with d = (hi − yk)·m when desaturating, hi when only scaling, 1 otherwise, s = (hi − yk)/d or 1/d and
    // s·t2 = (m − yk)/d or s.
    float t1 = lo < 0.0f ? yk / (yk - lo) : 1.0f;
    R = yk + t1 * (R - yk); G = yk + t1 * (G - yk); B = yk + t1 * (B - yk);
    hi = fmax_(R, fmax_(G, B));
    int over = hi > 1.0f;
    float root = sqrtf(fmax_(hi, 0.0f)), m = root + colour * (fmax_(hi, 0.0f) - root);
    int desat = over && yk < m;
    float inv = 1.0f / (desat ? (hi - yk) * m : (over ? hi : 1.0f));
    float sc = desat ? (hi - yk) * inv : inv;
    float st2 = desat ? (m - yk) * inv : sc;
    float grey = yk * sc;
    out[0] = alive ? fmax_(grey + st2 * (R - yk), 0.0f) : 0.0f;
    out[1] = alive ? fmax_(grey + st2 * (G - yk), 0.0f) : 0.0f;
    out[2] = alive ? fmax_(grey + st2 * (B - yk), 0.0f) : 0.0f;
}

// The whole of it for every pixel: for spans where most pixels need placing (noise on saturated colours, a bright
// saturated scene). `needs` gets needs_placing's answer, for choosing the next span's way.
static inline __attribute__((always_inline)) void tonemap_all(
    const float *restrict r, const float *restrict g, const float *restrict b, _Float16 *restrict out_r,
    _Float16 *restrict out_g, _Float16 *restrict out_b, int count, const float *restrict gains, unsigned base,
    float min_y, float max_y, const float *restrict inverse0, const float *restrict inverse1,
    const float *restrict weight, float wy, float ratio_lo, float ratio_hi, unsigned char *restrict outside,
    float *restrict keep_r, float *restrict keep_g, float *restrict keep_b, float *restrict share,
    unsigned char *restrict needs, const int detail) {
    // The cost model declines on its own (both sides of each select are computed); measured, it is faster. No
    // width is given: each clone takes its registers' (eight lanes on AVX2, sixteen on AVX-512).
#pragma clang loop vectorize(enable)
    for (int i = 0; i < count; i++) {
        float R = r[i], G = g[i], B = b[i], yk, keep[3], out[3];
        float inverse = detail ? inverse0[i] + (inverse1[i] - inverse0[i]) * wy : 0.0f, w = detail ? weight[i] : 0.0f;
        int alive = scale_pixel(&R, &G, &B, &yk, gains, base, min_y, max_y, inverse, w, ratio_lo, ratio_hi, detail);
        needs[i] = (unsigned char)needs_placing(R, G, B, yk, alive);
        place_pixel(R, G, B, yk, alive, &share[i], keep, out);
        outside[i] = (unsigned char)(share[i] > 0.0f);
        keep_r[i] = keep[0]; keep_g[i] = keep[1]; keep_b[i] = keep[2];
        out_r[i] = (_Float16)out[0]; out_g[i] = (_Float16)out[1]; out_b[i] = (_Float16)out[2];
    }
}

// The first of two passes, for spans where most colours land inside BT.709 (most spans of most pictures): the
// curve, and each pixel's result as if it were inside (place_pixel's arithmetic with its factors at 1, so the same
// roundings); the scaled colour (keep_*) and luminance (scaled_y) kept for the second pass, which `outside` marks.
static inline __attribute__((always_inline)) void tonemap_inside(
    const float *restrict r, const float *restrict g, const float *restrict b, _Float16 *restrict out_r,
    _Float16 *restrict out_g, _Float16 *restrict out_b, int count, const float *restrict gains, unsigned base,
    float min_y, float max_y, const float *restrict inverse0, const float *restrict inverse1,
    const float *restrict weight, float wy, float ratio_lo, float ratio_hi, unsigned char *restrict outside,
    float *restrict keep_r, float *restrict keep_g, float *restrict keep_b, float *restrict scaled_y, const int detail) {
#pragma clang loop vectorize(enable)
    for (int i = 0; i < count; i++) {
        float R = r[i], G = g[i], B = b[i], yk;
        float inverse = detail ? inverse0[i] + (inverse1[i] - inverse0[i]) * wy : 0.0f, w = detail ? weight[i] : 0.0f;
        int alive = scale_pixel(&R, &G, &B, &yk, gains, base, min_y, max_y, inverse, w, ratio_lo, ratio_hi, detail);
        keep_r[i] = R; keep_g[i] = G; keep_b[i] = B; scaled_y[i] = yk;
        outside[i] = (unsigned char)needs_placing(R, G, B, yk, alive);
        float R1 = yk + (R - yk), G1 = yk + (G - yk), B1 = yk + (B - yk);
        out_r[i] = (_Float16)(alive ? fmax_(yk + (R1 - yk), 0.0f) : 0.0f);
        out_g[i] = (_Float16)(alive ? fmax_(yk + (G1 - yk), 0.0f) : 0.0f);
        out_b[i] = (_Float16)(alive ? fmax_(yk + (B1 - yk), 0.0f) : 0.0f);
    }
}

// The second pass, over a run of eight-pixel groups holding a marked pixel; the others in it keep what the first
// pass wrote.
static inline __attribute__((always_inline)) void tonemap_marked(
    _Float16 *restrict out_r, _Float16 *restrict out_g, _Float16 *restrict out_b, int from, int to,
    unsigned char *restrict outside, float *restrict keep_r, float *restrict keep_g, float *restrict keep_b,
    const float *restrict scaled_y, float *restrict share) {
#pragma clang loop vectorize(enable)
    for (int i = from; i < to; i++) {
        int marked = outside[i];
        float keep[3], out[3];
        place_pixel(keep_r[i], keep_g[i], keep_b[i], scaled_y[i], marked, &share[i], keep, out);
        outside[i] = (unsigned char)(share[i] > 0.0f);
        keep_r[i] = keep[0]; keep_g[i] = keep[1]; keep_b[i] = keep[2];
        out_r[i] = marked ? (_Float16)out[0] : out_r[i];
        out_g[i] = marked ? (_Float16)out[1] : out_g[i];
        out_b[i] = marked ? (_Float16)out[2] : out_b[i];
    }
}

// Whether any of the marks from..from+8 (to at most `to`) is set.
static inline int any_marked(const unsigned char *marks, int from, int to) {
    if (from + 8 <= to) {
        unsigned long long word;
        __builtin_memcpy(&word, marks + from, 8);
        return word != 0;
    }
    int any = 0;
    for (int i = from; i < to; i++) any |= marks[i];
    return any;
}

// How many of a span's eight-pixel groups hold a mark.
static int groups_marked(const unsigned char *marks, int count) {
    int groups = 0;
    for (int from = 0; from < count; from += 8) groups += any_marked(marks, from, count);
    return groups;
}

// Both ways give the same bytes; which is faster depends on how many groups need placing, and a span is like the one
// before it (the previous span of the row, or the previous row's last on this thread).
static _Thread_local int dense_spans;

int sdrify_tonemap_next_span_dense(void) { return dense_spans; }

// The x86-64-v3 and v4 clones (AVX2, FMA, F16C; AVX-512) convert half floats in registers; the baseline calls
// libgcc for it. With the v4 clones the colour stage's own part (all but zimg's legs) is 0.62× on Tears of Steel's
// picture, 0.64× on the bench's bars (perf samples against zimg's in the same run, 2026-11-29).
// Returns whether any colour is left for the gamut mapper.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
static int tonemap_span(const float *restrict r, const float *restrict g, const float *restrict b,
                        _Float16 *restrict out_r, _Float16 *restrict out_g, _Float16 *restrict out_b, int count,
                        const float *restrict gains, unsigned base, float min_y, float max_y,
                        const float *restrict inverse0, const float *restrict inverse1, const float *restrict weight,
                        float wy, float ratio_lo, float ratio_hi, unsigned char *restrict outside,
                        float *restrict keep_r, float *restrict keep_g, float *restrict keep_b,
                        float *restrict scaled_y, float *restrict share, unsigned char *restrict needs) {
    int groups = (count + 7) / 8, left = 0;
    if (dense_spans) {
        if (inverse0)
            tonemap_all(r, g, b, out_r, out_g, out_b, count, gains, base, min_y, max_y, inverse0, inverse1, weight, wy,
                        ratio_lo, ratio_hi, outside, keep_r, keep_g, keep_b, share, needs, 1);
        else
            tonemap_all(r, g, b, out_r, out_g, out_b, count, gains, base, min_y, max_y, 0, 0, 0, 0.0f, 1.0f, 1.0f,
                        outside, keep_r, keep_g, keep_b, share, needs, 0);
        dense_spans = 2 * groups_marked(needs, count) > groups;
        for (int i = 0; i < count; i++) left |= outside[i];
        return left;
    }
    if (inverse0)
        tonemap_inside(r, g, b, out_r, out_g, out_b, count, gains, base, min_y, max_y, inverse0, inverse1, weight, wy,
                       ratio_lo, ratio_hi, outside, keep_r, keep_g, keep_b, scaled_y, 1);
    else
        tonemap_inside(r, g, b, out_r, out_g, out_b, count, gains, base, min_y, max_y, 0, 0, 0, 0.0f, 1.0f, 1.0f,
                       outside, keep_r, keep_g, keep_b, scaled_y, 0);
    int marked = 0;
    for (int from = 0; from < count; from += 8) {
        if (!any_marked(outside, from, count)) continue;
        int to = from + 8;
        while (to < count && any_marked(outside, to, count)) to += 8;
        to = to < count ? to : count;
        marked += (to - from + 7) / 8;
        tonemap_marked(out_r, out_g, out_b, from, to, outside, keep_r, keep_g, keep_b, scaled_y, share);
        for (int i = from; i < to; i++) left |= outside[i];
        from = to - 8;  // (the loop's step lands on `to`)
    }
    dense_spans = 2 * marked > groups;
    return left;
}

void sdrify_tonemap_row(const float *restrict r, const float *restrict g, const float *restrict b,
                        _Float16 *restrict out_r, _Float16 *restrict out_g, _Float16 *restrict out_b, int count,
                        const float *restrict gains, unsigned base, float min_y, float max_y,
                        const float *restrict inverse0, const float *restrict inverse1, const float *restrict weight,
                        float wy, float ratio_lo, float ratio_hi) {
    enum { SPAN = 1024 };
    unsigned char outside[SPAN], needs[SPAN];
    float keep[3][SPAN], scaled_y[SPAN], share[SPAN];
    for (int x = 0; x < count; x += SPAN) {
        int n = count - x < SPAN ? count - x : SPAN;
        int left = tonemap_span(r + x, g + x, b + x, out_r + x, out_g + x, out_b + x, n, gains, base, min_y, max_y,
                                inverse0 ? inverse0 + x : 0, inverse1 ? inverse1 + x : 0, weight ? weight + x : 0, wy,
                                ratio_lo, ratio_hi, outside, keep[0], keep[1], keep[2], scaled_y, share, needs);
        if (left) sdrify_gamut_map_rows(keep[0], keep[1], keep[2], share, out_r + x, out_g + x, out_b + x, outside, n);
    }
}

__attribute__((target_clones("arch=x86-64-v3", "default")))
void sdrify_hlg_to_linear_row(const float *restrict r, const float *restrict g, const float *restrict b,
                              float *restrict out_r, float *restrict out_g, float *restrict out_b, int count,
                              const float *restrict oetf_inv, int oetf_size, const float *restrict ootf_gain,
                              unsigned ootf_base, float min_y) {
    const float scale = (float)(oetf_size - 1), top = (float)(oetf_size - 1) - 1e-3f;
#pragma clang loop vectorize(enable) vectorize_width(8)
    for (int i = 0; i < count; i++) {
        // Inverse OETF per channel, by table (signal clamped to 0-1).
        float pr = fmin_(fmax_(r[i], 0.0f), 1.0f) * scale, pg = fmin_(fmax_(g[i], 0.0f), 1.0f) * scale,
              pb = fmin_(fmax_(b[i], 0.0f), 1.0f) * scale;
        pr = fmin_(pr, top); pg = fmin_(pg, top); pb = fmin_(pb, top);
        int ir = (int)pr, ig = (int)pg, ib = (int)pb;
        float er = oetf_inv[ir] + (oetf_inv[ir + 1] - oetf_inv[ir]) * (pr - (float)ir);
        float eg = oetf_inv[ig] + (oetf_inv[ig + 1] - oetf_inv[ig]) * (pg - (float)ig);
        float eb = oetf_inv[ib] + (oetf_inv[ib + 1] - oetf_inv[ib]) * (pb - (float)ib);
        // OOTF on BT.2020 scene luminance: gain Ys^0.2 × 1000/203 from the bit-indexed table.
        float ys = fmax_(0.2627f * er + 0.6780f * eg + 0.0593f * eb, min_y);
        uint32_t u = bits_of(fmin_(ys, 1.0f));
        uint32_t idx = (u >> 16) - ootf_base;
        float f = float_of(((u & 0xFFFFu) << 7) | 0x3F800000u) - 1.0f;
        float k = ootf_gain[idx] + (ootf_gain[idx + 1] - ootf_gain[idx]) * f;
        er *= k; eg *= k; eb *= k;
        // BT.2020 → BT.709 primaries (linear light).
        out_r[i] = 1.6604910f * er - 0.5876411f * eg - 0.0728499f * eb;
        out_g[i] = -0.1245505f * er + 1.1328999f * eg - 0.0083494f * eb;
        out_b[i] = -0.0181508f * er - 0.1005789f * eg + 1.1187297f * eb;
    }
}

void sdrify_local_contrast_rows(const float *grid, int grid_w, int grid_h, const int *col_start, const float *col_frac,
                                float *rows, int width, unsigned char *nonzero) {
    int chunks = (width + SDRIFY_CHUNK - 1) / SDRIFY_CHUNK;
    for (int y = 0; y < grid_h; y++) {
        const float *g = grid + (long)y * grid_w;
        float *row = rows + (long)y * width;
        for (int c = 0; c < grid_w; c++) {
            float v = g[c], dv = (c + 1 < grid_w ? g[c + 1] : g[c]) - g[c];
            for (int x = col_start[c]; x < col_start[c + 1]; x++) row[x] = v + dv * col_frac[x];
        }
        if (nonzero)
            for (int k = 0; k < chunks; k++) {
                int any = 0, end = (k + 1) * SDRIFY_CHUNK < width ? (k + 1) * SDRIFY_CHUNK : width;
                for (int x = k * SDRIFY_CHUNK; x < end; x++) any |= row[x] != 0.0f;
                nonzero[(long)y * chunks + k] = (unsigned char)any;
            }
    }
}

int sdrify_colour_rows(void *context, unsigned i, unsigned left, unsigned right) {
    const sdrify_colour_job *job = context;
    const float *in[3];
    _Float16 *out[3];
    for (int p = 0; p < 3; p++) {
        in[p] = (const float *)((const char *)job->rows[p] + (long)(i & job->row_mask) * job->row_stride) + left;
        out[p] = (_Float16 *)((char *)job->frame[p] + (long)i * job->frame_stride) + left;
    }
    int count = (int)(right - left);
    if (job->oetf_inv) {  // HLG: linearise into the scratch row first (zimg's rows are left as written)
        float *lin[3] = {job->scratch[0] + left, job->scratch[1] + left, job->scratch[2] + left};
        sdrify_hlg_to_linear_row(in[0], in[1], in[2], lin[0], lin[1], lin[2], count, job->oetf_inv,
                                 job->oetf_size, job->ootf_gain, job->ootf_base, job->min_y);
        for (int p = 0; p < 3; p++) in[p] = lin[p];
    }
    const float *l0 = 0, *l1 = 0, *w0 = 0;
    float wy = 0.0f;
    if (!job->inverse_rows) {
        sdrify_tonemap_row(in[0], in[1], in[2], out[0], out[1], out[2], count, job->gains, job->gain_base,
                           job->min_y, job->max_y, 0, 0, 0, 0.0f, 1.0f, 1.0f);
        return 0;
    }
    // This row between two grid rows. The weight is the nearer row's: it changes slowly (a step of 0.05 moves a
    // pixel by at most 0.025 stop), and one row fewer to read is measurable in this loop.
    float fy = fminf(fmaxf((float)i * job->row_step + job->row_origin, 0.0f), (float)(job->grid_h - 1));
    int y0 = (int)fy, y1 = y0 + 1 < job->grid_h ? y0 + 1 : y0;
    wy = fy - (float)y0;
    int yw = wy < 0.5f ? y0 : y1;
    l0 = job->inverse_rows + (long)y0 * job->width;
    l1 = job->inverse_rows + (long)y1 * job->width;
    w0 = job->weight_rows + (long)yw * job->width;
    // Runs of chunks with and without weight: where the curve keeps ratios (weight 0) the plain loop.
    const unsigned char *any = job->weighted + (long)yw * job->chunks;
    for (unsigned x = left; x < right;) {
        unsigned end = (x / SDRIFY_CHUNK + 1) * SDRIFY_CHUNK;
        int weighted = any[x / SDRIFY_CHUNK];
        while (end < right && any[end / SDRIFY_CHUNK] == weighted) end += SDRIFY_CHUNK;
        end = end < right ? end : right;
        unsigned o = x - left;
        sdrify_tonemap_row(in[0] + o, in[1] + o, in[2] + o, out[0] + o, out[1] + o, out[2] + o, (int)(end - x),
                           job->gains, job->gain_base, job->min_y, job->max_y, weighted ? l0 + x : 0, l1 + x, w0 + x,
                           wy, job->ratio_lo, job->ratio_hi);
        x = end;
    }
    return 0;
}

// Mean over (2·radius + 1)² cells of `in` into `out` (edges clamped), rows then columns by running sums.
static void box(const float *in, float *out, float *scratch, int w, int h, int radius) {
    const float n = (float)(2 * radius + 1);
    for (int y = 0; y < h; y++) {
        const float *row = in + (long)y * w;
        float sum = 0.0f;
        for (int k = -radius; k <= radius; k++) sum += row[k < 0 ? 0 : (k >= w ? w - 1 : k)];
        for (int x = 0; x < w; x++) {
            scratch[(long)y * w + x] = sum / n;
            int add = x + radius + 1, drop = x - radius;
            sum += row[add >= w ? w - 1 : add] - row[drop < 0 ? 0 : drop];
        }
    }
    for (int x = 0; x < w; x++) {
        float sum = 0.0f;
        for (int k = -radius; k <= radius; k++) sum += scratch[(long)(k < 0 ? 0 : (k >= h ? h - 1 : k)) * w + x];
        for (int y = 0; y < h; y++) {
            out[(long)y * w + x] = sum / n;
            int add = y + radius + 1, drop = y - radius;
            sum += scratch[(long)(add >= h ? h - 1 : add) * w + x] - scratch[(long)(drop < 0 ? 0 : drop) * w + x];
        }
    }
}

void sdrify_local_contrast_grids(const float *light, int w, int h, int radius, float edge, float *inverse,
                                 float *weight, float *scratch, const float *table, int table_size,
                                 float table_lowest, float table_per_stop) {
    // The neighbourhood's light by a guided filter guided by the light itself (He, Sun and Tang, 2010): a
    // straight line fitted to each window, a = variance / (variance + edge²). Where a window holds texture (a
    // variance well under edge²) the line is flat, its mean: the texture stands out of it. Where it holds an edge
    // (well over), the line follows the light: nothing stands out, nothing halos.
    long n = (long)w * h;
    float *mean = scratch + n, *square = scratch + 2 * n, *a = scratch + 3 * n, *b = scratch + 4 * n;
    for (long i = 0; i < n; i++) a[i] = light[i] * light[i];
    box(light, mean, scratch, w, h, radius);
    box(a, square, scratch, w, h, radius);
    float e2 = edge * edge;
    for (long i = 0; i < n; i++) {
        float variance = fmaxf(square[i] - mean[i] * mean[i], 0.0f);
        a[i] = variance / (variance + e2);
        b[i] = mean[i] - a[i] * mean[i];
    }
    box(a, mean, scratch, w, h, radius);
    box(b, square, scratch, w, h, radius);
    for (long i = 0; i < n; i++) {
        float local = mean[i] * light[i] + square[i];
        float t = fminf(fmaxf((local - table_lowest) * table_per_stop, 0.0f), (float)(table_size - 1));
        int k = (int)t, k1 = k + 1 < table_size ? k + 1 : k;
        weight[i] = table[k] + (table[k1] - table[k]) * (t - (float)k);
        inverse[i] = exp2_approx(-local);
    }
}
