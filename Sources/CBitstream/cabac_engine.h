// Internal to the bitstream checks: the CABAC arithmetic decoding engine, which H.264 (Rec. ITU-T H.264 9.3.3.2)
// and HEVC (Rec. ITU-T H.265 9.3.4.3) share bit for bit: the same 9-bit range, state transitions and LPS
// ranges, and the same encoder flush ending each slice.
#ifndef SDRIFY_CABAC_ENGINE_H
#define SDRIFY_CABAC_ENGINE_H

#include "bit_reader.h"

typedef struct {
    const uint8_t *data;           // the RBSP, followed by BR_PADDING zero bytes
    size_t size;                   // bytes of RBSP
    uint64_t cache;                // the next bits after the decoder's position, left-aligned
    int cache_bits;
    size_t next_byte;              // where the cache refills from
    uint32_t range, offset;
} CabacEngine;

extern const uint8_t cabac_range_lps[64][4];
// cabac_next_state[state << 1 | mps][bin was the LPS]: the state transitions, with the MPS flip at state 0.
extern uint16_t cabac_next_state[128][2];

/// Builds cabac_next_state; call once before decoding (idempotent, thread-safe).
void cabac_build_tables(void);

/// A context variable's initial state (pStateIdx << 1 | valMPS) from its (m, n) pair and the slice QP.
static inline uint16_t cabac_initial_state(int m, int n, int qp) {
    qp = qp < 0 ? 0 : (qp > 51 ? 51 : qp);
    int pre = ((m * qp) >> 4) + n;
    pre = pre < 1 ? 1 : (pre > 126 ? 126 : pre);
    int mps = pre > 63;
    return (uint16_t)(((mps ? pre - 64 : 63 - pre) << 1) | mps);
}

static inline size_t cabac_position(const CabacEngine *e) { return e->next_byte * 8 - (size_t)e->cache_bits; }

static inline void cabac_seek(CabacEngine *e, size_t byte) {
    e->next_byte = byte; e->cache = 0; e->cache_bits = 0;
}

static inline void cabac_refill(CabacEngine *e) {
    size_t limit = e->size + BR_PADDING;
    if (e->next_byte + 8 <= limit) {
        const uint8_t *d = e->data + e->next_byte;
        uint64_t w = ((uint64_t)d[0] << 56) | ((uint64_t)d[1] << 48) | ((uint64_t)d[2] << 40) | ((uint64_t)d[3] << 32) |
                     ((uint64_t)d[4] << 24) | ((uint64_t)d[5] << 16) | ((uint64_t)d[6] << 8) | (uint64_t)d[7];
        int bytes = (64 - e->cache_bits) >> 3;
        e->cache |= w >> e->cache_bits;   // bits past the counted bytes are the right ones too
        e->next_byte += (size_t)bytes;
        e->cache_bits += bytes * 8;
    } else {                              // past the data: zeros (the end checks see the overrun)
        while (e->cache_bits <= 56) { e->next_byte++; e->cache_bits += 8; }
    }
}

/// The next n bits, n in 0...32.
static inline __attribute__((always_inline)) uint32_t cabac_take(CabacEngine *e, int n) {
    if (e->cache_bits < n) cabac_refill(e);
    uint32_t v = (uint32_t)((e->cache >> 1) >> (63 - n));
    e->cache <<= n;
    e->cache_bits -= n;
    return v;
}

/// Starts decoding at the current position. Returns 0, or -1 when the first 9 bits cannot start a decoder.
static inline int cabac_start(CabacEngine *e) {
    e->range = 510;
    e->offset = cabac_take(e, 9);
    return e->offset >= 510 ? -1 : 0;
}

/// A context-coded bin, without branches on the bin's value (an LPS is unpredictable by nature). The state is a
/// uint16_t, not a uint8_t: a character-type store may alias anything, which made the compiler reload the
/// engine's registers from memory after every bin (measured: 2x slower).
static inline __attribute__((always_inline)) int cabac_bin(CabacEngine *e, uint16_t *state) {
    uint32_t s = *state;
    uint32_t lps = cabac_range_lps[s >> 1][(e->range >> 6) & 3];
    uint32_t mps_range = e->range - lps;
    uint32_t is_lps = e->offset >= mps_range;
    uint32_t mask = 0u - is_lps;
    e->offset -= mps_range & mask;
    e->range = (mps_range & ~mask) | (lps & mask);
    *state = cabac_next_state[s][is_lps];
    int shift = __builtin_clz(e->range) - 23;   // range < 512: 0 unless renormalisation is due
    e->range <<= shift;
    e->offset = (e->offset << shift) | cabac_take(e, shift);
    return (int)((s & 1) ^ is_lps);
}

static inline __attribute__((always_inline)) int cabac_bypass(CabacEngine *e) {
    e->offset = (e->offset << 1) | cabac_take(e, 1);
    if (e->offset >= e->range) { e->offset -= e->range; return 1; }
    return 0;
}

/// n bypass bins at once: decoding them one by one is a binary long division of the offset by the range.
static inline uint32_t cabac_bypass_bits(CabacEngine *e, int n) {
    uint32_t v = 0;
    while (n > 0) {
        int k = n > 16 ? 16 : n;
        uint32_t scaled = (e->offset << k) | cabac_take(e, k);
        uint32_t q = scaled / e->range;
        e->offset = scaled - q * e->range;
        v = (v << k) | q;
        n -= k;
    }
    return v;
}

static inline int cabac_terminate(CabacEngine *e) {
    e->range -= 2;
    if (e->offset >= e->range) return 1;
    if (e->range < 256) {
        int shift = __builtin_clz(e->range) - 23;
        e->range <<= shift;
        e->offset = (e->offset << shift) | cabac_take(e, shift);
    }
    return 0;
}

/// After a terminating bin equal to 1 the decoder has read exactly through the encoder's flush, whose last bit
/// is 1 (the stop bit, or the bit before PCM samples' alignment); zero bits follow up to the byte boundary.
/// Returns the byte where the next data starts, or (size_t)-1 with `why` set when the data is out of step.
/// Without `strict_alignment` the alignment bits are not checked: x264 sets one of them, pseudo-randomly per
/// frame, in every CABAC flush (its cabac.c), and libavcodec never reads them.
size_t cabac_stop(const CabacEngine *e, int strict_alignment, const char **why);

#endif
