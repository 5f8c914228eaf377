#include "sdrify_kernels.h"
#include <math.h>

// The colour map between zimg's legs baked into a table of the first leg's R'G'B' signal (an experiment of issue
// 55, SDRIFY_COLOUR_TABLE; see ColourTable.swift): each entry holds the exact path's result for that signal, the
// square roots of its linear R, G, B (interpolated near-perceptually) and the fourth root of the source luminance
// (for local contrast). Local contrast is applied after the lookup as a gain, as the exact path applies it before
// placing colours inside BT.709: the same for every colour the curve leaves inside.

static inline float clamp01(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }  // NaN: 0

__attribute__((target_clones("arch=x86-64-v3", "default")))
void sdrify_colour_table_row(const float *restrict r, const float *restrict g, const float *restrict b,
                             _Float16 *restrict out_r, _Float16 *restrict out_g, _Float16 *restrict out_b, int count,
                             const float *restrict table, int n, const float *restrict inverse0,
                             const float *restrict inverse1, const float *restrict weight, float wy, float ratio_lo,
                             float ratio_hi) {
    const float scale = (float)(n - 1);
    const long step_g = 4L * n, step_r = 4L * n * n;  // blue innermost
    for (int i = 0; i < count; i++) {
        float pr = clamp01(r[i]) * scale, pg = clamp01(g[i]) * scale, pb = clamp01(b[i]) * scale;
        int ir = (int)pr, ig = (int)pg, ib = (int)pb;
        ir = ir < n - 1 ? ir : n - 2; ig = ig < n - 1 ? ig : n - 2; ib = ib < n - 1 ? ib : n - 2;
        float fr = pr - (float)ir, fg = pg - (float)ig, fb = pb - (float)ib;
        const float *c = table + ir * step_r + ig * step_g + ib * 4L;
        // Tetrahedral: the cell split into six tetrahedra along its grey diagonal, so a grey is interpolated from
        // greys alone.
        long s1, s2;
        float w1, w2, w3;  // weights of the path's second, third and last corner; the first gets 1 − w1
        if (fr >= fg) {
            if (fg >= fb) { s1 = step_r; s2 = step_r + step_g; w1 = fr; w2 = fg; w3 = fb; }
            else if (fr >= fb) { s1 = step_r; s2 = step_r + 4; w1 = fr; w2 = fb; w3 = fg; }
            else { s1 = 4; s2 = step_r + 4; w1 = fb; w2 = fr; w3 = fg; }
        } else {
            if (fr >= fb) { s1 = step_g; s2 = step_r + step_g; w1 = fg; w2 = fr; w3 = fb; }
            else if (fg >= fb) { s1 = step_g; s2 = step_g + 4; w1 = fg; w2 = fb; w3 = fr; }
            else { s1 = 4; s2 = step_g + 4; w1 = fb; w2 = fg; w3 = fr; }
        }
        const long s3 = step_r + step_g + 4;
        float v[4];
        for (int k = 0; k < 4; k++)
            v[k] = c[k] + (c[s1 + k] - c[k]) * w1 + (c[s2 + k] - c[s1 + k]) * w2 + (c[s3 + k] - c[s2 + k]) * w3;
        float R = v[0] * v[0], G = v[1] * v[1], B = v[2] * v[2];
        if (inverse0) {
            float y2 = v[3] * v[3], y = y2 * y2;
            float inverse = inverse0[i] + (inverse1[i] - inverse0[i]) * wy, w = weight[i];
            float t = fminf(fmaxf(y * inverse, ratio_lo), ratio_hi) - 1.0f;
            float yk = 0.2126f * R + 0.7152f * G + 0.0722f * B;
            w *= t < 0.0f ? clamp01((1.0f - yk) * 4.0f) : 1.0f;
            float m = 1.0f + t * (w + 0.5f * w * (w - 1.0f) * t);
            float top = fmaxf(R, fmaxf(G, B));
            float s = fminf(m, fmaxf(1.0f / fmaxf(top, 1e-6f), 1.0f));
            R *= s; G *= s; B *= s;
        }
        out_r[i] = (_Float16)R; out_g[i] = (_Float16)G; out_b[i] = (_Float16)B;
    }
}
