#ifndef CASS_SHIM_H
#define CASS_SHIM_H
#include <stdarg.h>
#include <ass/ass.h>

// libass prints its messages to stderr by default; the CLI contract allows only sdrify's own lines there.
static void cass_quiet(int level, const char *fmt, va_list args, void *data) { (void)level; (void)fmt; (void)args; (void)data; }
static inline void cass_silence(ASS_Library *library) { ass_set_message_cb(library, cass_quiet, 0); }
#endif
