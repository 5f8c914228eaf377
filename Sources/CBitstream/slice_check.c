// The codec-independent face of the slice checks: one handle, dispatched to the H.264 or HEVC check.
#include "sdrify_slice_check.h"
#include "h264_check.h"
#include "hevc_check.h"

#include <stdlib.h>

struct sdrify_slice_check {
    sdrify_slice_check_codec codec;
    void *check;
};

sdrify_slice_check *sdrify_slice_check_new(sdrify_slice_check_codec codec) {
    sdrify_slice_check *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->codec = codec;
    s->check = codec == SDRIFY_SLICE_CHECK_H264 ? (void *)sdrify_h264_check_new() : (void *)sdrify_hevc_check_new();
    if (!s->check) { free(s); return NULL; }
    return s;
}

void sdrify_slice_check_free(sdrify_slice_check *s) {
    if (!s) return;
    if (s->codec == SDRIFY_SLICE_CHECK_H264) sdrify_h264_check_free(s->check);
    else sdrify_hevc_check_free(s->check);
    free(s);
}

void sdrify_slice_check_configure(sdrify_slice_check *s, const uint8_t *extradata, size_t size) {
    if (s->codec == SDRIFY_SLICE_CHECK_H264) sdrify_h264_check_configure(s->check, extradata, size);
    else sdrify_hevc_check_configure(s->check, extradata, size);
}

int sdrify_slice_check_packet(sdrify_slice_check *s, const uint8_t *data, size_t size, const char **problem) {
    if (s->codec == SDRIFY_SLICE_CHECK_H264) return sdrify_h264_check_packet(s->check, data, size, problem);
    return sdrify_hevc_check_packet(s->check, data, size, problem);
}

int sdrify_slice_check_finish(sdrify_slice_check *s, const char **problem) {
    if (s->codec == SDRIFY_SLICE_CHECK_H264) return sdrify_h264_check_finish(s->check, problem);
    return sdrify_hevc_check_finish(s->check, problem);
}

sdrify_slice_check_counts sdrify_slice_check_get_counts(const sdrify_slice_check *s) {
    if (s->codec == SDRIFY_SLICE_CHECK_H264) return sdrify_h264_check_get_counts(s->check);
    return sdrify_hevc_check_get_counts(s->check);
}
