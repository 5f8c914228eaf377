// Internal: what each codec's slice check provides to sdrify_slice_check (slice_check.c), which hands its calls on.
#ifndef SDRIFY_SLICE_CHECK_CODEC_H
#define SDRIFY_SLICE_CHECK_CODEC_H

#include "sdrify_slice_check.h"
#include "nal_units.h"

/// What every codec's check keeps about the stream, as the first member of its own state (so slice_check.c walks
/// the packets and reads the counts for both codecs).
typedef struct {
    int nal_length_size;           // 0: Annex B start codes
    int packet_pictures;           // pictures (base-layer VCL NAL units) in the packet being checked
    sdrify_slice_check_counts counts;   // slices checked and unchecked (damage is counted in slice_check.c)
} SliceCheckStream;

typedef struct {
    void *(*create)(void);         // returns state that starts with a SliceCheckStream
    void (*free)(void *check);
    void (*configure)(void *check, const uint8_t *extradata, size_t size);
    NalVisitor check_nal;          // one NAL unit of a packet; counts its pictures in packet_pictures
    int (*finish)(void *check, const char **problem);
} SliceCheckCodec;

extern const SliceCheckCodec h264_slice_check;   // h264_check.c
extern const SliceCheckCodec hevc_slice_check;   // hevc_check.c

#endif
