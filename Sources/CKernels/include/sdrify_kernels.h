#ifndef SDRIFY_KERNELS_H
#define SDRIFY_KERNELS_H
// Hot per-pixel kernels, in C because Swift's SIMD types lower to scalar shuffles on the baseline x86-64 target
// (measured: 5 ns/pixel in Swift SIMD4 vs this loop's auto-vectorised form). Each has an x86-64-v3 clone
// (AVX2, FMA, F16C) that the loader picks on CPUs that have it, and the colour loop and the gamut mapper an
// x86-64-v4 one (AVX-512: sixteen lanes, and 32 vector registers for the mapper's long chain). Only plain arrays
// cross this boundary.

/// Tone and gamut mapping of one row of linear BT.709 RGB (relative to HDR reference white), written as half
/// floats (the frame-sized buffer zimg's second leg reads: half the memory of floats, and 11 significant bits
/// on values in 0-1 are far finer than the 8-bit output).
/// `gains` is the gain table indexed by (float bits >> 16) - `base` (see GainTable.swift); `min_y`/`max_y`
/// clamp the luminance looked up.
/// Local contrast (`inverse0` NULL: none): each pixel's luminance y over its neighbourhood's light (the ratio r,
/// held within [`ratio_lo`, `ratio_hi`], 2^±clamp) is put back by `weight` of what the curve took from it: the gain
/// times r^weight, with no channel lifted past 1 and no darkening within a quarter of 1 from the top. The clamp
/// bounds what strong edges can do (halos). The neighbourhood's inverse light is `wy` of
/// the way from the row `inverse0` to `inverse1`.
/// Colours clearly outside BT.709 after the gain (a channel under −0.05, or a saturated colour half over white) are
/// brought inside by `sdrify_gamut_map`, blended in without a step; the rest toward grey at equal luminance (and,
/// above white, a saturated colour by dimming, a near-grey half by desaturation, half by dimming).
void sdrify_tonemap_row(const float *r, const float *g, const float *b, _Float16 *out_r, _Float16 *out_g,
                        _Float16 *out_b, int count,
                        const float *gains, unsigned base, float min_y, float max_y,
                        const float *inverse0, const float *inverse1, const float *weight, float wy, float ratio_lo,
                        float ratio_hi);
/// Whether this thread's next span of `sdrify_tonemap_row` takes the way for spans where most colours need placing
/// inside BT.709 (one loop doing everything) rather than two passes (the curve, then only what is outside). Both
/// give the same bytes; the way follows the span before. For the test that holds them to that.
int sdrify_tonemap_next_span_dense(void);
/// HLG R'G'B' (BT.2020, signal 0-1) → linear BT.709 RGB relative to 203 cd/m², into `out_*`. Signals outside 0-1
/// (out of the container's gamut) are clamped to BT.2100's range first. Then the inverse OETF
/// from `oetf_inv` (`oetf_size` entries over signal 0-1, linear interpolation), the BT.2100 OOTF on luminance
/// (gamma 1.2 at a 1000 cd/m² display: scene light × Ys^0.2 × 1000/203) with Ys^0.2 from `ootf_gain`
/// (indexed like the gain table, from `ootf_base`), then the BT.2020 → BT.709 primaries matrix.
void sdrify_hlg_to_linear_row(const float *r, const float *g, const float *b, float *out_r, float *out_g,
                              float *out_b, int count,
                              const float *oetf_inv, int oetf_size, const float *ootf_gain, unsigned ootf_base,
                              float min_y);

