#!/usr/bin/env python3
"""Whole-conversion benchmark (issue "performance"): sdrify against ffmpeg on the same inputs, in one run.

For each input, runs alternately, RUNS times each: (a) ffmpeg floor (decode + scale + encode),
(b) ffmpeg's canonical zscale+tonemap=hable chain, (c) the same chain with scaling first, (d) sdrify — all
libx264 -preset veryfast -crf 23. Prints median wall times, ratios, fps and peak RSS (GNU time) as Markdown.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import CHAIN, ensure, hlg_4k_portrait, lift, timed

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"]






def inputs():
    hlg = hlg_4k_portrait(CACHE)
    pq = os.path.join(CACHE, "pq_1080p.mp4")  # made by scripts/bench
    return [("4K HLG portrait (matrix 0,1,-1,0) → 960x540", hlg, "960x540", 540, 960),
            ("1080p PQ → 1920x1080", pq, "1920x1080", 1920, 1080)]


def capture_pictures(tmp, src, preset, w, h):
    """The SDR pictures sdrify and the canonical chain make of `src`, as raw frames (y4m), for picture_floor."""
    pictures = {}
    lossless = os.path.join(tmp, "lossless.mp4")
    subprocess.run([SDRIFY, src, lossless, "--preset", preset, "--x264-preset", "ultrafast", "--crf", "0", "--overwrite",
                    "--quiet"], check=True)
    pictures["sdrify"] = os.path.join(tmp, "sdrify.y4m")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", lossless, "-f", "yuv4mpegpipe", pictures["sdrify"]], check=True)
    pictures["canonical"] = os.path.join(tmp, "canonical.y4m")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", f"{CHAIN},scale={w}:{h}", "-f", "yuv4mpegpipe",
                    pictures["canonical"]], check=True)
    return pictures


def picture_floor(src, picture, out):
    """Decode `src` (frames discarded, no autorotation) while x264 encodes `picture` (raw frames, nearly free to read).
    The decode is a second output (`-f null`): ffmpeg reads an input for an output that asks. (Until 2026-11-29 it fed
    a `nullsink` filter, which no output pulls: for a source without sound ffmpeg 5.1 read and decoded nothing of it,
    and the floor was x264 alone.)"""
    return ["ffmpeg", "-v", "error", "-y", "-noautorotate", "-i", src, "-i", picture,
            "-map", "1:v", "-map", "0:a?"] + X264 + [out, "-map", "0:v", "-f", "null", "-"]




def frames(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-count_packets", "-show_entries",
                          "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True).stdout
    return int(out.strip().split(",")[0])


def main():
    if len(sys.argv) > 4 and sys.argv[4] == "effects":
        print(effect_rows())
        return
    if len(sys.argv) > 4 and sys.argv[4] == "overlays":
        print(overlay_rows())
        return
    rows, sdr_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mp4")
        for label, src, preset, w, h in inputs():
            # ffmpeg autorotates (its transpose comes first in the graph); every variant scales to the upright
            # size sdrify writes.
            # The floor encodes the HDR signal as it is, a flatter picture than any SDR rendering of it, and x264's
            # work grows with the picture's contrast. So each tone-mapped picture also gets its own floor: decode the
            # source (discarded) + encode that picture, captured losslessly beforehand and read back as raw frames.
            pictures = capture_pictures(tmp, src, preset, w, h)
            cmds = {
                "floor": ["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", f"scale={w}:{h},format=yuv420p"] + X264 + [out],
                "sdr floor sdrify": picture_floor(src, pictures["sdrify"], out),
                "sdr floor canonical": picture_floor(src, pictures["canonical"], out),
                "canonical": ["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", f"{CHAIN},scale={w}:{h}"] + X264 + [out],
                "tuned": ["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", f"scale={w}:{h},{CHAIN}"] + X264 + [out],
                # (A file of its own: sdrify replaces only what it made, not the file ffmpeg wrote.)
                "sdrify": [SDRIFY, src, os.path.join(tmp, "sdrify.mp4"), "--preset", preset, "--x264-preset", "veryfast", "--crf", "23",
                           "--overwrite", "--quiet"],
            }
            results = {k: [] for k in cmds}
            for _ in range(RUNS):
                for k, cmd in cmds.items():  # alternating, so drift in machine load hits all alike
                    results[k].append(timed(cmd))
            n = frames(src)
            med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
            rss = {k: max(m for _, m in v) for k, v in results.items()}
            sdr_rows.append(f"| {label} | {med['sdrify'] / med['sdr floor sdrify']:.2f}× | "
                            f"{med['canonical'] / med['sdr floor canonical']:.2f}× | "
                            f"{med['sdrify'] - med['sdr floor sdrify']:.2f} s | "
                            f"{med['canonical'] - med['sdr floor canonical']:.2f} s |")
            rows.append(f"| {label} | {n} | {med['sdrify']:.2f} s ({n / med['sdrify']:.1f} fps) | "
                        f"{med['floor']:.2f} s | {med['canonical']:.2f} s | {med['tuned']:.2f} s | "
                        f"**{med['sdrify'] / med['floor']:.2f}×** | **{med['canonical'] / med['sdrify']:.2f}×** | "
                        f"**{med['tuned'] / med['sdrify']:.2f}×** | {rss['sdrify'] / 1024:.0f} / {rss['floor'] / 1024:.0f} MiB "
                        f"(**{rss['sdrify'] / rss['floor']:.2f}×**) |")
    print("| input | frames | sdrify | floor | canonical | tuned | sdrify/floor | canonical/sdrify | tuned/sdrify | peak RSS sdrify / floor |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("Against a floor that encodes the same SDR picture (decode the source + x264 on the picture each tool made):")
    print()
    print("| input | sdrify / its picture's floor | canonical / its picture's floor | sdrify's colour work | canonical's colour work |")
    print("|---|---|---|---|---|")
    print("\n".join(sdr_rows))
    print()
    print(memory_rows())
    print()
    print(overlay_rows())


def overlay_rows():
    """What one sticker and one caption track cost on the 4K HLG portrait → 960x540 conversion."""
    hlg = os.path.join(CACHE, "hlg_4k_portrait.mov")
    sticker = ensure(os.path.join(CACHE, "sticker.png"), [
        "-f", "lavfi", "-i", "testsrc2=size=200x120,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(hypot(X-100,Y-60),55),255,0)'",
        "-frames:v", "1", "-f", "apng"])
    srt = os.path.join(CACHE, "lyrics.srt")
    if not os.path.exists(srt):
        with open(srt, "w") as f:
            for i in range(8):
                f.write(f"{i + 1}\n00:00:0{i // 2},{(i % 2) * 500:03d} --> 00:00:0{i // 2},{(i % 2) * 500 + 450:03d}\n"
                        f"Line {i + 1} of the lyrics こんにちは\n\n")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "o.mp4")
        base = [SDRIFY, hlg, out, "--preset", "960x540", "--x264-preset", "veryfast", "--crf", "23", "--overwrite", "--quiet"]
        cmds = {"plain": base, "overlays": base + ["--sticker", f"{sticker}@20,20", "--captions", srt]}
        times = {k: [] for k in cmds}
        for _ in range(RUNS):
            for k, cmd in cmds.items():
                times[k].append(timed(cmd)[0])
    plain, with_overlays = statistics.median(times["plain"]), statistics.median(times["overlays"])
    return ("| 4K HLG portrait → 960x540 | without overlays | with one sticker and one caption track | cost |\n|---|---|---|---|\n"
            f"| median of {RUNS} | {plain:.2f} s | {with_overlays:.2f} s | **{(with_overlays / plain - 1) * 100:+.1f} %** |")


def effect_rows():
    """A 1080p conversion with three effects active all along (a full-picture vignette, a blurred and a pixelated
    region) against the same conversion without: one table row."""
    pq = os.path.join(CACHE, "pq_1080p.mp4")
    with tempfile.TemporaryDirectory() as tmp:
        fx = os.path.join(tmp, "fx.json")
        with open(fx, "w") as f:
            f.write('{"effects": [{"type": "vignette", "strength": 0.4},'
                    ' {"type": "blur", "radius": 30, "region": {"x": 200, "y": 200, "width": 400, "height": 300}},'
                    ' {"type": "pixelate", "block": 24, "region": {"x": 1200, "y": 500, "width": 480, "height": 360}}]}')
        out = os.path.join(tmp, "o.mp4")
        base = [SDRIFY, pq, out, "--preset", "1920x1080", "--overwrite", "--quiet"]
        times = {"plain": [], "effects": []}
        for _ in range(RUNS):
            times["plain"].append(timed(base)[0])
            times["effects"].append(timed(base + ["--overlays", fx])[0])
    plain, fx_t = statistics.median(times["plain"]), statistics.median(times["effects"])
    return (f"| 1080p PQ → 1920x1080 with three effects all along (vignette, blur 400x300, pixelate 480x360), wall s "
            f"| {fx_t:.2f} | without effects {plain:.2f} | {(fx_t / plain - 1) * 100:+.1f} % |")


def memory_rows():
    """Peak memory must not grow with the clip's length: the same HLG source, 10 s against 10 min."""
    clips = []
    for seconds in (10, 600):
        clips.append((seconds, ensure(os.path.join(CACHE, f"hlg_480x270_{seconds}s.mov"), [
            "-f", "lavfi", "-i", "testsrc2=size=480x270:rate=30,noise=alls=10:allf=t", "-t", str(seconds),
            "-vf", lift("arib-std-b67"), "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error",
            "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"])))
    lines = ["| clip (480x270 HLG → 960x540 preset) | wall | peak RSS |", "|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        for seconds, src in clips:
            wall, rss = timed([SDRIFY, src, os.path.join(tmp, "m.mp4"), "--preset", "960x540", "--overwrite", "--quiet"])
            lines.append(f"| {seconds} s | {wall:.1f} s | {rss / 1024:.0f} MiB |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
