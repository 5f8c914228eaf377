// The codec-independent face of the slice checks: one handle, its calls handed on to the H.264 or HEVC check.
#include "sdrify_slice_check.h"
#include "slice_check_codec.h"

#include <stdlib.h>

struct sdrify_slice_check {
    const SliceCheckCodec *codec;
    void *check;
    int64_t damaged;               // what packet and finish reported, for the counts
};

sdrify_slice_check *sdrify_slice_check_new(sdrify_slice_check_codec codec) {
    sdrify_slice_check *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->codec = codec == SDRIFY_SLICE_CHECK_H264 ? &h264_slice_check : &hevc_slice_check;
    s->check = s->codec->create();
    if (!s->check) { free(s); return NULL; }
    return s;
}

void sdrify_slice_check_free(sdrify_slice_check *s) {
    if (!s) return;
    s->codec->free(s->check);
    free(s);
}

void sdrify_slice_check_configure(sdrify_slice_check *s, const uint8_t *extradata, size_t size) {
    s->codec->configure(s->check, extradata, size);
}

int sdrify_slice_check_packet(sdrify_slice_check *s, const uint8_t *data, size_t size, const char **problem) {
    SliceCheckStream *stream = s->check;
    int damaged = nal_walk_packet(data, size, stream->nal_length_size, s->codec->check_nal, s->check,
                                  &stream->packet_pictures, problem);
    s->damaged += damaged;
    return damaged;
}

int sdrify_slice_check_finish(sdrify_slice_check *s, const char **problem) {
    int damaged = s->codec->finish(s->check, problem);
    s->damaged += damaged;
    return damaged;
}

sdrify_slice_check_counts sdrify_slice_check_get_counts(const sdrify_slice_check *s) {
    sdrify_slice_check_counts counts = ((const SliceCheckStream *)s->check)->counts;
    counts.damaged = s->damaged;
    return counts;
}
