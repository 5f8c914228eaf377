#ifndef CFFMPEG_SHIM_H
#define CFFMPEG_SHIM_H
// FFmpeg headers for Swift, plus re-exports of what Swift cannot import (function-like macros,
// compound literals). One shim each, prefixed cffmpeg_, with the reason.
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
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

// LIBAVFORMAT_IDENT ("Lavf59.27.100") is built by function-like macros (the movie's encoder tag names it).
static inline const char *cffmpeg_libavformat_ident(void) { return LIBAVFORMAT_IDENT; }
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

// Output written through a file descriptor sdrify already holds (an unnamed O_TMPFILE file, linked into place
// only when complete): libavformat's I/O callbacks are C function pointers. pread/pwrite at each context's own
// offset, so the read-back context movenc opens for fast start (through io_open, by the output's name) and the
// writing one never disturb each other.
// `origin`: where the current descriptor's byte 0 lies in the stream (a segmented output moves to a new file
// per segment, cffmpeg_fd_avio_next_file).
typedef struct cffmpeg_fd_io { int fd; int64_t pos; int64_t origin; } cffmpeg_fd_io;

static inline int cffmpeg_fd_write(void *opaque, uint8_t *buf, int size) {
    cffmpeg_fd_io *io = opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = pwrite(io->fd, buf + done, (size_t)(size - done), io->pos);
        if (n < 0) { if (errno == EINTR) continue; return AVERROR(errno); }
        done += (int)n; io->pos += n;
    }
    return size;
}

static inline int cffmpeg_fd_read(void *opaque, uint8_t *buf, int size) {
    cffmpeg_fd_io *io = opaque;
    ssize_t n;
    do { n = pread(io->fd, buf, (size_t)size, io->pos); } while (n < 0 && errno == EINTR);
    if (n < 0) return AVERROR(errno);
    if (n == 0) return AVERROR_EOF;
    io->pos += n;
    return (int)n;
}

static inline int64_t cffmpeg_fd_seek(void *opaque, int64_t offset, int whence) {
    cffmpeg_fd_io *io = opaque;
    struct stat st;
    if (whence == AVSEEK_SIZE) return fstat(io->fd, &st) == 0 ? (int64_t)st.st_size : AVERROR(errno);
    whence &= ~AVSEEK_FORCE;
    int64_t target;
    if (whence == SEEK_SET) target = offset - io->origin;
    else if (whence == SEEK_CUR) target = io->pos + offset;
    else if (whence == SEEK_END) { if (fstat(io->fd, &st) != 0) return AVERROR(errno); target = st.st_size + offset; }
    else return AVERROR(EINVAL);
    if (target < 0) return AVERROR(EINVAL);
    io->pos = target;
    return io->origin + io->pos;
}

static inline AVIOContext *cffmpeg_fd_avio(int fd, int writable) {
    cffmpeg_fd_io *io = malloc(sizeof *io);
    unsigned char *buffer = av_malloc(1 << 16);
    AVIOContext *pb = io && buffer ? avio_alloc_context(buffer, 1 << 16, writable, io, cffmpeg_fd_read,
                                                        writable ? cffmpeg_fd_write : NULL, cffmpeg_fd_seek) : NULL;
    if (!pb) { free(io); av_free(buffer); return NULL; }
    io->fd = fd; io->pos = 0; io->origin = 0;
    return pb;
}

static inline void cffmpeg_fd_avio_free(AVIOContext **pb) {
    if (!*pb) return;
    avio_flush(*pb);
    free((*pb)->opaque);
    av_freep(&(*pb)->buffer);
    avio_context_free(pb);
}

// movenc's fast-start pass reopens its output by name; it gets the descriptor (in AVFormatContext.opaque).
static inline int cffmpeg_fd_io_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)url; (void)options;
    *pb = cffmpeg_fd_avio((int)(intptr_t)s->opaque, (flags & AVIO_FLAG_WRITE) != 0);
    return *pb ? 0 : AVERROR(ENOMEM);
}