/// The colour pass over rows as zimg's first leg writes them: `rows` is that leg's output, a ring of
/// (`row_mask` + 1) float rows; `frame` the frame-sized half-float planes the second leg reads. HLG sources
/// (`oetf_inv` not NULL) are linearised through `scratch` (three float rows of the output width).
typedef struct sdrify_colour_job {
    const float *rows[3]; long row_stride; unsigned row_mask;
    _Float16 *frame[3]; long frame_stride;
    float *scratch[3];
    const float *gains; unsigned gain_base; float min_y, max_y;
    const float *oetf_inv; int oetf_size; const float *ootf_gain; unsigned ootf_base;
    // Local contrast (`inverse_rows` NULL: none): the grids' rows (`grid_h` of them) upsampled to the output's
    // `width` (sdrify_local_contrast_rows); output row i lies at grid row i·`row_step` + `row_origin`, between two
    // (the weight is the nearer row's: it changes slowly, and a row fewer to read is measurable).
    // `weighted`: per grid row, per SDRIFY_CHUNK output columns (`chunks` of them), whether any weight there is
    // not 0; where none is, the row takes the plain loop.
    const float *inverse_rows, *weight_rows; int width, grid_h; float row_origin, row_step, ratio_lo, ratio_hi;
    const unsigned char *weighted; int chunks;
} sdrify_colour_job;
/// zimg's output callback (`zimg_filter_graph_callback`): runs the colour pass on row `i`, columns
/// [`left`, `right`), right after zimg wrote them, while they are in cache. `job` is an sdrify_colour_job.
int sdrify_colour_rows(void *job, unsigned i, unsigned left, unsigned right);

/// The local-contrast grids of one picture from its grid of sample light (`light`, log2 stops, `w` × `h`, as
/// sdrify_scene_histogram writes it): each cell's neighbourhood light, an edge-preserving smoothing over `radius`
/// cells each way (a guided filter: differences well under `edge` stops are smoothed away, edges well over it
/// kept), written as its inverse (2^−stops) to `inverse`; and to `weight`, the contrast weight at that level from
/// `table` (`table_size` entries, entry k for `table_lowest` + k / `table_per_stop` stops, linear between, clamped
/// at the ends). `scratch` holds 5 × w × h floats.
void sdrify_local_contrast_grids(const float *light, int w, int h, int radius, float edge, float *inverse,
                                 float *weight, float *scratch, const float *table, int table_size,
                                 float table_lowest, float table_per_stop);
/// A grid's rows (`grid_w` × `grid_h`) upsampled to `width` columns, linearly: output columns `col_start[c]` up to
/// `col_start[c + 1]` lie `col_frac[x]` of the way from grid column c to c + 1. `rows` holds grid_h × width.
/// `nonzero` (NULL: not written) gets, per row and per SDRIFY_CHUNK columns, whether any value there is not 0.
#define SDRIFY_CHUNK 64

/// The gamut mapper's table: per hue (SDRIFY_GAMUT_HUES steps round Oklab's hue circle) the lightness and chroma of
/// the most saturated colour inside BT.709. `sdrify_gamut_cusp` reads the table (built in, gamut_cusps.h);
/// `sdrify_gamut_cusp_search` finds them (scripts/make-gamut-cusps writes the table with it).
#define SDRIFY_GAMUT_HUES 256
void sdrify_gamut_cusp(int hue, float *lightness, float *chroma);
void sdrify_gamut_cusp_search(int hue, float *lightness, float *chroma);
/// Brings one linear BT.709 colour (relative to SDR white) inside 0-1 along its own hue in Oklab: colours darker
/// than their hue's most saturated one keep their lightness and give up chroma; lighter ones give up lightness
/// and chroma toward that one's lightness. Colours already inside come out as they went in.
void sdrify_gamut_map(float rgb[3]);
/// `sdrify_gamut_map` of the float rows `r`, `g`, `b` mixed into what the half-float rows `out_*` hold, `share` of
/// the way, for each pixel whose `outside` mark is set.
void sdrify_gamut_map_rows(const float *r, const float *g, const float *b, const float *share, _Float16 *out_r,
                           _Float16 *out_g, _Float16 *out_b, const unsigned char *outside, int count);
void sdrify_local_contrast_rows(const float *grid, int grid_w, int grid_h, const int *col_start, const float *col_frac,
                                float *rows, int width, unsigned char *nonzero);

