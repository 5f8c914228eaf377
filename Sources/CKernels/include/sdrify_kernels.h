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
/// HLG R'G'B' (BT.2020, signal 0-1) → linear BT.709 RGB relative to 203 cd/m², in place. Signals outside 0-1
/// (out of the container's gamut) are clamped to BT.2100's range first. Then the inverse OETF
/// from `oetf_inv` (`oetf_size` entries over signal 0-1, linear interpolation), the BT.2100 OOTF on luminance
/// (gamma 1.2 at a 1000 cd/m² display: scene light × Ys^0.2 × 1000/203) with Ys^0.2 from `ootf_gain`
/// (indexed like the gain table, from `ootf_base`), then the BT.2020 → BT.709 primaries matrix.
void sdrify_hlg_to_linear_row(float *r, float *g, float *b, int count,
                              const float *oetf_inv, int oetf_size, const float *ootf_gain, unsigned ootf_base,
                              float min_y);
#endif
