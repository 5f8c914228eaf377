#include "sdrify_kernels.h"
#include <math.h>
#include <pthread.h>

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

// Cube root of any float: a first guess from the exponent bits, then three Newton steps (within 1e-6 relative, far
// under what 8-bit output shows; libm's cbrtf costs several times as much and this runs per mapped pixel).
static float cube_root(float x) {
    float a = fabsf(x);
    if (a < 1e-30f) return 0.0f;
    unsigned u;
    __builtin_memcpy(&u, &a, 4);
    u = u / 3 + 709921077u;  // the exponent divided by 3, the mantissa roughly so
    float y;
    __builtin_memcpy(&y, &u, 4);
    y = y - (y * y * y - a) / (3.0f * y * y);
    y = y - (y * y * y - a) / (3.0f * y * y);
    y = y - (y * y * y - a) / (3.0f * y * y);
    return x < 0 ? -y : y;
}

// atan2 to about 0.005 rad (a polynomial on the octant), enough to interpolate a table of 256 hues.
static float hue_angle(float b, float a) {
    float ax = fabsf(a), ay = fabsf(b), lo = fminf(ax, ay), hi = fmaxf(ax, ay);
    float t = hi > 0 ? lo / hi : 0.0f, t2 = t * t;
    float r = t * (0.99997726f + t2 * (-0.33262347f + t2 * (0.19354346f + t2 * (-0.11643287f + t2 * (0.05265332f - 0.01172120f * t2)))));
    if (ay > ax) r = 1.57079637f - r;
    if (a < 0) r = 3.14159274f - r;
    return b < 0 ? -r : r;
}

static void to_oklab(const float rgb[3], float lab[3]) {
    float l = 0.4122214708f * rgb[0] + 0.5363325363f * rgb[1] + 0.0514459929f * rgb[2];
    float m = 0.2119034982f * rgb[0] + 0.6806995451f * rgb[1] + 0.1073969566f * rgb[2];
    float s = 0.0883024619f * rgb[0] + 0.2817188376f * rgb[1] + 0.6299787005f * rgb[2];
    l = cube_root(l); m = cube_root(m); s = cube_root(s);
    lab[0] = 0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * s;
    lab[1] = 1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * s;
    lab[2] = 0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * s;
}

static void from_oklab(float L, float a, float b, float rgb[3]) {
    float l = L + 0.3963377774f * a + 0.2158037573f * b;
    float m = L - 0.1055613458f * a - 0.0638541728f * b;
    float s = L - 0.0894841775f * a - 1.2914855480f * b;
    l = l * l * l; m = m * m * m; s = s * s * s;
    rgb[0] = 4.0767416621f * l - 3.3077115913f * m + 0.2309699292f * s;
    rgb[1] = -1.2684380046f * l + 2.6097574011f * m - 0.3413193965f * s;
    rgb[2] = -0.0041960863f * l - 0.7034186147f * m + 1.7076147010f * s;
}

// A hair of tolerance: the matrices round-trip BT.709's corners to within 1e-6.
static int inside(const float rgb[3]) {
    const float lo = -1e-5f, hi = 1.0f + 1e-5f;
    return rgb[0] >= lo && rgb[1] >= lo && rgb[2] >= lo && rgb[0] <= hi && rgb[1] <= hi && rgb[2] <= hi;
}

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

// The cusp's lightness per hue, built once: HUES steps round the circle, each the lightness of largest chroma.
#define HUES 256
static float cusp_lightness[HUES + 1], cusp_chroma[HUES + 1];
static pthread_once_t cusp_once = PTHREAD_ONCE_INIT;

static void build_cusps(void) {
    for (int h = 0; h < HUES; h++) {
        float angle = 6.28318530718f * (float)h / HUES, ca = cosf(angle), cb = sinf(angle);
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
        cusp_lightness[h] = best_l;
        cusp_chroma[h] = best_c;
    }
    cusp_lightness[HUES] = cusp_lightness[0];
    cusp_chroma[HUES] = cusp_chroma[0];
}

