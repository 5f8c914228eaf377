#!/usr/bin/env python3
"""Whole-conversion fuzzing: random byte and run damage anywhere in the valid clips of testvectors/ (sample
tables, headers, bitstream), converted by sdrify with and without --tolerate-errors. Every run must end with
exit 0, 2 (damaged input) or 3 (unsupported): no signal, no exit 4 (that would blame the output for the input's
damage), no hang, nothing left beside the output. Failing inputs are kept for replay.

    scripts/fuzz_convert.py SDRIFY SECONDS [SEED]
"""
import glob
import os
import random
import subprocess
import sys
import tempfile
import time

sdrify, seconds = sys.argv[1], float(sys.argv[2])
rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testvectors")
seeds = [f for f in glob.glob(os.path.join(root, "*.m*")) if os.path.getsize(f) > 5000 and "truncated" not in f]
work = tempfile.mkdtemp(prefix="sdrify-fuzz-convert-")
out_dir = os.path.join(work, "out")
os.makedirs(out_dir)
deadline, runs, failures, codes = time.time() + seconds, 0, 0, {}
while time.time() < deadline:
    source = rnd.choice(seeds)
    data = bytearray(open(source, "rb").read())
    runs_of_bytes = rnd.random() < 0.3
    for _ in range(rnd.randint(1, 40)):
        i = rnd.randrange(len(data))
        if runs_of_bytes:
            j = min(len(data), i + rnd.randint(1, 64))
            data[i:j] = bytes(rnd.randrange(256) for _ in range(j - i))
        else:
            data[i] = rnd.randrange(256)
    ext = os.path.splitext(source)[1]
    mutant = os.path.join(work, "mutant" + ext)
    open(mutant, "wb").write(data)
    output = os.path.join(out_dir, "o.mp4")
    args = [sdrify, mutant, output, "--overwrite", "--quiet", "--preset", "640x480"]
    if rnd.random() < 0.5:
        args.append("--tolerate-errors")
    try:
        r = subprocess.run(args, capture_output=True, timeout=60)
        code, message = r.returncode, r.stderr.decode(errors="replace").strip()
    except subprocess.TimeoutExpired:
        code, message = "timeout", ""
    runs += 1
    codes[code] = codes.get(code, 0) + 1
    leftovers = [f for f in os.listdir(out_dir) if f != "o.mp4"]
    if code not in (0, 2, 3) or leftovers:
        failures += 1
        kept = os.path.join(work, f"failure_{failures}{ext}")
        os.replace(mutant, kept)
        print(f"FAILURE exit {code}: {kept} (from {os.path.basename(source)}) {message[-200:]} {leftovers}", flush=True)
        for f in leftovers:
            os.remove(os.path.join(out_dir, f))
    if os.path.exists(output):
        os.remove(output)
print(f"fuzz_convert: {runs} mutated conversions in {seconds:.0f} s, exit codes {dict(sorted(codes.items(), key=str))}, "
      f"{failures} failures" + (f" (kept in {work})" if failures else ""))
sys.exit(1 if failures else 0)
