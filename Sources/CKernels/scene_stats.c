#include "sdrify_kernels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

// See sdrify_kernels.h. Scalar on purpose: it visits about 65,000 samples a picture (a few hundred µs), and the
// scattered histogram increments would not vectorise anyway.
static inline float clamp01(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

static inline float sample(const sdrify_stats_job *job, int plane, int x, int y) {
    const char *row = (const char *)job->planes[plane] + (long)y * job->strides[plane];
    return job->bytes == 1 ? (float)((const uint8_t *)row)[x] : (float)((const uint16_t *)row)[x];
}

static inline float linear(const sdrify_stats_job *job, float signal) {
    return job->eotf[(int)(clamp01(signal) * (float)(job->eotf_size - 1) + 0.5f)];
}

void sdrify_scene_histogram(const sdrify_stats_job *job) {
    const unsigned last = job->bins - 1;
    for (int y = job->step / 2; y < job->height; y += job->step) {
        for (int x = job->step / 2; x < job->width; x += job->step) {
            float luma = (sample(job, 0, x, y) - job->y_offset) * job->y_scale;
            float cb = 0.0f, cr = 0.0f;
            if (job->planes[1]) {
                cb = (sample(job, 1, x >> job->shift_x, y >> job->shift_y) - job->c_offset) * job->c_scale;
                cr = (sample(job, 2, x >> job->shift_x, y >> job->shift_y) - job->c_offset) * job->c_scale;
            }
            float r = linear(job, luma + job->cr_r * cr);
            float g = linear(job, luma - job->cb_g * cb - job->cr_g * cr);
            float b = linear(job, luma + job->cb_b * cb);
            float v = job->kr * r + job->kg * g + job->kb * b;
            if (job->ootf_gamma > 0.0f && v > 0.0f) v = job->ootf_scale * powf(v, job->ootf_gamma);
            v = v > job->min_v ? v : job->min_v;  // black (and NaN) to the first bin
            if (job->grid) {  // log2 from the float's exponent and a quadratic on its mantissa (within 0.005)
                uint32_t u;
                memcpy(&u, &v, 4);
                float t, e = (float)(int32_t)((u >> 23) & 0xFF) - 127.0f;
                uint32_t m = (u & 0x7FFFFFu) | 0x3F800000u;
                memcpy(&t, &m, 4);
                t -= 1.0f;
                job->grid[(y / job->step) * job->grid_w + x / job->step] = e + t * (1.3465736f - 0.3465736f * t);
            }
            uint32_t bits;
            memcpy(&bits, &v, 4);
            uint32_t bin = (bits >> SDRIFY_STATS_SHIFT) - job->base;
            bin = bin < last ? bin : last;
            job->histogram[bin]++;
            float hi = r > g ? (r > b ? r : b) : (g > b ? g : b), lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
            if (hi - lo <= job->neutral_spread * hi) job->neutral[bin]++;
        }
    }
}
