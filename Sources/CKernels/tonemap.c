#include "sdrify_kernels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

// Written branch-free (selects, not ifs) so the compiler vectorises it; see GainTable.swift for the method.
static inline float fmin_(float a, float b) { return b < a ? b : a; }
static inline float fmax_(float a, float b) { return b > a ? b : a; }
static inline uint32_t bits_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float float_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

__attribute__((target_clones("avx2", "default")))
void sdrify_tonemap_row(float *restrict r, float *restrict g, float *restrict b, int count,
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
        uint32_t idx = (u >> 16) - base;
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

        r[i] = alive ? fmax_(R * s, 0.0f) : 0.0f;
        g[i] = alive ? fmax_(G * s, 0.0f) : 0.0f;
        b[i] = alive ? fmax_(B * s, 0.0f) : 0.0f;
    }
}

__attribute__((target_clones("avx2", "default")))
void sdrify_hlg_to_linear_row(float *restrict r, float *restrict g, float *restrict b, int count,
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
        r[i] = 1.6604910f * er - 0.5876411f * eg - 0.0728499f * eb;
        g[i] = -0.1245505f * er + 1.1328999f * eg - 0.0083494f * eb;
        b[i] = -0.0181508f * er - 0.1005789f * eg + 1.1187297f * eb;
    }
}
