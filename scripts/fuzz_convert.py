#!/usr/bin/env python3
"""Whole-conversion fuzzing: damaged copies of the valid clips of testvectors/ (and of fragmented copies made from
them), converted by sdrify with and without --tolerate-errors. Damage kinds, chosen at random per run:
  bytes     random bytes or runs anywhere (headers, sample tables, bitstream)
  video     bit flips or an overwritten run inside a video sample (positions from ffprobe)
  audio     the same inside an audio sample
  table     a field of a sample table (stco/co64 offsets, stsz sizes, stts/ctts timing, stsc, mdhd timescale)
  truncate  the file cut short
Every run must end with exit 0, 2 (damaged input) or 3 (unsupported): no signal, no exit 4 (that would blame the
output for the input's damage), no hang, nothing left beside the output. A strict run (no --tolerate-errors)
that exits 0 must also give what the undamaged clip gives: the same number of frames and every frame within
35 dB PSNR of the clean conversion; otherwise the damage passed silently. Failing inputs are kept for replay.

    scripts/fuzz_convert.py SDRIFY SECONDS [SEED]
"""
import glob
import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

sdrify, seconds = sys.argv[1], float(sys.argv[2])
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testvectors")
work = tempfile.mkdtemp(prefix="sdrify-fuzz-convert-")
out_dir = os.path.join(work, "out")
os.makedirs(out_dir)
PRESET = ["--preset", "640x480"]


def packets(path, stream):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=size,pos",
                        "-of", "csv=p=0", path], capture_output=True, text=True)
    out = []
    for line in r.stdout.split():
        f = line.split(",")
        if len(f) >= 2 and f[0].isdigit() and f[1].isdigit():
            out.append((int(f[0]), int(f[1])))
    return out


def frame_hashes(path):
    """Per-frame luma of a conversion (small), for comparing with the clean one."""
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", "scale=160:-2,format=gray", "-f", "rawvideo", "-"],
                       capture_output=True)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height",
                            "-of", "json", path], capture_output=True, text=True)
    s = json.loads(probe.stdout or "{}").get("streams", [{}])[0]
    w, h = 160, (160 * s.get("height", 90) // max(s.get("width", 160), 1)) // 2 * 2
    n = w * h
    return [r.stdout[i:i + n] for i in range(0, len(r.stdout) - n + 1, n)]


def psnr(a, b):
    if len(a) != len(b) or not a:
        return 0.0
    mse = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return 99.0 if mse == 0 else 10 * __import__("math").log10(255 * 255 / mse)


# Seeds: the valid clips, their packet positions, their clean conversions; fragmented copies too.
seeds = []
for f in sorted(glob.glob(os.path.join(root, "*.m*"))):
    if os.path.getsize(f) <= 5000 or "truncated" in f or "matrix_45deg" in f:
        continue
    seeds.append(f)
    frag = os.path.join(work, "frag_" + os.path.basename(f))
    if subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", f, "-map", "0", "-c", "copy", "-movflags",
                       "frag_keyframe+empty_moov", frag]).returncode == 0:
        seeds.append(frag)
info = {}
for s in seeds:
    clean = os.path.join(work, "clean_" + os.path.basename(s) + ".mp4")
    ok = subprocess.run([sdrify, s, clean, "--overwrite", "--quiet"] + PRESET).returncode == 0
    info[s] = dict(video=packets(s, "v"), audio=packets(s, "a"), clean=frame_hashes(clean) if ok else None)

TABLES = [b"stco", b"co64", b"stsz", b"stts", b"ctts", b"stsc", b"mdhd"]


def mutate(data, seed):
    kind = rnd.choice(["bytes", "video", "video", "audio", "table", "truncate"])
    if kind == "video" and not info[seed]["video"] or kind == "audio" and not info[seed]["audio"]:
        kind = "bytes"
    if kind == "truncate":
        return kind, data[:rnd.randrange(len(data) // 4, len(data))]
    if kind in ("video", "audio"):
        size, pos = rnd.choice(info[seed][kind])
        for _ in range(rnd.randint(1, 4)):
            i = pos + rnd.randrange(max(size, 1))
            if rnd.random() < 0.5:
                data[i] ^= 1 << rnd.randrange(8)
            else:
                j = min(len(data), i + rnd.randint(1, 32))
                data[i:j] = bytes(rnd.randrange(256) for _ in range(j - i))
        return kind, data
    if kind == "table":
        boxes = [i for t in TABLES for i in [data.find(t)] if i >= 0]
        if boxes:
            at = rnd.choice(boxes)
            field = at + 4 + 4 * rnd.randint(1, 12)
            if field + 4 <= len(data):
                value = rnd.choice([0, 1, 0xFFFFFFFF, len(data) + rnd.randrange(1 << 20), rnd.randrange(1 << 32)])
                data[field:field + 4] = struct.pack(">I", value)
            return kind, data
    for _ in range(rnd.randint(1, 40)):
        i = rnd.randrange(len(data))
        data[i] = rnd.randrange(256)
    return "bytes", data


deadline, runs, failures, silent, codes = time.time() + seconds, 0, 0, 0, {}
while time.time() < deadline:
    source = rnd.choice(seeds)
    kind, data = mutate(bytearray(open(source, "rb").read()), source)
    ext = os.path.splitext(source)[1]
    mutant = os.path.join(work, "mutant" + ext)
    open(mutant, "wb").write(data)
    output = os.path.join(out_dir, "o.mp4")
    strict = rnd.random() < 0.5
    args = [sdrify, mutant, output, "--overwrite", "--quiet"] + PRESET + ([] if strict else ["--tolerate-errors"])
    try:
        r = subprocess.run(args, capture_output=True, timeout=60)
        code, message = r.returncode, r.stderr.decode(errors="replace").strip()
    except subprocess.TimeoutExpired:
        code, message = "timeout", ""
    runs += 1
    codes[code] = codes.get(code, 0) + 1
    leftovers = [f for f in os.listdir(out_dir) if f != "o.mp4"]
    problem = None
    if code not in (0, 2, 3) or leftovers:
        problem = f"exit {code}"
    elif code == 0 and strict and info[source]["clean"] is not None:
        got = frame_hashes(output)
        clean = info[source]["clean"]
        worst = min((psnr(a, b) for a, b in zip(got, clean)), default=0.0)
        if len(got) != len(clean) or worst < 35:
            silent += 1
            problem = f"silent damage ({kind}): exit 0 with {len(got)}/{len(clean)} frames, worst frame {worst:.1f} dB"
    if problem:
        failures += 1
        kept = os.path.join(work, f"failure_{failures}{ext}")
        os.replace(mutant, kept)
        print(f"FAILURE {problem}: {kept} (from {os.path.basename(source)}) {message[-200:]} {leftovers}", flush=True)
        for f in leftovers:
            os.remove(os.path.join(out_dir, f))
    if os.path.exists(output):
        os.remove(output)
print(f"fuzz_convert: {runs} damaged conversions in {seconds:.0f} s, exit codes {dict(sorted(codes.items(), key=str))}, "
      f"{failures} failures ({silent} damage passed silently)" + (f" (kept in {work})" if failures else ""))
sys.exit(1 if failures else 0)
