#!/usr/bin/env python3
"""A/B of two sdrify builds on the convert benchmark's inputs (scripts/bench makes them): RUNS alternating runs
of each build per input, median wall time and median peak RSS, and the ratio B/A. For a change's cost in speed
and memory, on this shared and noisy machine (a ratio from alternating runs, not a time from two sessions).

    scripts/bench_ab.py BUILD_A BUILD_B CACHE [RUNS]
"""
import os
import statistics
import sys
import tempfile

from bench_common import timed

A, B, CACHE = sys.argv[1], sys.argv[2], sys.argv[3]
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 5
sys.argv = [sys.argv[0], A, CACHE]   # what bench_convert reads when imported (its inputs live in CACHE)
import bench_convert  # noqa: E402


def main():
    print(f"| input | A wall (s) | B wall (s) | B/A wall | A peak RSS (MiB) | B peak RSS (MiB) | B/A RSS |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mp4")
        for label, src, preset, _, _ in bench_convert.inputs():
            runs = {A: [], B: []}
            for _ in range(RUNS):
                for build in (A, B):
                    runs[build].append(timed([build, src, out, "--preset", preset, "--overwrite", "--quiet"]))
            wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
            rss = {k: statistics.median(m for _, m in v) / 1024 for k, v in runs.items()}
            print(f"| {label} | {wall[A]:.2f} | {wall[B]:.2f} | {wall[B] / wall[A]:.3f} | {rss[A]:.0f} | {rss[B]:.0f} | "
                  f"{rss[B] / rss[A]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
