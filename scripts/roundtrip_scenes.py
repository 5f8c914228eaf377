#!/usr/bin/env python3
"""Graded round trip at every bright share (issue 55): SDR photographs placed at ITU-R BT.2408 reference white
(203 cd/m², lifted with the light of sdrify's gamma 2.2 SDR display) with a share of the frame brighter than that
white, as graded HDR has it: a grey ramp from 203 to 1000 cd/m², saturated BT.2020 patches at 600 cd/m² (a lamp,
graphics) and, from 15 % up, a bright window (a photograph lit at 4× its surroundings: a sunlit view out of a room).
0, 3, 7, 15, 30 and 50 % of the frame above 203 cd/m², PQ and HLG, with and without HDR10 metadata (mastering display
and light levels), each in two sets: scenes built from the tuning photographs (astronaut, coffee) and from the checking
ones (chelsea, rocket), never both.

    scripts/roundtrip_scenes.py SDRIFY WORKDIR [--sheets DIR] [-- SDRIFY ARGS...]

A graded picture's SDR-range part must come back as it went in: each scene's photographs are scored in CIEDE2000
over 4x4 blocks of display light (gamma 2.2), 8 pixels clear of the bright area; the patches by how much of their
chroma (CIE C*) survives against the colour brought into BT.709 at equal luminance and clipped at SDR white.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maker_sdr import BT709_TO_XYZ, block_mean, ciede2000, lab, resize  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
W, H = 960, 540
REF_WHITE = 203.0
SHARES = [0, 3, 7, 15, 30, 50]
SETS = {"tuning": ("astronaut", "coffee"), "checking": ("chelsea", "rocket")}
M709_TO_2020 = np.array([[0.6274039, 0.3292830, 0.0433131], [0.0690973, 0.9195404, 0.0113623],
                         [0.0163914, 0.0880133, 0.8955953]])
K2020 = np.array([0.2627, 0.6780, 0.0593])
K709 = np.array([0.2126, 0.7152, 0.0722])
PATCHES = [(1, 0.05, 0.05), (0.05, 1, 0.05), (0.02, 0.05, 1), (1, 1, 0.05)]  # BT.2020 directions: red, green, blue, yellow
PATCH_CD = 600.0
WINDOW_GAIN = 4.0
MARGIN = 8


def photo(name):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(ROOT, "testvectors", "photos", name + ".png"),
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(192, 288, 3) / 255.0


def pq_encode(cd):
    m1, m2, c1, c2, c3 = 0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875
    y = np.power(np.clip(cd, 0, 10000) / 10000, m1)
    return np.power((c1 + c2 * y) / (1 + c3 * y), m2)


def hlg_encode(cd_rgb):
    fd = cd_rgb / 1000.0
    yd = np.maximum(fd @ K2020, 1e-12)[..., None]
    es = np.clip(fd * np.power(yd, (1 - 1.2) / 1.2), 0, 1)
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    return np.where(es <= 1 / 12, np.sqrt(3 * es), a * np.log(np.maximum(12 * es - b, 1e-12)) + c)


def scene(share, names):
    """(display light in BT.2020 cd/m², the SDR reference R'G'B' or NaN where the frame is HDR-only, patch boxes)."""
    left, right = (resize(photo(n), W // 2, H) for n in names)
    sdr = np.concatenate([left, right], axis=1)
    cd = (sdr ** 2.2 * REF_WHITE) @ M709_TO_2020.T
    reference = sdr.copy()
    patches = []
    rows = round(H * share / 100)
    if rows:
        band = np.zeros((rows, W, 3))
        # Up to 7 %: ramp and patches side by side; above: a window takes what is left of the band's width.
        window_w = 0 if share <= 7 else W // 2
        rest = W - window_w
        ramp_w = rest // 2
        t = np.linspace(0, 1, ramp_w)
        ramp_cd = REF_WHITE * (1000 / REF_WHITE) ** t  # even steps in stops
        band[:, :ramp_w] = ramp_cd[None, :, None]
        pw = (rest - ramp_w) // len(PATCHES)
        for i, d in enumerate(PATCHES):
            rgb = np.array(d, float) * PATCH_CD / float(np.array(d) @ K2020)
            x = ramp_w + i * pw
            band[:, x:x + pw] = rgb
            patches.append((x, pw, rgb))
        if window_w:
            view = resize(photo(names[1]), window_w, rows)
            band[:, rest:] = (view ** 2.2 * REF_WHITE * WINDOW_GAIN) @ M709_TO_2020.T
        cd[:rows] = band
        reference[:rows + MARGIN] = np.nan
    return cd, reference, patches, rows


def encode(cd, kind, hdr10, out):
    signal = pq_encode(cd) if kind == "pq" else hlg_encode(cd)
    trc = "smpte2084" if kind == "pq" else "arib-std-b67"
    planes = np.ascontiguousarray(signal.astype(np.float32).transpose(2, 0, 1)[[1, 2, 0]])
    x265 = "lossless=1:log-level=error:pools=1:frame-threads=1"
    if hdr10:
        x265 += ":hdr10=1:master-display=G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,50):max-cll=1000,400"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gbrpf32le", "-s", f"{W}x{H}", "-r", "24",
                    "-i", "-", "-frames:v", "3",
                    "-vf", f"zscale=min=gbr:m=2020_ncl:rin=full:r=limited:tin={trc}:t={trc}:pin=2020:p=2020:chromal=left,"
                           "format=yuv420p10le",
                    "-c:v", "libx265", "-x265-params", x265, "-tag:v", "hvc1", "-color_primaries", "bt2020",
                    "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv", out],
                   input=planes.tobytes() * 3, check=True)


def decoded(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf",
                          "select=eq(n\\,1),scale=in_color_matrix=bt709:in_range=tv:out_range=pc", "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(raw, "<u2").reshape(H, W, 3) / 65535.0


def score(reference, out, patches, rows):
    """(ΔE00 mean and p95 over the photographs, ΔL*, the patches' chroma kept) of one output."""
    ref = block_mean(reference ** 2.2, 4)
    got = block_mean(out ** 2.2, 4)
    valid = ~np.isnan(ref).any(axis=-1)
    a, b = lab(ref[valid], BT709_TO_XYZ), lab(got[valid], BT709_TO_XYZ)
    de = ciede2000(a, b)
    kept = []
    for x, w, rgb2020 in patches:
        inside = out[rows // 4: rows - rows // 4, x + 4: x + w - 4] ** 2.2
        c_out = np.hypot(*lab(inside.reshape(-1, 3), BT709_TO_XYZ)[:, 1:].T).mean()
        # The target: the patch in BT.709 at equal luminance, out-of-gamut parts taken toward grey, clipped to white.
        rgb709 = np.linalg.solve(M709_TO_2020, rgb2020) / REF_WHITE
        y = rgb709 @ K709
        lo = rgb709.min()
        if lo < 0:
            rgb709 = y + (rgb709 - y) * y / (y - lo)
        rgb709 = rgb709 / max(rgb709.max(), 1)
        c_target = np.hypot(*lab(rgb709[None], BT709_TO_XYZ)[0, 1:])
        kept.append(c_out / c_target)
    return de.mean(), np.percentile(de, 95), (b[:, 0] - a[:, 0]).mean(), (min(kept) if kept else float("nan"))


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    sheets = None
    if "--sheets" in argv:
        i = argv.index("--sheets")
        sheets = argv[i + 1]
        del argv[i:i + 2]
        os.makedirs(sheets, exist_ok=True)
    sdrify, work = argv[0], argv[1]
    os.makedirs(work, exist_ok=True)
    print("| set | HDR | HDR10 metadata | bright share % | ΔE00 mean | ΔE00 p95 | ΔL* | patches' chroma kept (worst) |")
    print("|---|---|---|---|---|---|---|---|")
    summary = {}
    for group, names in SETS.items():
        for share in SHARES:
            cd, reference, patches, rows = scene(share, names)
            for kind in ("pq", "hlg"):
                for hdr10 in (False, True):
                    src = os.path.join(work, f"{group}_{share}_{kind}_{int(hdr10)}.mp4")
                    out = os.path.join(work, f"{group}_{share}_{kind}_{int(hdr10)}.sdr.mp4")
                    encode(cd, kind, hdr10, src)
                    subprocess.run([sdrify, src, out, "--preset", "HighestQuality", "--crf", "10", "--quiet", "--overwrite",
                                    *extra], check=True)
                    codes = decoded(out)
                    mean, p95, dl, kept = score(reference, codes, patches, rows)
                    summary.setdefault((group, kind), []).append(mean)
                    print(f"| {group} | {kind} | {'yes' if hdr10 else 'no'} | {share} | {mean:.2f} | {p95:.2f} | {dl:+.1f} | "
                          f"{kept:.2f} |", flush=True)
                    if sheets and not hdr10:
                        sheet = np.concatenate([np.nan_to_num(reference, nan=0.5), codes], axis=1)
                        png = (sheet * 255 + 0.5).clip(0, 255).astype(np.uint8)
                        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s",
                                        f"{2 * W}x{H}", "-i", "-", os.path.join(sheets, f"{group}_{share}_{kind}.png")],
                                       input=png.tobytes(), check=True)
    print()
    print("| set | HDR | scenes | ΔE00 mean | worst scene |")
    print("|---|---|---|---|---|")
    for (group, kind), means in summary.items():
        print(f"| {group} | {kind} | {len(means)} | {np.mean(means):.2f} | {max(means):.2f} |")


if __name__ == "__main__":
    main()
