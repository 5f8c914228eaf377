#!/usr/bin/env python3
"""Publishing benchmark (issue 34). With `measures` as the fourth argument only the measurements (below) run; with
`ranges` only the two-range ladder's timing (issue 44: `hls --ranges sdr,hdr` against `hls` and `hls --ranges hdr`
run one after the other on the same input, which decode it twice).

Timing: `sdrify hls` with four renditions against (a) four separate `sdrify convert`s of
the same input at the same four sizes and (b) ffmpeg making the same ladder in one process, at its most favourable:
scaled to the top rendition first, tone mapped once (zscale + hable, bench_convert's chain), split, scaled three
more times, four x264 encoders with the same settings (veryfast, CRF 23, High), the hls muxer writing fMP4
segments with keyframes forced at the boundaries. Input: the 4K HLG portrait clip bench_convert uses (made here if
missing). Runs alternate; medians. Prints Markdown rows.

Measurements: `--loudness` on a music-like sound (pink noise with a beat and a tone, about −31 LUFS) as ffmpeg's own
ebur128 filter reads the output (integrated loudness, true peak), for convert, compose and the HLS audio
rendition; `--max-bitrate` as the largest one-second window of video bits after the first second, on noisy video
(every picture wants more than the cap), convert and each HLS rendition.
"""
import re
import subprocess
import os
import shutil
import statistics
import sys
import tempfile

from bench_common import CHAIN, ensure, hlg_4k_portrait, timed

SDRIFY, CACHE, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3
MEASURES_ONLY = len(sys.argv) > 4 and sys.argv[4] == "measures"
RANGES_ONLY = len(sys.argv) > 4 and sys.argv[4] == "ranges"

hlg = hlg_4k_portrait(CACHE)
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


def run_hls_unchecked():
    return timed([SDRIFY, "hls", hlg, fresh("sdrify-hls"), "--ladder", "1080,720,540,360", "-y", "--no-bitstream-check"])


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




