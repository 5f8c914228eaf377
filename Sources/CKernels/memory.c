#include "sdrify_kernels.h"
#include <malloc.h>

// See sdrify_kernels.h. In C because Swift does not import glibc's mallopt constants.
int sdrify_fixed_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