static void cusp_at(float a, float b, float *lightness, float *chroma) {
    float t = hue_angle(b, a) * (float)(HUES / 6.28318530718);
    if (t < 0) t += HUES;
    int i = (int)t;
    if (i >= HUES) i = HUES - 1;
    float f = t - (float)i;
    *lightness = cusp_lightness[i] + (cusp_lightness[i + 1] - cusp_lightness[i]) * f;
    *chroma = cusp_chroma[i] + (cusp_chroma[i + 1] - cusp_chroma[i]) * f;
}

void sdrify_gamut_init(void) { pthread_once(&cusp_once, build_cusps); }

void sdrify_gamut_map(float rgb[3]) {
    // Outside by less than a 1/2000 of SDR white (rounding around the edge, well under the 8-bit output's step):
    // clamped, which moves the colour by less than it can show.
    const float hair = 5e-4f;
    float lo = fminf(rgb[0], fminf(rgb[1], rgb[2])), hi = fmaxf(rgb[0], fmaxf(rgb[1], rgb[2]));
    if (lo >= -hair && hi <= 1.0f + hair) {
        for (int k = 0; k < 3; k++) rgb[k] = fminf(fmaxf(rgb[k], 0.0f), 1.0f);
        return;
    }
    float lab[3];
    to_oklab(rgb, lab);
    float L = lab[0], C = sqrtf(lab[1] * lab[1] + lab[2] * lab[2]);
    if (!(L > 0.0f)) { rgb[0] = rgb[1] = rgb[2] = 0.0f; return; }  // also NaN
    if (L >= 1.0f && C < 1e-4f) { rgb[0] = rgb[1] = rgb[2] = 1.0f; return; }
    if (C < 1e-6f) {  // grey within rounding: clamp the equal channels
        float v = fminf(fmaxf(L * L * L, 0.0f), 1.0f);
        rgb[0] = rgb[1] = rgb[2] = v;
        return;
    }
    float ca = lab[1] / C, cb = lab[2] / C;
    float Lc, Cc;
    cusp_at(lab[1], lab[2], &Lc, &Cc);
    float L0 = L;  // where the line meets the grey axis
    if (L > Lc) {
        // The grey whose line through (L, C) passes the cusp, when C is beyond the cusp's chroma; halfway to it.
        float through = C > Cc ? Lc - Cc * (L - Lc) / (C - Cc) : Lc;
        L0 = fmaxf(0.5f * (Lc + fmaxf(through, 0.0f)), 0.0f);
    }
    // Along (L0 + t(L − L0), t·C): t = 0 is grey, inside; find the largest t inside.
    float lo_t = 0.0f, hi_t = 1.0f, out[3];
    // 11 halvings: the point to 1/2048 of the way, finer than the output's step.
    for (int i = 0; i < 11; i++) {
        float t = 0.5f * (lo_t + hi_t), c = t * C;
        from_oklab(L0 + t * (L - L0), c * ca, c * cb, out);
        if (inside(out)) lo_t = t; else hi_t = t;
    }
    float c = lo_t * C;
    from_oklab(L0 + lo_t * (L - L0), c * ca, c * cb, out);
    for (int k = 0; k < 3; k++) rgb[k] = fminf(fmaxf(out[k], 0.0f), 1.0f);
}

void sdrify_gamut_map_rows(const float *r, const float *g, const float *b, _Float16 *out_r, _Float16 *out_g,
                           _Float16 *out_b, const unsigned char *outside, int count) {
    for (int i = 0; i < count; i++) {
        if (!outside[i]) continue;
        float rgb[3] = {r[i], g[i], b[i]};
        sdrify_gamut_map(rgb);
        out_r[i] = (_Float16)rgb[0]; out_g[i] = (_Float16)rgb[1]; out_b[i] = (_Float16)rgb[2];
    }
}
