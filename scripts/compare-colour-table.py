"""CIEDE2000 between sdrify's exact colour path and its table (SDRIFY_COLOUR_TABLE=N) on every HDR clip."""
import glob, json, os, subprocess, sys
import numpy as np
sys.path.insert(0, "/work/main/scripts")
from maker_sdr import lab, ciede2000, BT709_TO_XYZ
BIN, N = sys.argv[1], sys.argv[2]
RM = "/work/shared/realmedia"
clips = sorted(glob.glob(RM + "/*.mp4") + glob.glob(RM + "/*.mov") + glob.glob(RM + "/*.MOV") + glob.glob(RM + "/*.h265"))
clips += [] if os.environ.get("NOVEC") else ["/work/main/testvectors/roundtrip_pq.mp4", "/work/main/testvectors/roundtrip_hlg.mp4", os.path.expanduser("~/.cache/sdrify-bench/pq_1080p.mp4")]
def transfer(p):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_transfer", "-of", "csv=p=0", p], capture_output=True, text=True).stdout.strip()
    return out.strip(",").split(",")[0]
def frames(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip().split(",")
    w, h = int(out[0]), int(out[1])
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", "select=not(mod(n\\,10)),scale=in_color_matrix=bt709:in_range=tv:out_range=pc", "-vsync", "0",
                          "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, "<u2").reshape(-1, h, w, 3) / 65535.0
allde = []
for c in clips:
    t = transfer(c)
    if t not in ("smpte2084", "arib-std-b67"):
        continue
    outs = {}
    for mode in ("exact", "table"):
        o = f"/tmp/tde/{os.path.basename(c)}.{mode}.mp4"
        env = dict(os.environ)
        if mode == "table": env.update(dict(kv.split("=") for kv in N.split(",")) if "=" in N else {"SDRIFY_COLOUR_TABLE": N})
        r = subprocess.run([BIN, c, o, "--crf", "0", "--x264-preset", "ultrafast", "-y", "--quiet"] + os.environ.get("EXTRA", "").split(), env=env)
        if r.returncode != 0: break
        outs[mode] = frames(o)
    if len(outs) < 2: print("skip", c); continue
    a, b = outs["exact"], outs["table"]
    n = min(len(a), len(b)); a, b = a[:n], b[:n]
    de = ciede2000(lab(a ** 2.2, BT709_TO_XYZ), lab(b ** 2.2, BT709_TO_XYZ)).ravel()
    allde.append(de)
    codes = np.abs(np.round(a * 255) - np.round(b * 255))
    print(f"| {os.path.basename(c)} ({t}) | {n} | {de.mean():.3f} | {np.percentile(de, 99):.2f} | {de.max():.1f} | {(codes <= 1).mean() * 100:.1f} % |", flush=True)
d = np.concatenate(allde)
print(f"| all | | {d.mean():.3f} | {np.percentile(d, 99):.2f} | {d.max():.1f} | |")
