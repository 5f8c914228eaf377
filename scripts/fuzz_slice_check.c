// In-process fuzzing of the H.264 and HEVC slice-data checks (Sources/CBitstream) under AddressSanitizer and
// UndefinedBehaviorSanitizer: the packets (and codec configuration) of one valid file are mutated (bit flips,
// overwritten runs, truncations, header bytes) and fed to a fresh checker, stream after stream, for SECONDS.
// Any memory error or undefined behaviour ends the run with the sanitizer's report. Built by `scripts/fuzz slices`.
//     fuzz_slice_check SECONDS FILE
#include <libavformat/avformat.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sdrify_slice_check.h"

typedef struct { uint8_t *data; int size; } Buffer;

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: fuzz_slice_check SECONDS FILE\n"); return 64; }
    double seconds = atof(argv[1]);
    AVFormatContext *fc = NULL;
    if (avformat_open_input(&fc, argv[2], NULL, NULL) < 0 || avformat_find_stream_info(fc, NULL) < 0) return 2;
    int vi = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vi < 0) return 2;
    AVCodecParameters *par = fc->streams[vi]->codecpar;
    sdrify_slice_check_codec codec;
    if (par->codec_id == AV_CODEC_ID_H264) codec = SDRIFY_SLICE_CHECK_H264;
    else if (par->codec_id == AV_CODEC_ID_HEVC) codec = SDRIFY_SLICE_CHECK_HEVC;
    else { fprintf(stderr, "neither H.264 nor HEVC\n"); return 2; }
    int config_size = par->extradata_size < 4096 ? par->extradata_size : 4096;
    uint8_t config[4096];
    if (config_size > 0) memcpy(config, par->extradata, (size_t)config_size);
    enum { MAX_PACKETS = 2000 };
    static Buffer packets[MAX_PACKETS];
    int count = 0, largest = 0;
    AVPacket *p = av_packet_alloc();
    while (count < MAX_PACKETS && av_read_frame(fc, p) >= 0) {
        if (p->stream_index == vi && p->size > 0) {
            packets[count].data = malloc((size_t)p->size);
            memcpy(packets[count].data, p->data, (size_t)p->size);
            packets[count].size = p->size;
            if (p->size > largest) largest = p->size;
            count++;
        }
        av_packet_unref(p);
    }
    av_packet_free(&p);
    avformat_close_input(&fc);

    srand(1);
    uint8_t *work = malloc((size_t)largest + 1), mutated_config[4096];
    long streams = 0, reported = 0;
    for (time_t end = time(NULL) + (time_t)seconds; time(NULL) < end; streams++) {
        sdrify_slice_check *check = sdrify_slice_check_new(codec);
        memcpy(mutated_config, config, (size_t)config_size);
        if (config_size > 0 && rand() % 4 == 0)
            for (int k = 0; k < 1 + rand() % 4; k++) mutated_config[rand() % config_size] ^= (uint8_t)(1 << (rand() % 8));
        sdrify_slice_check_configure(check, mutated_config, (size_t)config_size);
        for (int i = 0; i < count; i++) {
            int n = packets[i].size;
            memcpy(work, packets[i].data, (size_t)n);
            switch (rand() % 6) {
            case 0: for (int k = 0; k < 1 + rand() % 8; k++) work[rand() % n] ^= (uint8_t)(1 << (rand() % 8)); break;
            case 1: { int at = rand() % n, len = rand() % 64; for (int k = 0; k < len && at + k < n; k++) work[at + k] = (uint8_t)rand(); break; }
            case 2: if (n > 8) n = 4 + rand() % (n - 4); break;
            case 3: work[rand() % (n < 64 ? n : 64)] ^= (uint8_t)(1 << (rand() % 8)); break;   // NAL and slice headers
            default: break;                                                                 // left intact
            }
            const char *problem;
            reported += sdrify_slice_check_packet(check, work, (size_t)n, &problem) > 0;
        }
        const char *problem;
        sdrify_slice_check_finish(check, &problem);
        sdrify_slice_check_free(check);
    }
    printf("fuzz_slice_check: %ld mutated streams of %d packets from %s, %ld damaged packets reported, no sanitizer error\n",
           streams, count, argv[2], reported);
    for (int i = 0; i < count; i++) free(packets[i].data);
    free(work);
    return 0;
}
