// Slice-data syntax checks for H.264 and HEVC, independent of libavcodec.
//
// libavcodec decodes damaged slice data without a word: its CABAC reader runs on through garbage and the picture
// comes out visibly wrong. These checks parse every slice's syntax (entropy decoding only, no reconstruction)
// and verify what a correct slice must satisfy: the arithmetic decoder ends exactly on the slice's stop bit with
// nothing but zeros after it, and the picture's slices cover it. A desynchronised decoder almost never meets
// those. Slices using tools a check does not parse are counted as unchecked rather than guessed at (see
// h264_check.c and hevc_check.c for the lists).
#ifndef SDRIFY_SLICE_CHECK_H
#define SDRIFY_SLICE_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef enum { SDRIFY_SLICE_CHECK_H264 = 1, SDRIFY_SLICE_CHECK_HEVC = 2 } sdrify_slice_check_codec;

typedef struct sdrify_slice_check sdrify_slice_check;

typedef struct {
    int64_t slices_checked;     // slices (HEVC: slice segments) whose syntax was parsed to its end
    int64_t slices_unchecked;   // slices skipped (missing parameter sets, unsupported tools)
    int64_t damaged;            // slices, samples or pictures found damaged
} sdrify_slice_check_counts;

/// A check for the codec, or NULL without memory.
sdrify_slice_check *sdrify_slice_check_new(sdrify_slice_check_codec codec);
void sdrify_slice_check_free(sdrify_slice_check *check);

/// Reads the parameter sets of the container's codec configuration (avcC / hvcC, or Annex B) and learns how the
/// packets delimit their NAL units.
void sdrify_slice_check_configure(sdrify_slice_check *check, const uint8_t *extradata, size_t size);

/// Checks one packet (an access unit). Returns how many damaged slices, samples or pictures it found (0 when
/// none); `problem` receives a static description of the first one.
int sdrify_slice_check_packet(sdrify_slice_check *check, const uint8_t *data, size_t size, const char **problem);

/// At the end of the stream: whether the last picture was complete (same return convention).
int sdrify_slice_check_finish(sdrify_slice_check *check, const char **problem);

sdrify_slice_check_counts sdrify_slice_check_get_counts(const sdrify_slice_check *check);

#endif
