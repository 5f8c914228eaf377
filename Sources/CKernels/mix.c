#include "sdrify_kernels.h"

// See sdrify_kernels.h. A plain loop the compiler vectorises (16-bit lanes).
// One body for both sample sizes; strides in bytes.
#define SDRIFY_MIX_ROWS(T)                                                                          \
    const int wa = 256 - weight;                                                                    \
    for (int y = 0; y < height; y++) {                                                              \
        const T *ra = (const T *)((const uint8_t *)a + y * a_stride);                               \
        const T *rb = (const T *)((const uint8_t *)b + y * b_stride);                               \
        T *ro = (T *)((uint8_t *)out + y * out_stride);                                             \
        for (int x = 0; x < width; x++) ro[x] = (T)((ra[x] * wa + rb[x] * weight + 128) >> 8);      \
    }

void sdrify_mix_rows(const uint8_t *a, long a_stride, const uint8_t *b, long b_stride, uint8_t *out, long out_stride,
                     int width, int height, int weight) {
    SDRIFY_MIX_ROWS(uint8_t)
}

void sdrify_mix_rows_u16(const uint16_t *a, long a_stride, const uint16_t *b, long b_stride, uint16_t *out,
                         long out_stride, int width, int height, int weight) {
    SDRIFY_MIX_ROWS(uint16_t)
}
