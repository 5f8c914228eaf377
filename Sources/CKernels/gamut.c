#include "sdrify_kernels.h"
#include <math.h>

// Gamut mapping in Oklab (B. Ottosson, 2020: a perceptual space whose hue lines are straight, so moving along
// one keeps the hue a person sees; its published matrices below). A colour outside BT.709 (a channel below 0 or
// above 1) moves along a straight line of its own hue toward the grey axis until it is inside:
// - colours darker than the most saturated colour of their hue (the cusp) keep their lightness and give up
//   chroma: the line is horizontal;
// - lighter ones (saturated highlights) give up lightness and chroma together: the line aims halfway between the
//   grey of the cusp's lightness and the grey whose line runs through the cusp itself, so a bright saturated
//   red stays a clear red instead of turning pink or white, and is not pushed all the way down to the cusp.
// Only the pixels clearly outside the gamut take this path (the tone mapper's vector loop marks them and treats
// those within a margin of its edge the cheap way).

// Cube root of any float without a division: a first guess of 1/cbrt from the exponent bits, four Newton steps on
// it (y ← y·(4 − a·y³)/3, within 4e-7 relative, far under what 8-bit output shows), then cbrt(a) = a·y². libm's
// cbrtf costs several times as much, and this runs three times per mapped pixel.
static inline __attribute__((always_inline)) float cube_root(float x) {
    float a = fmaxf(fabsf(x), 1e-30f);
    unsigned u;
    __builtin_memcpy(&u, &a, 4);
    u = 0x54A2FA8Cu - u / 3;  // the exponent divided by −3, the mantissa roughly so
    float y;
    __builtin_memcpy(&y, &u, 4);
    const float third = 1.0f / 3.0f;
    y = y * (4.0f - a * y * y * y) * third;
    y = y * (4.0f - a * y * y * y) * third;
    y = y * (4.0f - a * y * y * y) * third;
    y = y * (4.0f - a * y * y * y) * third;
    y = a * y * y;
    return x < 0 ? -y : y;
}

// atan2 to about 0.005 rad (a polynomial on the octant), enough to interpolate a table of 256 hues.
static inline __attribute__((always_inline)) float hue_angle(float b, float a) {
    float ax = fabsf(a), ay = fabsf(b), lo = fminf(ax, ay), hi = fmaxf(ax, ay);
    float t = lo / fmaxf(hi, 1e-30f), t2 = t * t;
    float r = t * (0.99997726f + t2 * (-0.33262347f + t2 * (0.19354346f + t2 * (-0.11643287f + t2 * (0.05265332f - 0.01172120f * t2)))));
    r = ay > ax ? 1.57079637f - r : r;
    r = a < 0 ? 3.14159274f - r : r;
    return b < 0 ? -r : r;
}

// Oklab back to linear BT.709: l', m', s' (the cube roots of LMS) are L plus these multiples of a and b; LMS to RGB.
static const float oklab_ab_to_lms[3][2] = {
    {0.3963377774f, 0.2158037573f}, {-0.1055613458f, -0.0638541728f}, {-0.0894841775f, -1.2914855480f}};
static const float lms_to_rgb[3][3] = {{4.0767416621f, -3.3077115913f, 0.2309699292f},
                                       {-1.2684380046f, 2.6097574011f, -0.3413193965f},
                                       {-0.0041960863f, -0.7034186147f, 1.7076147010f}};

static inline __attribute__((always_inline)) void from_oklab(float L, float a, float b, float rgb[3]) {
    float lms[3];
    for (int j = 0; j < 3; j++) {
        float v = L + oklab_ab_to_lms[j][0] * a + oklab_ab_to_lms[j][1] * b;
        lms[j] = v * v * v;
    }
    for (int k = 0; k < 3; k++) rgb[k] = lms_to_rgb[k][0] * lms[0] + lms_to_rgb[k][1] * lms[1] + lms_to_rgb[k][2] * lms[2];
}

// A hair of tolerance: the matrices round-trip BT.709's corners to within 1e-6.
static int inside(const float rgb[3]) {
    const float lo = -1e-5f, hi = 1.0f + 1e-5f;
    return rgb[0] >= lo && rgb[1] >= lo && rgb[2] >= lo && rgb[0] <= hi && rgb[1] <= hi && rgb[2] <= hi;
}

// The cusp table's search, run by scripts/make-gamut-cusps (which writes gamut_cusps.h) and by the test that
// checks the table against it; no longer once per conversion (13 ms: 6 % of a half-second clip's conversion).

// The largest chroma of hue (ca, cb) (a unit vector) inside BT.709 at lightness L, by bisection.
static float max_chroma(float L, float ca, float cb) {
    float lo = 0.0f, hi = 0.5f, rgb[3];
    for (int i = 0; i < 24; i++) {
        float c = 0.5f * (lo + hi);
        from_oklab(L, c * ca, c * cb, rgb);
        if (inside(rgb)) lo = c; else hi = c;
    }
    return lo;
}

