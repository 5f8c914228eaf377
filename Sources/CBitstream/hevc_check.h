// Internal: the HEVC slice-segment check behind sdrify_slice_check (see hevc_check.c for what it parses).
#ifndef SDRIFY_HEVC_CHECK_H
#define SDRIFY_HEVC_CHECK_H

#include "sdrify_slice_check.h"

typedef struct sdrify_hevc_check sdrify_hevc_check;

sdrify_hevc_check *sdrify_hevc_check_new(void);
void sdrify_hevc_check_free(sdrify_hevc_check *check);
void sdrify_hevc_check_configure(sdrify_hevc_check *check, const uint8_t *extradata, size_t size);
int sdrify_hevc_check_packet(sdrify_hevc_check *check, const uint8_t *data, size_t size, const char **problem);
int sdrify_hevc_check_finish(sdrify_hevc_check *check, const char **problem);
sdrify_slice_check_counts sdrify_hevc_check_get_counts(const sdrify_hevc_check *check);

#endif
