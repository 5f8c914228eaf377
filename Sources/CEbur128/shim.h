#ifndef CEBUR128_SHIM_H
#define CEBUR128_SHIM_H
// libebur128: loudness (EBU R128 / ITU-R BS.1770), loudness range and true peak, for --loudness.
#include <ebur128.h>
#endif
