#!/usr/bin/env python3
"""Publishing benchmark (issue 34): `sdrify hls` with four renditions against (a) four separate `sdrify convert`s of
the same input at the same four sizes and (b) ffmpeg making the same ladder in one process, at its most favourable:
scaled to the top rendition first, tone mapped once (zscale + hable, bench_convert's chain), split, scaled three
more times, four x264 encoders with the same settings (veryfast, CRF 23, High), the hls muxer writing fMP4
segments with keyframes forced at the boundaries. Input: the 4K HLG portrait clip bench_convert uses (made here if
missing). Runs alternate; medians. Prints Markdown rows.
"""
import os
import shutil
import statistics
import sys
import tempfile

from bench_common import ensure, lift, timed

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3

grain = "noise=alls=12:allf=t"
hlg = ensure(os.path.join(CACHE, "hlg_4k_portrait.mov"), [
    "-f", "lavfi", "-i", f"testsrc2=size=3840x2160:rate=30,{grain}", "-f", "lavfi", "-i", "sine=duration=4",
    "-t", "4", "-vf", lift("arib-std-b67"), "-c:v", "libx265", "-preset", "ultrafast", "-b:v", "60M",
    "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
    "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-c:a", "aac"], portrait_height=2160)

CHAIN = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
sizes = [(1080, 1920), (720, 1280), (540, 960), (360, 640)]
presets = ["1920x1080", "1280x720", "960x540", "640x480"]

work = tempfile.mkdtemp(prefix="sdrify-bench-hls-")


def fresh(name):
    path = os.path.join(work, name)
    shutil.rmtree(path, ignore_errors=True)
    if name.endswith("/"):
        os.makedirs(path)
    return path


def run_hls():
    return timed([SDRIFY, "hls", hlg, fresh("sdrify-hls"), "--ladder", "1080,720,540,360", "-y"])


def run_converts():
    wall, rss = 0.0, 0
    for p in presets:
        w, r = timed([SDRIFY, hlg, os.path.join(work, f"convert-{p}.mp4"), "--preset", p, "-y"])
        wall += w
        rss = max(rss, r)
    return wall, rss


def run_ffmpeg():
    out = fresh("ffmpeg-hls/")
    graph = f"[0:v]scale={sizes[0][0]}:{sizes[0][1]},{CHAIN},split=4[t0][t1][t2][t3];[t0]null[v0];" + ";".join(
        f"[t{i}]scale={w}:{h}[v{i}]" for i, (w, h) in enumerate(sizes) if i > 0)
    cmd = ["ffmpeg", "-v", "error", "-y", "-i", hlg, "-filter_complex", graph]
    for i in range(4):
        cmd += ["-map", f"[v{i}]"]
    cmd += ["-map", "0:a", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-profile:v", "high", "-pix_fmt", "yuv420p",
            "-force_key_frames", "expr:gte(t,n_forced*4)", "-c:a", "aac", "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod",
            "-hls_segment_type", "fmp4", "-hls_flags", "independent_segments", "-master_pl_name", "master.m3u8",
            "-var_stream_map", "v:0,agroup:a v:1,agroup:a v:2,agroup:a v:3,agroup:a a:0,agroup:a",
            os.path.join(out, "%v.m3u8")]
    return timed(cmd)


cases = {"hls": run_hls, "converts": run_converts, "ffmpeg": run_ffmpeg}
walls = {k: [] for k in cases}
peaks = {k: 0 for k in cases}
for _ in range(RUNS):
    for name, run in cases.items():  # alternating: one of each per round
        w, r = run()
        walls[name].append(w)
        peaks[name] = max(peaks[name], r)
shutil.rmtree(work, ignore_errors=True)

m = {k: statistics.median(v) for k, v in walls.items()}
print(f"| hls, 4 renditions (1080/720/540/360 short edge) from 4K HLG portrait, 4 s: vs 4 separate converts, wall | "
      f"{m['hls']:.2f} s | {m['converts']:.2f} s | **{m['converts'] / m['hls']:.2f}× faster** |")
print(f"| the same ladder: sdrify hls vs ffmpeg in one process (scale, tone map once, split, 4 × x264 veryfast CRF 23, "
      f"fMP4 hls muxer), wall | {m['hls']:.2f} s | {m['ffmpeg']:.2f} s | **{m['ffmpeg'] / m['hls']:.2f}× faster** |")
print(f"| peak memory: hls / converts (largest one) / ffmpeg | {peaks['hls'] // 1024} MiB | {peaks['converts'] // 1024} MiB | "
      f"ffmpeg {peaks['ffmpeg'] // 1024} MiB |")