/// Scene statistics for the adaptive tone curve: a histogram of the light of every `step`-th sample of a decoded
/// Y'CbCr picture (4:2:0, 4:2:2, 4:4:4 or grey; 8 or 16-bit samples), before any resizing.
/// Each sample: signal = (code − offset) × scale; R'G'B' from Y'CbCr by the matrix's coefficients; each channel
/// through `eotf` (`eotf_size` entries over signal 0-1: PQ display light relative to 203 cd/m², or HLG scene
/// light); v = kr·R + kg·G + kb·B, then for HLG the BT.2100 OOTF on it: v = ootf_scale · v^ootf_gamma (display light
/// relative to 203 cd/m²; ootf_gamma 0 leaves v as it is). The bin is the float's top bits: (bits(v) >> SDRIFY_STATS_SHIFT) − `base`,
/// 8 bins per octave; values at or below `min_v` land in bin 0, values past the last bin in the last.
#define SDRIFY_STATS_SHIFT 20
typedef struct sdrify_stats_job {
    const void *planes[3]; long strides[3];  // planes[1] NULL: grey (neutral chroma)
    int bytes, width, height, shift_x, shift_y, step;
    float y_offset, y_scale, c_offset, c_scale;
    float cr_r, cb_g, cr_g, cb_b;  // R' = Y' + cr_r·Cr, G' = Y' − cb_g·Cb − cr_g·Cr, B' = Y' + cb_b·Cb
    const float *eotf; int eotf_size;
    float kr, kg, kb, min_v;
    float ootf_gamma, ootf_scale;  // HLG: display light from scene luminance; ootf_gamma 0: none (PQ)
    float *grid; int grid_w;  // not NULL: log2(v) of the sample at (x, y) written at grid[(y/step)·grid_w + x/step]
    unsigned *histogram; unsigned bins, base;
    unsigned *neutral;  // the same histogram of the near-neutral samples: (max − min) ≤ neutral_spread · max of R, G, B
    float neutral_spread;
} sdrify_stats_job;
void sdrify_scene_histogram(const sdrify_stats_job *job);

#include <stdint.h>
/// out = a·(256 − weight)/256 + b·weight/256, rounded, over `height` rows of `width` 8-bit samples (a crossfade;
/// `weight` 0–256).
void sdrify_mix_rows(const uint8_t *a, long a_stride, const uint8_t *b, long b_stride, uint8_t *out, long out_stride,
                     int width, int height, int weight);
/// The same over 16-bit samples (the HDR kept's 10-bit words); strides in bytes.
void sdrify_mix_rows_u16(const uint16_t *a, long a_stride, const uint16_t *b, long b_stride, uint16_t *out,
                         long out_stride, int width, int height, int weight);

/// Makes glibc serve every allocation of at least `bytes` with mmap and give it back when freed (a fixed threshold:
/// glibc's own slides up after the first large free). Returns mallopt's result (1 on success).
int sdrify_fixed_mmap_threshold(int bytes);

/// One 8-bit plane resampled bilinearly: destination sample (i, j) takes the source at
/// (`origin_x` + i·`step`, `origin_y` + j·`step`) in source samples (clamped to the edges): a zoom and pan.
void sdrify_zoom_plane(const uint8_t *src, long src_stride, int src_w, int src_h, uint8_t *dst, long dst_stride,
                       int dst_w, int dst_h, double origin_x, double origin_y, double step);
/// The same over 16-bit samples; strides in bytes.
void sdrify_zoom_plane_u16(const uint16_t *src, long src_stride, int src_w, int src_h, uint16_t *dst, long dst_stride,
                           int dst_w, int dst_h, double origin_x, double origin_y, double step);

/// Each row of a chroma plane resampled half a sample to the right (out[i] = the value at i + ½; cubic, edges
/// repeated): chroma sited on the left made right-sited, for a horizontal mirror to leave it on the left. Strides in
/// bytes; the u16 form clamps to `max_value`.
void sdrify_chroma_half_right_u8(const uint8_t *src, long src_stride, uint8_t *dst, long dst_stride, int width,
                                 int height);
void sdrify_chroma_half_right_u16(const uint16_t *src, long src_stride, uint16_t *dst, long dst_stride, int width,
                                  int height, int max_value);
#endif
