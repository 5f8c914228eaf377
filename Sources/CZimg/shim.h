#ifndef CZIMG_SHIM_H
#define CZIMG_SHIM_H
#include <zimg.h>

// ZIMG_API_VERSION is a function-like macro expansion; Swift cannot import it.
static inline unsigned czimg_api_version(void) { return ZIMG_API_VERSION; }
// ZIMG_BUFFER_MAX is (unsigned)-1 written as a cast macro.
static inline unsigned czimg_buffer_max(void) { return ZIMG_BUFFER_MAX; }
// zimg_image_buffer's `plane` is an array of an anonymous struct, which Swift does not import.
static inline void czimg_set_src_plane(zimg_image_buffer_const *b, int i, const void *data, ptrdiff_t stride, unsigned mask) {
    b->plane[i].data = data; b->plane[i].stride = stride; b->plane[i].mask = mask;
}
static inline void czimg_set_dst_plane(zimg_image_buffer *b, int i, void *data, ptrdiff_t stride, unsigned mask) {
    b->plane[i].data = data; b->plane[i].stride = stride; b->plane[i].mask = mask;
}
#endif
