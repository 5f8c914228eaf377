// Internal: what each codec's slice check provides to sdrify_slice_check (slice_check.c), which hands its calls on.
#ifndef SDRIFY_SLICE_CHECK_CODEC_H
#define SDRIFY_SLICE_CHECK_CODEC_H

#include "sdrify_slice_check.h"

typedef struct {
    void *(*create)(void);
    void (*free)(void *check);
    void (*configure)(void *check, const uint8_t *extradata, size_t size);
    int (*packet)(void *check, const uint8_t *data, size_t size, const char **problem);
    int (*finish)(void *check, const char **problem);
    sdrify_slice_check_counts (*counts)(const void *check);   // slices checked and unchecked (damage is counted here)
} SliceCheckCodec;

extern const SliceCheckCodec h264_slice_check;   // h264_check.c
extern const SliceCheckCodec hevc_slice_check;   // hevc_check.c

#endif
