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


def timed(cmd):
    """Wall time (s) and peak RSS (KiB, GNU time) of one run."""
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"bench: failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    return wall, int(re.findall(r"^(\d+)$", r.stderr, re.M)[-1])
