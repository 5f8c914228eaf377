#ifndef SDRIFY_KERNELS_H
#define SDRIFY_KERNELS_H
// Hot per-pixel kernels, in C because Swift's SIMD types lower to scalar shuffles on the baseline x86-64 target
// (measured: 5 ns/pixel in Swift SIMD4 vs this loop's auto-vectorised form). Each has an AVX2 clone that the
// loader picks on CPUs that have it. Only plain arrays cross this boundary.

/// Tone and gamut mapping of one row of linear BT.709 RGB (relative to HDR reference white), in place.
/// `gains` is the gain table indexed by (float bits >> 16) - `base` (see GainTable.swift); `min_y`/`max_y`
/// clamp the luminance looked up.
void sdrify_tonemap_row(float *r, float *g, float *b, int count,
                        const float *gains, unsigned base, float min_y, float max_y);
#endif
