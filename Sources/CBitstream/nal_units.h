// Internal to the bitstream checks: NAL units found in packets and codec configurations (Annex B start codes or
// length prefixes), and their RBSP with emulation prevention removed. H.264 and HEVC share all of it.
#ifndef SDRIFY_NAL_UNITS_H
#define SDRIFY_NAL_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *rbsp;                 // followed by BR_PADDING zero bytes
    size_t capacity;
    size_t *removed;               // NAL offsets of the removed emulation prevention bytes
    size_t removed_count, removed_capacity;
} RBSPBuffer;

/// The RBSP of a NAL unit's payload (after its header) into r->rbsp. Returns its size, or -1 without memory.
int rbsp_unescape(RBSPBuffer *r, const uint8_t *payload, size_t size);
void rbsp_free(RBSPBuffer *r);

/// Called for each NAL unit; returns how many damaged units it found and sets *problem for the first one.
typedef int (*NalVisitor)(void *context, const uint8_t *nal, size_t size, const char **problem);

/// Visits the NAL units of an Annex B byte stream (start codes, trailing zero bytes dropped).
int nal_walk_annexb(const uint8_t *data, size_t size, NalVisitor visit, void *context, const char **problem);

/// Visits the NAL units of a length-prefixed sample (MP4, Matroska): one access unit whose NAL units fill it
/// exactly. A length running past the sample, or bytes after the last NAL unit, is damage the decoder skips
/// without a word; each counts as one damaged unit. Start codes inside a length-prefixed unit split it, as
/// libavcodec splits it (some encoders write Annex B inside MP4 samples).
int nal_walk_sample(const uint8_t *data, size_t size, int length_size, NalVisitor visit, void *context,
                    const char **problem);

/// One packet (an access unit): Annex B when length_size is 0, otherwise a length-prefixed sample, which must also
/// hold a picture: the visitor counts the pictures it sees in *pictures (set to 0 here first).
int nal_walk_packet(const uint8_t *data, size_t size, int length_size, NalVisitor visit, void *context,
                    int *pictures, const char **problem);

#endif