def ebur128(path):
    r = subprocess.run(["ffmpeg", "-nostats", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"],
                       capture_output=True, text=True)
    summary = r.stderr.split("Summary:")[-1]
    return float(re.search(r"I:\s+(-?[\d.]+)", summary).group(1)), float(re.search(r"Peak:\s+(-?[\d.]+)", summary).group(1))


def largest_window(path):
    """The most video bits in any one-second window (by presentation time) after the first second."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,size", "-of", "csv=p=0", path],
                       capture_output=True, text=True, check=True)
    p = [(float(a), int(b)) for a, b in (l.split(",")[:2] for l in r.stdout.split() if l)]
    t0 = min(t for t, _ in p)
    end = max(t for t, _ in p) - t0
    return max(sum(s * 8 for t, s in p if x <= t - t0 < x + 1) for x in [1 + i / 10 for i in range(int((end - 2) * 10) + 1)])


def measures():
    music = ensure(os.path.join(CACHE, "music_quiet.mp4"), [
        "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=20", "-f", "lavfi",
        "-i", "anoisesrc=d=20:c=pink:a=0.05,volume='0.3+0.7*lt(mod(t\\,0.5)\\,0.05)':eval=frame",
        "-f", "lavfi", "-i", "sine=f=220:d=20", "-filter_complex", "[1][2]amix=inputs=2:weights=1 0.2,aformat=channel_layouts=stereo[a]",
        "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k"])
    noisy = ensure(os.path.join(CACHE, "noisy_720p.mp4"), [
        "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=10,noise=alls=30:allf=t", "-c:v", "libx264", "-crf", "12", "-pix_fmt", "yuv420p"])
    before = ebur128(music)
    rows = []
    for target in (-23, -16, -14):
        out = os.path.join(work, "l.mp4")
        subprocess.run([SDRIFY, music, out, "--loudness", str(target), "-y", "-q"], check=True)
        i, peak = ebur128(out)
        comp = os.path.join(work, "c.mp4")
        subprocess.run([SDRIFY, "compose", music, music, "-o", comp, "--loudness", str(target), "-y", "-q"], check=True)
        ci, cpeak = ebur128(comp)
        ladder = fresh("l-hls")
        subprocess.run([SDRIFY, "hls", music, ladder, "--ladder", "360", "--loudness", str(target), "-y", "-q"], check=True)
        hi, hpeak = ebur128(os.path.join(ladder, "audio.m3u8"))
        rows.append(f"| --loudness {target}: output as ffmpeg's ebur128 reads it (input {before[0]:.1f} LUFS, true peak {before[1]:.1f} dBTP) "
                    f"| convert {i:.1f} LUFS / {peak:.1f} dBTP; compose {ci:.1f} / {cpeak:.1f} | hls audio {hi:.1f} / {hpeak:.1f} "
                    f"| worst {max(abs(i - target), abs(ci - target), abs(hi - target)):.1f} LU off, peak ≤ {max(peak, cpeak, hpeak):.1f} dBTP |")
    for cap in (2_000_000, 800_000):
        out = os.path.join(work, "cap.mp4")
        subprocess.run([SDRIFY, noisy, out, "--preset", "1280x720", "--max-bitrate", str(cap), "-y", "-q"], check=True)
        convert = largest_window(out)
        ladder = fresh("cap-hls")
        subprocess.run([SDRIFY, "hls", noisy, ladder, "--ladder", "720,360", "--max-bitrate", str(cap), "-y", "-q"], check=True)
        renditions = []
        for name in ("720p", "360p"):
            joined = os.path.join(work, f"{name}.mp4")
            with open(joined, "wb") as f:
                for part in [f"{name}_init.mp4"] + sorted(x for x in os.listdir(ladder) if x.startswith(name + "_0")):
                    f.write(open(os.path.join(ladder, part), "rb").read())
            renditions.append(largest_window(joined))
        rows.append(f"| --max-bitrate {cap // 1000}k on noisy 720p: largest 1 s window after the first second | convert {convert / cap:.2f}× the cap "
                    f"| hls 720p {renditions[0] / cap:.2f}×, 360p {renditions[1] / cap:.2f}× | ≤ 1.1× |")
    return rows


def ranges():
    ladder = ["--ladder", "1080,720,540,360", "-y"]
    cases = {
        "both": lambda: timed([SDRIFY, "hls", hlg, fresh("both"), "--ranges", "sdr,hdr"] + ladder),
        "apart": lambda: tuple(map(sum, zip(
            timed([SDRIFY, "hls", hlg, fresh("sdr")] + ladder), timed([SDRIFY, "hls", hlg, fresh("hdr"), "--ranges", "hdr"] + ladder)))),
    }
    walls = {k: [] for k in cases}
    for _ in range(RUNS):
        for name, run in cases.items():  # alternating
            walls[name].append(run()[0])
    m = {k: statistics.median(v) for k, v in walls.items()}
    return [f"| hls --ranges sdr,hdr (4 SDR H.264 + 4 HLG HEVC Main 10 renditions) from 4K HLG portrait, 4 s: one decode vs "
            f"two runs (hls, then hls --ranges hdr), wall | {m['both']:.2f} s | {m['apart']:.2f} s | **{m['apart'] / m['both']:.2f}× faster** |"]


rows = []
if RANGES_ONLY:
    rows = ranges()
    shutil.rmtree(work, ignore_errors=True)
    print("\n".join(rows))
    sys.exit(0)
if not MEASURES_ONLY:
    cases = {"hls": run_hls, "unchecked": run_hls_unchecked, "converts": run_converts, "ffmpeg": run_ffmpeg}
    walls = {k: [] for k in cases}
    peaks = {k: 0 for k in cases}
    for _ in range(RUNS):
        for name, run in cases.items():  # alternating: one of each per round
            w, r = run()
            walls[name].append(w)
            peaks[name] = max(peaks[name], r)
    m = {k: statistics.median(v) for k, v in walls.items()}
    rows.append(f"| hls, 4 renditions (1080/720/540/360 short edge) from 4K HLG portrait, 4 s: vs 4 separate converts, wall | "
                f"{m['hls']:.2f} s | {m['converts']:.2f} s | **{m['converts'] / m['hls']:.2f}× faster** |")
    rows.append(f"| the same ladder: sdrify hls vs ffmpeg in one process (scale, tone map once, split, 4 × x264 veryfast CRF 23, "
                f"fMP4 hls muxer), wall | {m['hls']:.2f} s | {m['ffmpeg']:.2f} s | **{m['ffmpeg'] / m['hls']:.2f}× faster** |")
    rows.append(f"| the same, sdrify without its own HEVC slice check (--no-bitstream-check, for trusted inputs) vs ffmpeg, wall | "
                f"{m['unchecked']:.2f} s | {m['ffmpeg']:.2f} s | **{m['ffmpeg'] / m['unchecked']:.2f}× faster** |")
    rows.append(f"| peak memory: hls / converts (largest one) / ffmpeg | {peaks['hls'] // 1024} MiB | {peaks['converts'] // 1024} MiB | "
                f"ffmpeg {peaks['ffmpeg'] // 1024} MiB |")
rows += measures()
shutil.rmtree(work, ignore_errors=True)
print("\n".join(rows))
