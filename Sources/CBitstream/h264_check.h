// Internal: the H.264 slice check behind sdrify_slice_check (see h264_check.c for what it parses).
#ifndef SDRIFY_H264_CHECK_H
#define SDRIFY_H264_CHECK_H

#include "sdrify_slice_check.h"

typedef struct sdrify_h264_check sdrify_h264_check;

sdrify_h264_check *sdrify_h264_check_new(void);
void sdrify_h264_check_free(sdrify_h264_check *check);
void sdrify_h264_check_configure(sdrify_h264_check *check, const uint8_t *extradata, size_t size);
int sdrify_h264_check_packet(sdrify_h264_check *check, const uint8_t *data, size_t size, const char **problem);
int sdrify_h264_check_finish(sdrify_h264_check *check, const char **problem);
sdrify_slice_check_counts sdrify_h264_check_get_counts(const sdrify_h264_check *check);

#endif