static inline int cffmpeg_fd_io_close2(AVFormatContext *s, AVIOContext *pb) {
    (void)s;
    int err = pb ? pb->error : 0;
    cffmpeg_fd_avio_free(&pb);
    return err;
}

static inline int cffmpeg_discard_write(void *opaque, uint8_t *buf, int size) { (void)opaque; (void)buf; return size; }

/// Makes `s` write to `fd` and reopen it through the descriptor; the caller frees s->pb with cffmpeg_fd_avio_free.
/// A negative `fd` discards everything written (a pass that only measures).
static inline int cffmpeg_use_fd(AVFormatContext *s, int fd) {
    if (fd < 0) {
        unsigned char *buffer = av_malloc(1 << 12);
        s->pb = buffer ? avio_alloc_context(buffer, 1 << 12, 1, NULL, NULL, cffmpeg_discard_write, NULL) : NULL;
        if (!s->pb) { av_free(buffer); return AVERROR(ENOMEM); }
        s->flags |= AVFMT_FLAG_CUSTOM_IO;
        return 0;
    }
    s->opaque = (void *)(intptr_t)fd;
    s->io_open = cffmpeg_fd_io_open;
    s->io_close2 = cffmpeg_fd_io_close2;
    s->flags |= AVFMT_FLAG_CUSTOM_IO;
    s->pb = cffmpeg_fd_avio(fd, 1);
    return s->pb ? 0 : AVERROR(ENOMEM);
}

/// Everything written so far goes to the current descriptor; what follows goes to `fd` from its byte 0 (the next
/// segment of a segmented output). Returns the AVIO error, if any.
static inline int cffmpeg_fd_avio_next_file(AVIOContext *pb, int fd) {
    avio_flush(pb);
    cffmpeg_fd_io *io = pb->opaque;
    io->origin = avio_tell(pb);
    io->fd = fd; io->pos = 0;
    return pb->error;
}

// Damage a decoder conceals and only logs ("CABAC_MAX_BIN", "cu_qp_delta … outside the valid range", "error
// while decoding MB"), counted per decoder: a decoder context whose opaque points at an int counter gets every
// error-level message it logs counted there (frame threads copy opaque into their contexts), and the error
// concealment's own report ("concealing N DC, N AC, N MV errors"), which H.264/MPEG decoders log only at info
// level. A demuxer whose AVFormatContext.opaque points at a counter gets its error-level messages counted the
// same way (damage it recovers from with a guess, e.g. "Invalid mdhd time scale …, defaulting to 1"). Nothing is
// printed. Not counted: H.264's "mmco: unref short failure", a memory-management command that drops a reference
// the decoder never had: what every valid stream says when read from a keyframe after a seek (ffmpeg -ss says it too),
// and harmless (nothing is dropped, no picture changes).
static inline void cffmpeg_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    (void)vl;
    if (!avcl || (level > AV_LOG_ERROR && !(fmt && strncmp(fmt, "concealing ", 11) == 0))) return;
    if (fmt && strncmp(fmt, "mmco: unref short failure", 25) == 0) return;
    const AVClass *cls = *(const AVClass **)avcl;
    if (cls == avformat_get_class()) {
        AVFormatContext *f = avcl;
        if (f->opaque && f->iformat && level <= AV_LOG_ERROR) __atomic_fetch_add((int *)f->opaque, 1, __ATOMIC_RELAXED);
        return;
    }
    if (cls != avcodec_get_class()) return;
    AVCodecContext *c = avcl;
    if (!c->opaque || !c->codec || !av_codec_is_decoder(c->codec)) return;
    __atomic_fetch_add((int *)c->opaque, 1, __ATOMIC_RELAXED);
}
static inline void cffmpeg_count_decoder_errors(void) { av_log_set_callback(cffmpeg_log_callback); }
static inline int cffmpeg_load_count(const int *counter) { return __atomic_load_n(counter, __ATOMIC_RELAXED); }
#endif