void sdrify_gamut_cusp_search(int hue, float *lightness, float *chroma) {
    float angle = 6.28318530718f * (float)hue / SDRIFY_GAMUT_HUES, ca = cosf(angle), cb = sinf(angle);
    // Chroma over lightness is single-peaked; a coarse scan then a fine one around its best.
    float best_l = 0.5f, best_c = -1.0f;
    for (int k = 1; k < 100; k++) {
        float L = (float)k / 100, c = max_chroma(L, ca, cb);
        if (c > best_c) { best_c = c; best_l = L; }
    }
    float from = best_l - 0.01f;
    for (int k = 0; k <= 40; k++) {
        float L = from + 0.0005f * (float)k, c = max_chroma(L, ca, cb);
        if (c > best_c) { best_c = c; best_l = L; }
    }
    *lightness = best_l;
    *chroma = best_c;
}

// The cusp's lightness and chroma per hue (SDRIFY_GAMUT_HUES steps round the circle, the first repeated at the
// end), as sdrify_gamut_cusp_search finds them.
#include "gamut_cusps.h"

void sdrify_gamut_cusp(int hue, float *lightness, float *chroma) {
    *lightness = cusp_lightness[hue];
    *chroma = cusp_chroma[hue];
}

// Selects, not fminf/fmaxf: those keep NaN apart at the cost of two more instructions a use, in the bisection's
// dependent chain. The mapper is never given NaN by the tone mapper; a NaN colour comes out black all the same
// (`dark` below).
static inline float min_(float a, float b) { return a < b ? a : b; }
static inline float max_(float a, float b) { return a > b ? a : b; }

// One colour, written without branches (selects) so that a loop of them vectorises.
static inline __attribute__((always_inline)) void map_one(float *pr, float *pg, float *pb) {
    float rgb[3] = {*pr, *pg, *pb};
    // Outside by less than a 1/2000 of SDR white (rounding around the edge, well under the 8-bit output's step):
    // clamped, which moves the colour by less than it can show.
    const float hair = 5e-4f;
    float in_lo = fminf(rgb[0], fminf(rgb[1], rgb[2])), in_hi = fmaxf(rgb[0], fmaxf(rgb[1], rgb[2]));
    int tiny = in_lo >= -hair && in_hi <= 1.0f + hair;

    float l = 0.4122214708f * rgb[0] + 0.5363325363f * rgb[1] + 0.0514459929f * rgb[2];
    float m = 0.2119034982f * rgb[0] + 0.6806995451f * rgb[1] + 0.1073969566f * rgb[2];
    float sv = 0.0883024619f * rgb[0] + 0.2817188376f * rgb[1] + 0.6299787005f * rgb[2];
    l = cube_root(l); m = cube_root(m); sv = cube_root(sv);
    float L = 0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * sv;
    float A = 1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * sv;
    float B = 0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * sv;
    float C = sqrtf(A * A + B * B), per = 1.0f / fmaxf(C, 1e-12f);
    float ca = A * per, cb = B * per;

    // The hue's cusp from the table, interpolated.
    float h = hue_angle(B, A) * (float)(SDRIFY_GAMUT_HUES / 6.28318530718);
    h = h < 0 ? h + SDRIFY_GAMUT_HUES : h;
    int i = (int)h;
    i = i < 0 ? 0 : (i >= SDRIFY_GAMUT_HUES ? SDRIFY_GAMUT_HUES - 1 : i);
    float f = h - (float)i;
    float Lc = cusp_lightness[i] + (cusp_lightness[i + 1] - cusp_lightness[i]) * f;
    float Cc = cusp_chroma[i] + (cusp_chroma[i + 1] - cusp_chroma[i]) * f;

    // Where the line meets the grey axis: the colour's own lightness when darker than the cusp; else halfway
    // between the cusp's and the grey whose line through (L, C) passes the cusp (when C is beyond the cusp's).
    float through = C > Cc ? Lc - Cc * (L - Lc) / fmaxf(C - Cc, 1e-12f) : Lc;
    float L0 = L > Lc ? fmaxf(0.5f * (Lc + fmaxf(through, 0.0f)), 0.0f) : L;
    L0 = fminf(fmaxf(L0, 0.0f), 1.0f);

    // Along (L0 + t(L − L0), t·C): t = 0 is grey, inside; the last point inside, by 12 halvings (to 1/4096 of
    // the way, finer than the output's step). Along the line each of Oklab's l', m', s' is linear in t, so each
    // channel of the colour is a cubic in t: its four coefficients found once, each halving costs three cubics
    // (Horner) instead of a conversion from Oklab.
    float dL = L - L0, dA = C * ca, dB = C * cb;
    // (L0 + t·d)³ = L0³ + 3·L0²·d·t + 3·L0·d²·t² + d³·t³, for each of l, m and s.
    float q1[3], q2[3], q3[3];
#pragma clang loop unroll(full)
    for (int j = 0; j < 3; j++) {
        float d = dL + oklab_ab_to_lms[j][0] * dA + oklab_ab_to_lms[j][1] * dB;
        q1[j] = 3.0f * L0 * L0 * d; q2[j] = 3.0f * L0 * d * d; q3[j] = d * d * d;
    }
    float k0 = L0 * L0 * L0, k1[3], k2[3], k3[3];   // each row of lms_to_rgb sums to 1: grey stays grey
#pragma clang loop unroll(full)
    for (int ch = 0; ch < 3; ch++) {
        const float *row = lms_to_rgb[ch];
        k1[ch] = row[0] * q1[0] + row[1] * q1[1] + row[2] * q1[2];
        k2[ch] = row[0] * q2[0] + row[1] * q2[1] + row[2] * q2[2];
        k3[ch] = row[0] * q3[0] + row[1] * q3[1] + row[2] * q3[2];
    }
    float lo_t = 0.0f, hi_t = 1.0f;
#pragma clang loop unroll(full)
    for (int k = 0; k < 12; k++) {
        float t = 0.5f * (lo_t + hi_t);
        float v0 = k0 + t * (k1[0] + t * (k2[0] + t * k3[0]));
        float v1 = k0 + t * (k1[1] + t * (k2[1] + t * k3[1]));
        float v2 = k0 + t * (k1[2] + t * (k2[2] + t * k3[2]));
        int in = min_(v0, min_(v1, v2)) >= 0.0f && max_(v0, max_(v1, v2)) <= 1.0f;
        lo_t = in ? t : lo_t;
        hi_t = in ? hi_t : t;
    }
    float c = lo_t * C, out[3];
    from_oklab(L0 + lo_t * (L - L0), c * ca, c * cb, out);

    // Greys (no hue to keep) and the special cases.
    float grey = fminf(fmaxf(L * L * L, 0.0f), 1.0f);
    int is_grey = C < 1e-4f;
    int dark = !(L > 0.0f);  // also NaN
#pragma clang loop unroll(full)
    for (int k = 0; k < 3; k++) {
        float v = fminf(fmaxf(out[k], 0.0f), 1.0f);
        v = is_grey ? grey : v;
        v = tiny ? fminf(fmaxf(rgb[k], 0.0f), 1.0f) : v;
        v = dark ? 0.0f : v;
        out[k] = v;
    }
    *pr = out[0]; *pg = out[1]; *pb = out[2];
}

