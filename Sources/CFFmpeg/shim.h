#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
// FFmpeg headers for Swift, plus re-exports of what Swift cannot import (function-like macros,
// compound literals). One shim each, prefixed cffmpeg_, with the reason.
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/hdr_dynamic_metadata.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

// AVERROR(e) is a function-like macro.
static inline int cffmpeg_averror(int e) { return AVERROR(e); }
static inline int cffmpeg_eagain(void) { return AVERROR(EAGAIN); }
// FFERRTAG-based codes expand through MKTAG, a function-like macro.
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_error_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_error_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cffmpeg_error_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int cffmpeg_error_patchwelcome(void) { return AVERROR_PATCHWELCOME; }
// AV_NOPTS_VALUE is a cast of a UINT64_C expression.
static inline int64_t cffmpeg_nopts_value(void) { return AV_NOPTS_VALUE; }
// AV_TIME_BASE_Q is a compound literal.
static inline AVRational cffmpeg_time_base_q(void) { return AV_TIME_BASE_Q; }
// Native-endian pixel format aliases are built by AV_PIX_FMT_NE, a function-like macro.
static inline enum AVPixelFormat cffmpeg_pix_fmt_yuv420p10(void) { return AV_PIX_FMT_YUV420P10; }
static inline enum AVPixelFormat cffmpeg_pix_fmt_yuv422p10(void) { return AV_PIX_FMT_YUV422P10; }
static inline enum AVPixelFormat cffmpeg_pix_fmt_yuv444p10(void) { return AV_PIX_FMT_YUV444P10; }
static inline enum AVPixelFormat cffmpeg_pix_fmt_yuv420p12(void) { return AV_PIX_FMT_YUV420P12; }
static inline enum AVPixelFormat cffmpeg_pix_fmt_yuv420p16(void) { return AV_PIX_FMT_YUV420P16; }
static inline enum AVPixelFormat cffmpeg_pix_fmt_p010(void) { return AV_PIX_FMT_P010; }
// av_err2str is a macro around a compound-literal buffer; this fills a caller buffer instead.
static inline void cffmpeg_strerror(int e, char *buf, size_t size) {
    if (av_strerror(e, buf, size) < 0) snprintf(buf, size, "error %d", e);
}
#endif
