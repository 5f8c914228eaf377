#!/usr/bin/env python3
"""Composition benchmark (issue "compose"): sdrify compose against (a) converting each clip alone with the same
preset (sum of wall times) and (b) an ffmpeg filtergraph doing the same job (per-input tone map + autorotate +
scale/pad + fps, xfade and acrossfade chains), in one run, alternating; then peak RSS from 2 to 100 clips.
All x264 veryfast crf 23. Prints Markdown rows.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from bench_common import ensure, lift, timed

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
MEMORY_ONLY = len(sys.argv) > 4 and sys.argv[4] == "memory"   # only the peak-RSS rows
PRESET, W, H, FADE = "1280x720", 720, 1280, 0.5
HABLE = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"






def cached(name, args, portrait_height=None):
    return ensure(os.path.join(CACHE, name), args, portrait_height)


def phone_clips():
    """Phone-like footage: 4K HLG portrait (what phones record) among 1080p clips."""
    hlg4k = os.path.join(CACHE, "hlg_4k_portrait.mov")  # made by scripts/bench convert
    if not os.path.exists(hlg4k):
        return None
    return [(hlg4k, "hlg", True), (os.path.join(CACHE, "compose_sdr_60.mp4"), "sdr", True), (hlg4k, "hlg", True),
            (os.path.join(CACHE, "compose_sdr_24.mp4"), "sdr", True)]


def clips():
    grain = "noise=alls=12:allf=t"
    hdr = ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "16", "-x265-params", "log-level=error", "-tag:v", "hvc1",
           "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-colorspace", "bt2020nc"]
    sdr = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-pix_fmt", "yuv420p"]
    # (name, has HDR kind, has audio)
    return [
        (cached("compose_hlg_portrait.mov", ["-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30,{grain}", "-f", "lavfi", "-i",
                "sine=f=440:duration=3", "-t", "3", "-vf", lift("arib-std-b67")] + hdr +
               ["-color_trc", "arib-std-b67", "-c:a", "aac"], portrait_height=1080), "hlg", True),
        (cached("compose_sdr_60.mp4", ["-f", "lavfi", "-i", f"testsrc=size=1920x1080:rate=60,{grain}", "-f", "lavfi", "-i",
                "sine=f=660:duration=3", "-t", "3"] + sdr + ["-c:a", "aac"]), "sdr", True),
        (cached("compose_pq.mp4", ["-f", "lavfi", "-i", f"mandelbrot=size=1920x1080:rate=30,{grain}", "-t", "3",
                "-vf", lift("smpte2084")] + hdr + ["-color_trc", "smpte2084"]), "pq", False),
        (cached("compose_sdr_24.mp4", ["-f", "lavfi", "-i", f"smptehdbars=size=1280x720:rate=24,{grain}", "-f", "lavfi", "-i",
                "sine=f=550:duration=3", "-t", "3"] + sdr + ["-c:a", "aac"]), "sdr", True),
    ]




def seconds(path):
    # JSON: with a display matrix, ffprobe's csv adds the side data to the row.
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration", "-of", "json",
                          path], capture_output=True, text=True).stdout
    return float(json.loads(out)["streams"][0]["duration"])


def ffmpeg_graph(inputs, out):
    """The same composition as one ffmpeg filtergraph: ffmpeg autorotates each input itself."""
    args, parts = ["ffmpeg", "-v", "error", "-y"], []
    for path, _, _ in inputs:
        args += ["-i", path]
    n = len(inputs)
    for i, (_, kind, audio) in enumerate(inputs):
        tone = f"{HABLE}," if kind != "sdr" else ""
        parts.append(f"[{i}:v]{tone}scale={W}:{H}:force_original_aspect_ratio=decrease,pad={W}:{H}:(ow-iw)/2:(oh-ih)/2,"
                     f"setsar=1,fps=30,format=yuv420p[v{i}]")
        if audio:
            parts.append(f"[{i}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo[a{i}]")
        else:
            parts.append(f"anullsrc=r=48000:cl=stereo,atrim=duration={seconds(inputs[i][0])}[a{i}]")
    v, a, offset = "v0", "a0", 0.0
    for i in range(1, n):
        offset += seconds(inputs[i - 1][0]) - FADE
        parts.append(f"[{v}][v{i}]xfade=transition=fade:duration={FADE}:offset={offset:.3f}[x{i}]")
        parts.append(f"[{a}][a{i}]acrossfade=d={FADE}:c1=qsin:c2=qsin[y{i}]")
        v, a = f"x{i}", f"y{i}"
    return args + ["-filter_complex", ";".join(parts), "-map", f"[{v}]", "-map", f"[{a}]", "-c:v", "libx264", "-preset",
                   "veryfast", "-crf", "23", "-c:a", "aac", out]


def compare(label, inputs, tmp, out):
    """compose against the single converts and the ffmpeg filtergraph, alternating, RUNS times."""
    compose = [SDRIFY, "compose"] + [p for p, _, _ in inputs] + ["--output", out, "--preset", PRESET, "--fps", "30",
                                                                 "--transition", f"fade:{FADE}", "--overwrite", "--quiet"]
    singles = [[SDRIFY, p, os.path.join(tmp, f"one{i}.mp4"), "--preset", PRESET, "--overwrite", "--quiet"]
               for i, (p, _, _) in enumerate(inputs)]
    graph = ffmpeg_graph(inputs, os.path.join(tmp, "ffmpeg.mp4"))
    t_compose, t_sum, t_graph = [], [], []
    for _ in range(RUNS):
        t_compose.append(timed(compose)[0])
        t_sum.append(sum(timed(c)[0] for c in singles))
        t_graph.append(timed(graph)[0])
    c, s, g = (statistics.median(x) for x in (t_compose, t_sum, t_graph))
    return (f"| compose {label} → {W}x{H} 30 fps, fade {FADE} s; wall s | {c:.2f} | sum of the converts {s:.2f}; "
            f"ffmpeg filtergraph {g:.2f} | {c / s:.2f}× the converts (target ≤ 1.1); ffmpeg {g / c:.2f}× slower (target ≥ 2) |")


def main():
    inputs = clips()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.mp4")
        sets = [] if MEMORY_ONLY else [("4 clips (1080p HLG portrait, 1080p60 SDR, 1080p PQ, 720p24 SDR; 3 s each)", inputs)]
        phone = phone_clips()
        if phone and not MEMORY_ONLY:
            sets.append(("4 clips (4K HLG portrait 4 s, 1080p60 SDR 3 s, 4K HLG portrait 4 s, 720p24 SDR 3 s)", phone))
        for label, chosen in sets:
            rows.append(compare(label, chosen, tmp, out))

        # Memory from 2 to 100 clips, alternating 1080p SDR (with sound) and 1080p HLG portrait. Short clips show
        # that nothing grows with the count; with 0.5 s clips the 2-clip output (24 frames) ends before the encoder
        # reaches its steady state (a single 0.5 s clip peaks ~50 MiB below a 2 s one), so the target is read on
        # 2 s clips.
        def pair(seconds):
            return [cached(f"compose_sdr_{seconds}s.mp4", ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-f", "lavfi", "-i",
                                                           f"sine=duration={seconds}", "-t", str(seconds), "-c:v", "libx264",
                                                           "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]),
                    cached(f"compose_hlg_{seconds}s.mov", ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", str(seconds),
                                                           "-vf", lift("arib-std-b67"), "-c:v", "libx265", "-preset", "ultrafast",
                                                           "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt",
                                                           "yuv420p10le", "-color_primaries", "bt2020", "-colorspace", "bt2020nc",
                                                           "-color_trc", "arib-std-b67"], portrait_height=1080)]
        for seconds, counts in ((0.5, (2, 10, 100)), (2, (2, 10, 100))):
            short = pair(seconds)
            rss = {}
            for n in counts:
                cmd = [SDRIFY, "compose"] + [short[i % 2] for i in range(n)] + ["--output", out, "--preset", PRESET,
                                                                                "--transition", "fade:0.2", "--overwrite", "--quiet"]
                rss[n] = statistics.median(timed(cmd)[1] for _ in range(1 if n == 100 else max(1, RUNS)))
            trail = " → ".join(f"{rss[n] / 1024:.0f}" for n in counts)
            rows.append(f"| compose peak RSS, {' → '.join(map(str, counts))} clips ({seconds} s 1080p SDR and 1080p HLG portrait "
                        f"alternating, fade 0.2 s), MiB | {trail} | | 100 vs 2: {rss[100] / rss[2]:.2f}×; 100 vs 10: "
                        f"{rss[100] / rss[10]:.2f}× (target ≤ 1.2 of 2) |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
