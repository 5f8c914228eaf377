#include "sdrify_kernels.h"

// See sdrify_kernels.h. A plain loop the compiler vectorises (16-bit lanes).
void sdrify_mix_rows(const uint8_t *a, long a_stride, const uint8_t *b, long b_stride, uint8_t *out, long out_stride,
                     int width, int height, int weight) {
    const int wa = 256 - weight;
    for (int y = 0; y < height; y++) {
        const uint8_t *ra = a + y * a_stride, *rb = b + y * b_stride;
        uint8_t *ro = out + y * out_stride;
        for (int x = 0; x < width; x++) ro[x] = (uint8_t)((ra[x] * wa + rb[x] * weight + 128) >> 8);
    }
}
