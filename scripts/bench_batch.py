#!/usr/bin/env python3
"""Batch throughput (issue "command line" / "performance II"): a folder of 8 mixed clips (HDR and SDR, portrait and
landscape, 720p to 1080p, 3 s each) converted by a plain sequential shell-style loop of single conversions (each
using every core) against `sdrify convert … --output-dir` with several --jobs/--threads splits, in one run,
alternating. Prints Markdown rows.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import ensure, lift

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
PRESET = "1280x720"


def clips():
    grain = "noise=alls=12:allf=t"
    hdr = ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "16", "-x265-params", "log-level=error", "-tag:v", "hvc1",
           "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-colorspace", "bt2020nc"]
    sdr = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p"]
    sound = ["-f", "lavfi", "-i", "sine=f=440:duration=3", "-c:a", "aac"]
    specs = [
        ("hlg_portrait", f"testsrc2=size=1920x1080:rate=30,{grain}", [*sound, "-vf", lift("arib-std-b67"), *hdr, "-color_trc", "arib-std-b67"], 1080),
        ("pq", f"mandelbrot=size=1920x1080:rate=30,{grain}", ["-vf", lift("smpte2084"), *hdr, "-color_trc", "smpte2084"], None),
        ("sdr_1080_60", f"testsrc=size=1920x1080:rate=60,{grain}", [*sound, *sdr], None),
        ("sdr_720_24", f"smptehdbars=size=1280x720:rate=24,{grain}", [*sound, *sdr], None),
        ("hlg_1080", f"testsrc2=size=1920x1080:rate=30,{grain}", ["-vf", lift("arib-std-b67"), *hdr, "-color_trc", "arib-std-b67"], None),
        ("sdr_portrait", f"testsrc2=size=1280x720:rate=30,{grain}", [*sound, *sdr], 720),
        ("pq_720", f"rgbtestsrc=size=1280x720:rate=30,{grain}", ["-vf", lift("smpte2084"), *hdr, "-color_trc", "smpte2084"], None),
        ("sdr_1080_30", f"mandelbrot=size=1920x1080:rate=30,{grain}", [*sound, *sdr], None),
    ]
    return [ensure(os.path.join(CACHE, f"batch_{name}.mov"), ["-f", "lavfi", "-i", source, *args, "-t", "3"], portrait)
            for name, source, args, portrait in specs]


def wall(cmds):
    t = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    inputs = clips()
    with tempfile.TemporaryDirectory() as tmp:
        loop = [[SDRIFY, f, os.path.join(tmp, f"loop_{i}.mp4"), "--preset", PRESET, "-y", "-q"] for i, f in enumerate(inputs)]
        splits = [("--jobs 1", ["--jobs", "1"]), ("--jobs 2 (1 thread each)", ["--jobs", "2"]),
                  ("--jobs 2 --threads 4 (2 each)", ["--jobs", "2", "--threads", "4"]), ("--jobs 4 (1 each)", ["--jobs", "4", "--threads", "4"])]
        times = {"loop": []} | {name: [] for name, _ in splits}
        for _ in range(RUNS):
            times["loop"].append(wall(loop))
            for name, args in splits:
                times[name].append(wall([[SDRIFY, "convert", *inputs, "--output-dir", os.path.join(tmp, "batch"), "--preset", PRESET,
                                          "-y", "-q", *args]]))
        base = statistics.median(times["loop"])
        for name, _ in splits:
            t = statistics.median(times[name])
            print(f"| batch of 8 mixed clips → {PRESET}, `{name}`; wall s | {t:.2f} | sequential loop of single converts {base:.2f} "
                  f"| {base / t:.2f}× faster (target ≥ 1.2) |")


if __name__ == "__main__":
    main()
