#include "nal_units.h"
#include "bit_reader.h"

#include <stdlib.h>
#include <string.h>

int rbsp_unescape(RBSPBuffer *r, const uint8_t *nal, size_t size) {
    if (size + BR_PADDING > r->capacity) {
        size_t cap = (size + BR_PADDING) * 2;
        uint8_t *p = realloc(r->rbsp, cap);
        if (!p) return -1;
        r->rbsp = p; r->capacity = cap;
    }
    size_t out = 0, zeros = 0;
    r->removed_count = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t v = nal[i];
        if (zeros >= 2 && v == 3) {
            if (r->removed_count == r->removed_capacity) {
                size_t cap = r->removed_capacity ? r->removed_capacity * 2 : 64;
                size_t *p = realloc(r->removed, cap * sizeof *p);
                if (!p) return -1;
                r->removed = p; r->removed_capacity = cap;
            }
            r->removed[r->removed_count++] = i;
            zeros = 0;
            continue;
        }
        zeros = v == 0 ? zeros + 1 : 0;
        r->rbsp[out++] = v;
    }
    memset(r->rbsp + out, 0, BR_PADDING);
    return (int)out;
}

void rbsp_free(RBSPBuffer *r) {
    free(r->rbsp); free(r->removed);
    memset(r, 0, sizeof *r);
}

/// Visits the NAL units between start codes in data[0..size). With `leading`, the data starts with a NAL unit
/// (a length-prefixed one, which libavcodec also splits at start codes inside it); otherwise bytes before the first
/// start code are no NAL unit.
static int walk_start_codes(const uint8_t *d, size_t size, int leading, NalVisitor visit, void *context,
                            const char **problem) {
    int damaged = 0;
    size_t i = 0, start = leading ? 0 : SIZE_MAX;
    while (i + 2 < size) {
        if (d[i] == 0 && d[i + 1] == 0 && d[i + 2] == 1) {
            if (start != SIZE_MAX) {
                size_t end = i;
                while (end > start && d[end - 1] == 0) end--;
                damaged += visit(context, d + start, end - start, problem);
            }
            i += 3;
            start = i;
        } else {
            i++;
        }
    }
    if (start != SIZE_MAX && start < size) damaged += visit(context, d + start, size - start, problem);
    return damaged;
}

int nal_walk_annexb(const uint8_t *d, size_t size, NalVisitor visit, void *context, const char **problem) {
    return walk_start_codes(d, size, 0, visit, context, problem);
}

int nal_walk_sample(const uint8_t *d, size_t size, int length_size, NalVisitor visit, void *context,
                    const char **problem) {
    int damaged = 0;
    size_t pos = 0, ls = (size_t)length_size;
    while (pos + ls <= size) {
        size_t len = 0;
        for (size_t k = 0; k < ls; k++) len = (len << 8) | d[pos + k];
        pos += ls;
        if (len > size - pos) {
            if (!damaged) *problem = "a NAL unit runs past the end of its sample";
            return damaged + 1;
        }
        damaged += walk_start_codes(d + pos, len, 1, visit, context, problem);
        pos += len;
    }
    int trailing = 0;
    for (size_t k = pos; k < size; k++) trailing |= d[k];
    if (trailing) {
        if (!damaged) *problem = "bytes after the last NAL unit of a sample";
        damaged++;
    }
    return damaged;
}

int nal_walk_packet(const uint8_t *d, size_t size, int length_size, NalVisitor visit, void *context,
                    int *pictures, const char **problem) {
    *problem = NULL;
    *pictures = 0;
    if (length_size == 0) return nal_walk_annexb(d, size, visit, context, problem);
    if (size == 0) return 0;
    int damaged = nal_walk_sample(d, size, length_size, visit, context, problem);
    if (*pictures == 0 && !damaged) {
        *problem = "a sample without a picture";
        damaged++;
    }
    return damaged;
}
