#ifndef CRUBBERBAND_SHIM_H
#define CRUBBERBAND_SHIM_H
#include <rubberband/rubberband-c.h>
#endif
