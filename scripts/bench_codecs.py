"""x264, x265 and SVT-AV1 on the same picture (issue 44): size and speed at equal quality.

Each clip is converted by sdrify once losslessly (x264 CRF 0: the reference picture, the same decode, orientation
and tone map every encoder gets) and then with each codec at several CRFs and speeds. Quality is the PSNR (Y) of
each output against the reference; for each codec the CRF with the PSNR of x264's default (CRF 23) is found by
interpolation in log size, and the size and wall time there are compared with x264's. Wall times are medians of
`runs` runs of each case, one case after the other on the same machine: ratios, not seconds, are what to quote.

usage: bench_codecs.py SDRIFY CLIP [CLIP...] [--runs N]
Prints a Markdown table.
"""
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# (codec, speed preset, CRFs): x264 veryfast and x265 fast are what the presets use; SVT-AV1 at the presets
# --codec av1 maps those to (11, 9) and at 8 ("medium").
CASES = [
    ("h264", "veryfast", [19, 23, 27]),
    ("hevc", "fast", [18, 22, 26, 30, 34]),
    ("av1", "11", [27, 33, 39, 45, 51, 57]),
    ("av1", "9", [27, 33, 39, 45, 51, 57]),
    ("av1", "8", [27, 33, 39, 45, 51, 57]),
]


def convert(sdrify, clip, out, args):
    started = time.perf_counter()
    subprocess.run([sdrify, clip, out, "--preset", "1920x1080", "--overwrite", "--quiet"] + args, check=True)
    return time.perf_counter() - started


def psnr(reference, output):
    log = subprocess.run(["ffmpeg", "-v", "info", "-i", output, "-i", reference, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    match = re.search(r"PSNR y:([0-9.]+)", log)
    return float(match.group(1)) if match else float("nan")


def at_quality(points, target):
    """Size and time at PSNR `target`, interpolated between the two nearest points (log size, linear time)."""
    points = sorted(points, key=lambda p: p[0])
    for (q0, s0, t0), (q1, s1, t1) in zip(points, points[1:]):
        if q0 <= target <= q1 and q1 > q0:
            f = (target - q0) / (q1 - q0)
            return math.exp(math.log(s0) + f * (math.log(s1) - math.log(s0))), t0 + f * (t1 - t0), True
    q, s, t = min(points, key=lambda p: abs(p[0] - target))
    return s, t, False


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs"); runs = int(args[i + 1]); del args[i:i + 2]
    sdrify, clips = args[0], args[1:]
    print("| clip | codec (speed) | CRF at x264 CRF 23's PSNR | PSNR (dB) | size / x264's | conversion time / x264's |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for clip in clips:
            name = os.path.basename(clip)
            reference = os.path.join(work, "reference.mp4")
            convert(sdrify, clip, reference, ["--crf", "0", "--encoder-preset", "ultrafast"])
            measured = {}
            for codec, speed, crfs in CASES:
                points = []
                for crf in crfs:
                    out = os.path.join(work, f"{codec}-{speed}-{crf}.mp4")
                    times = [convert(sdrify, clip, out, ["--codec", codec, "--encoder-preset", speed, "--crf", str(crf)]) for _ in range(runs)]
                    points.append((psnr(reference, out), os.path.getsize(out), statistics.median(times)))
                measured[(codec, speed)] = points
            x264 = measured[("h264", "veryfast")]
            target = sorted(x264, key=lambda p: p[1])[1][0]  # the middle CRF (23)
            base_size, base_time, _ = at_quality(x264, target)
            for (codec, speed), points in measured.items():
                size, secs, inside = at_quality(points, target)
                crf_guess = "—"
                crf_list = next(c for cc, sp, c in CASES if cc == codec and sp == speed)
                by_q = sorted(zip([p[0] for p in points], crf_list))
                for (q0, c0), (q1, c1) in zip(by_q, by_q[1:]):
                    if q0 <= target <= q1 and q1 > q0:
                        crf_guess = f"{c0 + (target - q0) / (q1 - q0) * (c1 - c0):.1f}"
                note = "" if inside else " (outside the CRFs tried: nearest)"
                print(f"| {name} | {codec} ({speed}) | {crf_guess} | {target:.2f} | {size / base_size:.2f}{note} | {secs / base_time:.2f} |",
                      flush=True)


if __name__ == "__main__":
    main()
