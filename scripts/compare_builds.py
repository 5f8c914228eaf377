#!/usr/bin/env python3
"""Whether two sdrify builds make the same outputs: each command of a matrix (convert with the everyday edits,
compose, hls, the stills) run by both builds on the real clips of ../shared/realmedia and the committed vectors,
video and audio compared frame by frame (ffmpeg's framemd5), playlists and pictures byte by byte, and the JSON
report (all but elapsed_s) and the warnings and errors on stderr line by line. For a change that must not change
what sdrify makes or says (a refactor, a new output kind beside the old ones).

    scripts/compare_builds.py BUILD_A BUILD_B [--only SUBSTRING]

Prints one line per case and a total; exits 1 when any output differs or one build fails where the other does not.
"""
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REALMEDIA = os.path.join(os.path.dirname(ROOT), "shared", "realmedia")
VIDEO_EXTENSIONS = (".mp4", ".mov", ".MOV", ".m4v", ".ts", ".mkv")


def inputs():
    found = sorted(p for p in glob.glob(os.path.join(REALMEDIA, "*")) if p.endswith(VIDEO_EXTENSIONS))
    found += sorted(p for p in glob.glob(os.path.join(ROOT, "testvectors", "*")) if p.endswith(VIDEO_EXTENSIONS)
                    and not os.path.basename(p).startswith(("empty", "truncated")))
    return found


def cases(src):
    """(name, arguments with OUT for the output path, kind of output)."""
    return [
        ("convert", [src, "OUT/out.mp4", "--preset", "960x540"], "movie"),
        ("edits", [src, "OUT/out.mp4", "--preset", "640x480", "--start", "0.2", "--duration", "1.5", "--speed", "2",
                   "--rotate", "90", "--fps", "25"], "movie"),
        ("hls", ["hls", src, "OUT/hls", "--ladder", "360,240", "--duration", "2"], "folder"),
        ("thumbnail", ["thumbnail", src, "OUT/thumb.jpg", "--at", "0.25", "--size", "320x320"], "folder"),
        ("keep", [src, "OUT/out.mp4", "--preset", "640x480", "--metadata", "keep", "--start", "0.2"], "movie"),
        ("loudness", [src, "OUT/out.mp4", "--preset", "640x480", "--duration", "2", "--loudness", "-16",
                      "--poster", "OUT/poster.jpg"], "movie"),
        ("sheet", ["sheet", src, "OUT/sheet.jpg", "--grid", "3x2", "--width", "640"], "folder"),
        ("sprites", ["sprites", src, "OUT/sprites", "--every", "0.5"], "folder"),
    ]


def compose_cases(all_inputs):
    clips = [p for p in all_inputs if "orient_" in p or "hlg_portrait" in p][:3]
    if len(clips) < 2:
        return []
    photos = sorted(glob.glob(os.path.join(ROOT, "testvectors", "photos", "*.png")))[:1]
    sdr = os.path.join(ROOT, "testvectors", "sdr_h264_aac.mp4")
    sound = os.path.join(tempfile.gettempdir(), "compare_builds_sound.m4a")  # an input with sound and no pictures
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", sdr, "-vn", "-c:a", "copy", sound], check=True)
    return [("compose", ["compose", *clips, "-o", "OUT/out.mp4", "--preset", "960x540", "--transition", "crossfade:0.2"],
             "movie"),
            ("compose-mixed", ["compose", clips[0], *photos, "color:#336699:1", "-o", "OUT/out.mp4", "--preset", "640x480",
                               "--music", sdr, "--loudness", "-18", "--poster", "OUT/p.png"], "movie"),
            ("compose-real", ["compose", *[p for p in all_inputs if "slow_motion" in p or "portrait_4k60" in p or "pixel7" in p][:4], "-o", "OUT/out.mp4",
                              "--preset", "960x540", "--transition", "fade:0.1", "--fit", "cover"], "movie"),
            ("sound-only", [sound, "OUT/out.mp4", "--preset", "640x480", "--loudness", "-16"], "movie"),
            ("passthrough", [sdr, "OUT/out.mp4", "--preset", "Passthrough"], "movie"),
            ("passthrough-refused", [sdr, "OUT/out.mp4", "--preset", "Passthrough", "--start", "1"], "movie")]


def framemd5(path, init=None):
    if init:  # a segment decodes after its rendition's init segment
        joined = path + ".joined.mp4"
        with open(joined, "wb") as f:
            f.write(open(init, "rb").read() + open(path, "rb").read())
        path = joined
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v?", "-map", "0:a?", "-f", "framemd5", "-"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return "unreadable"
    # timed-metadata tracks: their packets as they are (no decoder reads them)
    data = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:d?", "-c", "copy", "-f", "framemd5", "-"],
                          capture_output=True, text=True)
    return out.stdout + (data.stdout if data.returncode == 0 else "data unreadable")


def digest(folder):
    result = {}
    for path in sorted(glob.glob(os.path.join(folder, "**", "*"), recursive=True)):
        if os.path.isdir(path):
            continue
        rel = os.path.relpath(path, folder)
        if path.endswith(".joined.mp4"):
            continue
        if path.endswith(".m4s"):
            result[rel] = framemd5(path, init=path.rsplit("_", 1)[0] + "_init.mp4")
        elif path.endswith((".mp4", ".mov")) and not rel.endswith("init.mp4"):
            result[rel] = framemd5(path)
        else:
            result[rel] = hashlib.md5(open(path, "rb").read()).hexdigest()
    return result


def said(proc, out):
    """The JSON report without its timing, and stderr, with the output folder named OUT."""
    report = re.sub(r'"elapsed_s" *: *[0-9.e+-]+', '"elapsed_s": 0', proc.stdout)
    return (report + proc.stderr).replace(out, "OUT")


def run(build, args, out):
    os.makedirs(out, exist_ok=True)
    argv = [build] + [a.replace("OUT", out) for a in args] + ["--json"]
    proc = subprocess.run(argv, capture_output=True, text=True)
    files = digest(out)
    files["(report and messages)"] = said(proc, out)
    return proc.returncode, files


def main():
    a, b = sys.argv[1], sys.argv[2]
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    all_inputs = inputs()
    matrix = [(os.path.basename(src), *c) for src in all_inputs for c in cases(src)]
    matrix += [("clips", *c) for c in compose_cases(all_inputs)]
    same = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k, (label, name, args, _) in enumerate(matrix):
            if only not in f"{label} {name}":
                continue
            code_a, out_a = run(a, args, os.path.join(tmp, f"{k}a"))
            code_b, out_b = run(b, args, os.path.join(tmp, f"{k}b"))
            if code_a == code_b and out_a == out_b:
                same += 1
                print(f"same     {label} {name} (exit {code_a}, {len(out_a)} files)", flush=True)
            else:
                differ += 1
                changed = sorted(f for f in set(out_a) | set(out_b) if out_a.get(f) != out_b.get(f))
                print(f"DIFFERS  {label} {name}: exit {code_a} vs {code_b}; files {changed[:5]}", flush=True)
    print(f"{same} the same, {differ} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
