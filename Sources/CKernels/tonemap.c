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

// The x86-64-v3 clones (AVX2, FMA, F16C) convert half floats in registers; the baseline calls libgcc for it.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void sdrify_tonemap_row(const float *restrict r, const float *restrict g, const float *restrict b,
                        _Float16 *restrict out_r, _Float16 *restrict out_g, _Float16 *restrict out_b, int count,
                        const float *restrict gains, unsigned base, float min_y, float max_y) {
    const float kr = 0.2126f, kg = 0.7152f, kb = 0.0722f;
    // The cost model declines on its own (both sides of each select are computed); measured, it is faster.
#pragma clang loop vectorize(enable) vectorize_width(8)
    for (int i = 0; i < count; i++) {
        float R = r[i], G = g[i], B = b[i];
        float y0 = kr * R + kg * G + kb * B;
        int alive = y0 > 0.0f;  // false for black, negative and NaN luminance
        float y = fmin_(fmax_(y0, min_y), max_y);

        // Gain: index and interpolation fraction straight from the float's bits.
        uint32_t u = bits_of(y);
        int32_t idx = (int32_t)((u >> 16) - base);
        float f = float_of(((u & 0xFFFFu) << 7) | 0x3F800000u) - 1.0f;
        float g0 = gains[idx], g1 = gains[idx + 1];
        float k = alive ? g0 + (g1 - g0) * f : 0.0f;
        R *= k; G *= k; B *= k;
        float yk = y * k;

        // Outside BT.709: toward grey at equal luminance until the lowest channel is 0.
        float lo = fmin_(R, fmin_(G, B));
        float t1 = lo < 0.0f ? yk / (yk - lo) : 1.0f;
        R = yk + t1 * (R - yk); G = yk + t1 * (G - yk); B = yk + t1 * (B - yk);

        // Beyond SDR white: desaturate toward grey until the highest channel is sqrt(max), then scale to 1.
        float hi = fmax_(R, fmax_(G, B));
        int over = hi > 1.0f;
        float m = sqrtf(fmax_(hi, 0.0f));
        int desat = over && yk < m;
        float t2 = desat ? (m - yk) / (hi - yk) : 1.0f;
        R = yk + t2 * (R - yk); G = yk + t2 * (G - yk); B = yk + t2 * (B - yk);
        float s = over ? (desat ? 1.0f / m : 1.0f / hi) : 1.0f;

        out_r[i] = (_Float16)(alive ? fmax_(R * s, 0.0f) : 0.0f);
        out_g[i] = (_Float16)(alive ? fmax_(G * s, 0.0f) : 0.0f);
        out_b[i] = (_Float16)(alive ? fmax_(B * s, 0.0f) : 0.0f);
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
    sdrify_tonemap_row(in[0], in[1], in[2], out[0], out[1], out[2], count, job->gains, job->gain_base, job->min_y,
                       job->max_y);
    return 0;
}
