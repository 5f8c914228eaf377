// An HEVC slice-data syntax check, independent of libavcodec.
//
// libavcodec decodes damaged HEVC slice data without a word: its CABAC reader runs on through garbage and the
// picture comes out visibly wrong. This check parses every slice's coding tree (entropy decoding only, no
// reconstruction) and verifies what a correct slice must satisfy: the arithmetic decoder ends exactly on the
// slice's stop bit, substreams start where the entry points say, and the picture's coding tree blocks are all
// covered. A desynchronised decoder almost never meets those. Slices using tools this check does not parse
// (4:2:2, 4:4:4, PCM blocks, the range and screen-content extension tools that change the syntax, pictures over
// 8K) are left unchecked rather than guessed at.
#ifndef SDRIFY_HEVC_CHECK_H
#define SDRIFY_HEVC_CHECK_H

#include <stddef.h>
#include <stdint.h>

typedef struct sdrify_hevc_check sdrify_hevc_check;

typedef struct {
    int64_t slices_checked;     // slice segments whose coding tree was parsed to its end
    int64_t slices_unchecked;   // slice segments skipped (missing parameter sets, unsupported tools)
    int64_t damaged;            // slice segments or pictures found damaged
} sdrify_hevc_check_counts;

sdrify_hevc_check *sdrify_hevc_check_new(void);
void sdrify_hevc_check_free(sdrify_hevc_check *check);

// Reads the parameter sets of the container's codec configuration (an hvcC record, or Annex B) and learns how
// the packets delimit their NAL units.
void sdrify_hevc_check_configure(sdrify_hevc_check *check, const uint8_t *extradata, size_t size);

// Checks one packet (an access unit). Returns how many damaged slice segments or pictures it found (0 when
// none); `problem` receives a static description of the first one.
int sdrify_hevc_check_packet(sdrify_hevc_check *check, const uint8_t *data, size_t size, const char **problem);

// At the end of the stream: whether the last picture was complete (same return convention).
int sdrify_hevc_check_finish(sdrify_hevc_check *check, const char **problem);

sdrify_hevc_check_counts sdrify_hevc_check_get_counts(const sdrify_hevc_check *check);

#endif
