"""What the benchmark scripts share: cached inputs, the HDR lift filter, timing with peak memory."""
import os
import re
import subprocess
import time


def ensure(path, args, portrait_height=None):
    """Generates `path` with ffmpeg `args` once (inputs are cached outside the repository). `portrait_height`: the
    coded height of a clip to be shown rotated 90° clockwise, as phones store portrait. ffmpeg 5.1's CLI does not
    turn `-metadata:s:v rotate=90` into a display matrix, so the matrix is written into the file here (every time:
    the rewrite is in place and cheap, and so also fixes inputs cached before)."""
    if not os.path.exists(path):
        print(f"bench: generating {path}", file=__import__("sys").stderr)
        subprocess.run(["ffmpeg", "-v", "error", "-y"] + args + [path + ".tmp.mov"], check=True)
        os.replace(path + ".tmp.mov", path)
    if portrait_height:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "set-display-matrix.py")
        subprocess.run(["python3", script, path, "0", "1", "-1", "0", str(portrait_height), "0"], check=True)
    return path


def lift(trc):
    """zscale filter that re-tags BT.709 test patterns as BT.2020 HDR with transfer `trc` (SDR white at 203 cd/m²)."""
    return f"zscale=tin=bt709:pin=bt709:min=bt709:rin=limited:t={trc}:p=bt2020:m=bt2020nc:r=limited:npl=203,format=yuv420p10le"


# ffmpeg's canonical SDR chain for HDR input (linear light, BT.709 primaries, hable, BT.709): the baseline.
CHAIN = "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"


def hlg_4k_portrait(cache):
    """The 4K HLG phone-portrait clip (4 s, grain, a tone; matrix 0,1,-1,0) the conversion and ladder benchmarks use."""
    return ensure(os.path.join(cache, "hlg_4k_portrait.mov"), [
        "-f", "lavfi", "-i", "testsrc2=size=3840x2160:rate=30,noise=alls=14:allf=t", "-f", "lavfi", "-i", "sine=duration=4",
        "-t", "4", "-vf", lift("arib-std-b67"), "-c:v", "libx265", "-preset", "ultrafast", "-b:v", "60M",
        "-x265-params", "log-level=error", "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020",
        "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-c:a", "aac"], portrait_height=2160)


def timed(cmd):
    """Wall time (s) and peak RSS (KiB, GNU time) of one run."""
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"bench: failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return wall, int(re.findall(r"^(\d+)$", r.stderr, re.M)[-1])
