#include "sdrify_kernels.h"

// Bilinear resampling of one 8-bit plane with sub-pixel placement (a Ken Burns move must glide, not step a whole
// pixel at a time as integer crops do). Fixed point: positions in 1/65536 of a pixel, weights in 1/256.
__attribute__((target_clones("arch=x86-64-v3", "default")))
// One body for both sample sizes (8-bit SDR pictures, the HDR kept's 16-bit words); strides in bytes.
#define SDRIFY_ZOOM_PLANE(T)                                                                                \
    const long max_x = (long)(src_w - 1) << 16, max_y = (long)(src_h - 1) << 16;                           \
    const long dx = (long)(step * 65536.0 + 0.5);                                                           \
    const long x0 = (long)(origin_x * 65536.0);                                                             \
    for (int j = 0; j < dst_h; j++) {                                                                       \
        long y = (long)((origin_y + j * step) * 65536.0);                                                   \
        if (y < 0) y = 0;                                                                                   \
        if (y > max_y) y = max_y;                                                                           \
        const int row = (int)(y >> 16), fy = (int)((y >> 8) & 0xFF);                                        \
        const T *top = (const T *)((const uint8_t *)src + row * src_stride);                                \
        const T *bottom = row + 1 < src_h ? (const T *)((const uint8_t *)top + src_stride) : top;           \
        T *out = (T *)((uint8_t *)dst + j * dst_stride);                                                    \
        for (int i = 0; i < dst_w; i++) {                                                                   \
            long x = x0 + i * dx;                                                                           \
            if (x < 0) x = 0;                                                                               \
            if (x > max_x) x = max_x;                                                                       \
            const int col = (int)(x >> 16), fx = (int)((x >> 8) & 0xFF);                                    \
            const int right = col + 1 < src_w ? col + 1 : col;                                              \
            const int a = top[col] * (256 - fx) + top[right] * fx;                                          \
            const int b = bottom[col] * (256 - fx) + bottom[right] * fx;                                    \
            out[i] = (T)((a * (256 - fy) + b * fy + 32768) >> 16);                                          \
        }                                                                                                   \
    }

void sdrify_zoom_plane(const uint8_t *src, long src_stride, int src_w, int src_h, uint8_t *dst, long dst_stride,
                       int dst_w, int dst_h, double origin_x, double origin_y, double step) {
    SDRIFY_ZOOM_PLANE(uint8_t)
}

void sdrify_zoom_plane_u16(const uint16_t *src, long src_stride, int src_w, int src_h, uint16_t *dst, long dst_stride,
                           int dst_w, int dst_h, double origin_x, double origin_y, double step) {
    SDRIFY_ZOOM_PLANE(uint16_t)
}
