// Internal to the H.264 check: CABAC context initialisation (Rec. ITU-T H.264 9.3.1.1).
#ifndef SDRIFY_H264_CONTEXTS_H
#define SDRIFY_H264_CONTEXTS_H

#include <stdint.h>

enum { H264_CONTEXTS = 460 };   // ctxIdx 0...459: every context outside the 4:4:4 extensions

/// (m, n) per ctxIdx: [0] for I slices, [1 + cabac_init_idc] for P and B slices.
extern const int8_t h264_context_init[4][H264_CONTEXTS][2];

#endif
