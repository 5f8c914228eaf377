#include "sdrify_kernels.h"

// A horizontal mirror needs chroma sited on the right of its 2×2 block before it is mirrored (so that it is on the
// left, where the output is tagged, afterwards); no format describes right siting. The colour stage makes it on the
// left, and this moves it half a chroma sample right: the value at i + 1/2 from the cubic half-sample filter
// (−1, 9, 9, −1)/16, edges repeated. Exact on linear ramps, and sharper than the average of two neighbours.
static inline int clamp_index(int i, int w) { return i < 0 ? 0 : (i >= w ? w - 1 : i); }

void sdrify_chroma_half_right_u8(const uint8_t *src, long src_stride, uint8_t *dst, long dst_stride, int width,
                                 int height) {
    for (int j = 0; j < height; j++) {
        const uint8_t *in = src + j * src_stride;
        uint8_t *out = dst + j * dst_stride;
        for (int i = 0; i < width; i++) {
            const int v = 9 * (in[i] + in[clamp_index(i + 1, width)]) - in[clamp_index(i - 1, width)] -
                          in[clamp_index(i + 2, width)];
            const int r = (v + 8) >> 4;
            out[i] = (uint8_t)(r < 0 ? 0 : (r > 255 ? 255 : r));
        }
    }
}

void sdrify_chroma_half_right_u16(const uint16_t *src, long src_stride, uint16_t *dst, long dst_stride, int width,
                                  int height, int max_value) {
    for (int j = 0; j < height; j++) {
        const uint16_t *in = (const uint16_t *)((const uint8_t *)src + j * src_stride);
        uint16_t *out = (uint16_t *)((uint8_t *)dst + j * dst_stride);
        for (int i = 0; i < width; i++) {
            const int v = 9 * (in[i] + in[clamp_index(i + 1, width)]) - in[clamp_index(i - 1, width)] -
                          in[clamp_index(i + 2, width)];
            const int r = (v + 8) >> 4;
            out[i] = (uint16_t)(r < 0 ? 0 : (r > max_value ? max_value : r));
        }
    }
}
