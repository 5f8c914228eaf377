#!/usr/bin/env python3
"""Retiming benchmark (issue 33): what `--speed` and slow-motion flattening cost per output picture, against a plain
conversion of the same input in the same run (alternating), and ffmpeg doing the same speed change (setpts +
atempo). Inputs: 1080p30 SDR with a tone; a 1080p 240 fps capture made into a Samsung-style slow-motion file here
(an smta box and an SEF trailer slowing 1–2 s by 8×; x264 writes no SVC layer marks, so every picture is decoded
and thinned by time: the worst case). Prints Markdown rows.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_common import ensure, timed

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3

plain = ensure(os.path.join(CACHE, "retime_1080p30.mp4"), [
    "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30,noise=alls=12:allf=t", "-f", "lavfi", "-i", "sine=f=1000:r=48000",
    "-t", "8", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p", "-c:a", "aac"])


def samsung(path, codec, layers):
    """A 240 fps capture stored at 30 pictures a second of file time, 1–2 s slowed 8× (scripts/make-slow-motion.py
    adds Samsung's boxes), coded by `codec` (ffmpeg arguments) in `layers` temporal layers."""
    if os.path.exists(path):
        return path
    raw = path + ".raw.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30,noise=alls=12:allf=t",
                    "-f", "lavfi", "-i", "sine=f=1000:r=48000", "-t", "3"] + codec + ["-pix_fmt", "yuv420p", "-c:a", "aac", raw], check=True)
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["python3", os.path.join(here, "make-slow-motion.py"), raw, path, "240", str(layers), "1000:2000:4"], check=True)
    os.remove(raw)
    return path


# x264 writes no layer marks (every picture decoded, then thinned by time: the worst case); x265 can code two
# temporal layers (non-reference pictures in layer 1), which are left out before decoding where they are not shown.
slowmo = samsung(os.path.join(CACHE, "retime_sef_240.mp4"), ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"], 4)
layered_slowmo = samsung(
    os.path.join(CACHE, "retime_sef_240_layered.mp4"),
    ["-c:v", "libx265", "-preset", "veryfast", "-crf", "18", "-x265-params", "log-level=error:temporal-layers=1:bframes=3:b-pyramid=0",
     "-tag:v", "hvc1"], 2)


def frames(out):
    r = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v", "-show_entries", "stream=nb_read_packets",
                        "-of", "csv=p=0", out], capture_output=True, text=True, check=True)
    return int(r.stdout.strip())


cases = [
    ("plain", [SDRIFY, plain, "OUT", "--preset", "1920x1080", "-y"]),
    ("speed 2", [SDRIFY, plain, "OUT", "--preset", "1920x1080", "-y", "--speed", "2"]),
    ("speed 0.5 --fps 30", [SDRIFY, plain, "OUT", "--preset", "1920x1080", "-y", "--speed", "0.5", "--fps", "30"]),
    ("ffmpeg speed 2", ["ffmpeg", "-v", "error", "-y", "-i", plain, "-filter:v", "setpts=0.5*PTS", "-filter:a", "atempo=2",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "aac", "OUT"]),
    ("slow motion off", [SDRIFY, slowmo, "OUT", "--preset", "1920x1080", "-y", "--slow-motion", "off"]),
    ("slow motion flattened", [SDRIFY, slowmo, "OUT", "--preset", "1920x1080", "-y"]),
    ("layered off", [SDRIFY, layered_slowmo, "OUT", "--preset", "1920x1080", "-y", "--slow-motion", "off"]),
    ("layered flattened", [SDRIFY, layered_slowmo, "OUT", "--preset", "1920x1080", "-y"]),
]
walls = {name: [] for name, _ in cases}
counts = {}
with tempfile.TemporaryDirectory() as work:
    for _ in range(RUNS):
        for name, cmd in cases:
            out = os.path.join(work, name.replace(" ", "_") + ".mp4")
            wall, _ = timed([out if a == "OUT" else a for a in cmd])
            walls[name].append(wall)
            counts[name] = frames(out)


def per_frame(name):
    return statistics.median(walls[name]) / counts[name] * 1000


base, off = per_frame("plain"), per_frame("slow motion off")
print(f"| retiming: ms per output picture, 1080p30 SDR → 1920x1080 x264 veryfast, median of {RUNS} alternating runs |"
      f" plain {base:.1f} ({counts['plain']} pictures) | speed 2 {per_frame('speed 2'):.1f} ({counts['speed 2']}); "
      f"speed 0.5 --fps 30 {per_frame('speed 0.5 --fps 30'):.1f} ({counts['speed 0.5 --fps 30']}); "
      f"ffmpeg setpts+atempo speed 2 {per_frame('ffmpeg speed 2'):.1f} | speed 2 {per_frame('speed 2') / base:.2f}× plain, "
      f"0.5 {per_frame('speed 0.5 --fps 30') / base:.2f}×, ffmpeg's speed 2 {per_frame('ffmpeg speed 2') / base:.2f}× |")
print(f"| slow motion: ms per output picture, 1080p 240 fps capture (3 s of file time, 1–2 s slowed 8×), no layer marks (all decoded) |"
      f" off {off:.1f} ({counts['slow motion off']} pictures) | flattened {per_frame('slow motion flattened'):.1f} "
      f"({counts['slow motion flattened']} pictures) | {per_frame('slow motion flattened') / off:.2f}× off |")
loff = per_frame("layered off")
print(f"| slow motion: the same as HEVC in two temporal layers (x265), layer 1 left out before decoding where it is not shown |"
      f" off {loff:.1f} ({counts['layered off']} pictures) | flattened {per_frame('layered flattened'):.1f} "
      f"({counts['layered flattened']} pictures) | {per_frame('layered flattened') / loff:.2f}× off |")
