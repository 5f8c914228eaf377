// Internal to the bitstream checks: an MSB-first bit reader with Exp-Golomb codes (Rec. ITU-T H.264 / H.265
// clause 9.1), shared by the H.264 and HEVC parameter-set and slice-header parsers.
#ifndef SDRIFY_BIT_READER_H
#define SDRIFY_BIT_READER_H

#include <stddef.h>
#include <stdint.h>

// ---- bit reader over an RBSP (emulation prevention removed), padded with zero bytes ----

typedef struct {
    const uint8_t *data;
    size_t size;        // bytes of payload
    size_t pos;         // bit position
    int overrun;        // read past the payload (plus slack): the data is out of step
} BitReader;

enum { BR_PADDING = 16 };

static inline uint32_t br_peek32(const BitReader *b) {
    size_t byte = b->pos >> 3;
    if (byte + 8 > b->size + BR_PADDING) return 0;
    const uint8_t *p = b->data + byte;
    uint64_t v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) |
                 ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | (uint64_t)p[7];
    return (uint32_t)((v << (b->pos & 7)) >> 32);
}

/// n in 0...25 bits.
static inline uint32_t br_bits(BitReader *b, int n) {
    if (n == 0) return 0;
    if (b->pos + (size_t)n > b->size * 8 + 64) { b->overrun = 1; b->pos = b->size * 8 + 64; return 0; }
    uint32_t v = br_peek32(b) >> (32 - n);
    b->pos += (size_t)n;
    return v;
}

static inline uint32_t br_bits32(BitReader *b, int n) {
    if (n <= 24) return br_bits(b, n);
    uint32_t hi = br_bits(b, n - 16);
    return (hi << 16) | br_bits(b, 16);
}

static inline int br_flag(BitReader *b) { return (int)br_bits(b, 1); }

static inline uint32_t br_ue(BitReader *b) {
    int zeros = 0;
    while (!br_bits(b, 1)) {
        if (++zeros > 31 || b->overrun) { b->overrun = 1; return 0; }
    }
    if (zeros == 0) return 0;
    return (uint32_t)(((uint64_t)1 << zeros) - 1 + br_bits32(b, zeros));
}

static inline int32_t br_se(BitReader *b) {
    uint32_t k = br_ue(b);
    return (k & 1) ? (int32_t)((k + 1) / 2) : -(int32_t)(k / 2);
}

#endif