void sdrify_gamut_map(float rgb[3]) {
    map_one(&rgb[0], &rgb[1], &rgb[2]);
}

// The mapping is a long chain of dependent steps (the bisection): one pixel at a time it waits on its own latency
// (measured: about 600 ns a pixel). So the marked pixels are gathered into a batch first, and the batch is mapped
// in a loop the compiler vectorises (eight pixels a step on the x86-64-v3 clone, whose F16C also converts the half
// floats in registers; the baseline calls libgcc for them), two vectors at a time: each is a chain of dependent
// steps, and two interleaved fill each other's waits (the mapper's CPU on Tears of Steel about 0.8×, same bytes).
// The AVX-512 clone (x86-64-v4) has 32 vector registers where AVX2 has 16: fewer spills (54 reloads against 127).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void sdrify_gamut_map_rows(const float *r, const float *g, const float *b, const float *share, _Float16 *out_r,
                           _Float16 *out_g, _Float16 *out_b, const unsigned char *outside, int count) {
    enum { BATCH = 256, GROUP = 8 };  // BATCH a multiple of 2 × GROUP
    float br[BATCH], bg[BATCH], bb[BATCH];
    int at[BATCH];
    for (int x = 0; x < count;) {
        // Most pixels are unmarked: a group of eight is passed over by one load; a group holding a mark is
        // gathered without a branch a pixel.
        int n = 0;
        while (x < count && n <= BATCH - GROUP) {
            int end = x + GROUP <= count ? x + GROUP : count;
            unsigned long long eight = 1;
            if (end - x == GROUP) __builtin_memcpy(&eight, outside + x, GROUP);
            if (eight == 0) { x = end; continue; }
            for (; x < end; x++) {
                at[n] = x;
                br[n] = r[x]; bg[n] = g[x]; bb[n] = b[x];
                n += outside[x] != 0;
            }
        }
        // Filled up to whole vectors (two of eight) with a grey: the loop's scalar remainder costs several times a
        // vector's share, and rows are often mapped in one small batch.
        int padded = (n + 2 * GROUP - 1) & ~(2 * GROUP - 1);
        for (int k = n; k < padded; k++) br[k] = bg[k] = bb[k] = 0.5f;
#pragma clang loop vectorize(enable) interleave_count(2)
        for (int k = 0; k < padded; k++) map_one(&br[k], &bg[k], &bb[k]);
        for (int k = 0; k < n; k++) {
            int i = at[k];
            float w = share[i];
            out_r[i] = (_Float16)((float)out_r[i] + w * (br[k] - (float)out_r[i]));
            out_g[i] = (_Float16)((float)out_g[i] + w * (bg[k] - (float)out_g[i]));
            out_b[i] = (_Float16)((float)out_b[i] + w * (bb[k] - (float)out_b[i]));
        }
    }
}
