#!/usr/bin/env python3
"""Measures how sdrify renders HDR scenes exposed brighter than BT.2408 (issue 32): SDR photographs and a chart
(six greys, six colours) lifted to PQ and HLG with their white placed at 203, 400, 600 and 1000 cd/m², plain and with
small speculars and a light source added, converted by sdrify, and compared with the photo itself relative to
its own white (so one exposure factor is free): per placement the greys' L* error, the chart's mean ΔE00, the
exposure sdrify chose (its --json) and the smallest step between neighbouring greys. The lifting is the one of
make-roundtrip-vectors.py (BT.1886 display light, BT.709 → BT.2020, the PQ inverse EOTF or HLG's inverse OOTF at
1000 cd/m²), with the white where a camera in bright light puts it instead of at 203.

usage: measure-exposure.py SDRIFY [WORKDIR]   (prints a Markdown table)
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("roundtrip", os.path.join(HERE, "make-roundtrip-vectors.py"))
roundtrip = importlib.util.module_from_spec(spec)
spec.loader.exec_module(roundtrip)

W, H = 768, 432
# The chart: 8-bit sRGB-coded values of a colour checker's neutral row (white … black) and six of its colours.
GREYS = [243, 200, 160, 122, 85, 52]
COLOURS = [(115, 82, 68), (194, 150, 130), (98, 122, 157), (87, 108, 67), (133, 128, 177), (103, 189, 170)]
CELL_W, CELL_H = 96, 64  # two columns of six cells right of the photos: greys left, colours right
PLACEMENTS = [203, 400, 600, 1000]


def chart_cells():
    cells = [("grey", i, 576, i * CELL_H, (g, g, g)) for i, g in enumerate(GREYS)]
    return cells + [("colour", i, 672, i * CELL_H, c) for i, c in enumerate(COLOURS)]


def scene():
    sdr = np.full((H, W, 3), 128, np.uint8)
    for i, name in enumerate(roundtrip.PHOTOS):
        x, y = (i % 2) * 288, (i // 2) * 192
        sdr[y:y + 192, x:x + 288] = roundtrip.read_rgb(os.path.join(HERE, "..", "testvectors", "photos", name + ".png"), 288, 192)
    for _, _, x, y, rgb in chart_cells():
        sdr[y:y + CELL_H, x:x + CELL_W] = rgb
    return sdr


def lifted(sdr, white, kind, highlights):
    """Display light (BT.2020 cd/m²) with the SDR white at `white`, then the transfer's signal."""
    cd = (np.power(sdr.astype(np.float64) / 255, 2.4) * white) @ roundtrip.M709_TO_2020.T
    if highlights:  # speculars (glints on the photos) and a light source (a lamp in the bottom row)
        top = 1000.0 if kind == "hlg" else 4000.0
        for x, y in [(60, 40), (350, 90), (150, 250), (470, 300), (520, 60)]:
            cd[y:y + 4, x:x + 4] = top
        cd[396:428, 20:60] = 1000.0 if kind == "hlg" else 10000.0
    return roundtrip.pq_encode(cd) if kind == "pq" else roundtrip.hlg_encode(cd)


def encode(signal, kind, path):
    trc = "smpte2084" if kind == "pq" else "arib-std-b67"
    planes = np.ascontiguousarray(signal.astype(np.float32).transpose(2, 0, 1)[[1, 2, 0]])
    zscale = f"zscale=min=gbr:m=2020_ncl:rin=full:r=limited:tin={trc}:t={trc}:pin=2020:p=2020:chromal=left,format=yuv420p10le"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gbrpf32le", "-s", f"{W}x{H}", "-r", "24",
                    "-i", "-", "-frames:v", "3", "-vf", zscale, "-c:v", "libx265",
                    "-x265-params", "lossless=1:log-level=error:pools=1:frame-threads=1", "-tag:v", "hvc1",
                    "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv", path],
                   input=planes.tobytes() * 3, check=True)


def linear709(rgb8):
    return np.power(np.asarray(rgb8, np.float64) / 255, 2.4)  # BT.1886 display of SDR code values


def lab(rgb_linear, white_y):
    """CIELAB of BT.709 linear RGB, relative to a D65 white of luminance `white_y`."""
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = (rgb_linear @ m.T) / white_y
    n = np.array([0.95047, 1.0, 1.08883])
    t = xyz / n
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def ciede2000(a, b):
    """ΔE00 between two CIELAB colours (CIE 142-2001)."""
    L1, a1, b1 = a
    L2, a2, b2 = b
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cm = (C1 + C2) / 2
    G = 0.5 * (1 - np.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p, h2p = np.degrees(np.arctan2(b1, a1p)) % 360, np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    if C1p * C2p == 0:
        dh = 0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lm, Cmp = (L1 + L2) / 2, (C1p + C2p) / 2
    hm = h1p + h2p
    if C1p * C2p != 0:
        hm = (h1p + h2p + 360) / 2 if abs(h1p - h2p) > 180 else (h1p + h2p) / 2
    T = 1 - 0.17 * np.cos(np.radians(hm - 30)) + 0.24 * np.cos(np.radians(2 * hm)) + 0.32 * np.cos(np.radians(3 * hm + 6)) \
        - 0.20 * np.cos(np.radians(4 * hm - 63))
    dtheta = 30 * np.exp(-(((hm - 275) / 25) ** 2))
    Rc = 2 * np.sqrt(Cmp ** 7 / (Cmp ** 7 + 25 ** 7))
    Sl = 1 + 0.015 * (Lm - 50) ** 2 / np.sqrt(20 + (Lm - 50) ** 2)
    Sc, Sh = 1 + 0.045 * Cmp, 1 + 0.015 * Cmp * T
    Rt = -np.sin(np.radians(2 * dtheta)) * Rc
    return float(np.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh)))


def measure(sdrify, work, kind, white, highlights, sdr):
    source, out = os.path.join(work, "in.mp4"), os.path.join(work, "out.mp4")
    encode(lifted(sdr, white, kind, highlights), kind, source)
    r = subprocess.run([sdrify, source, out, "--overwrite", "--json", "--preset", "1920x1080"],
                       capture_output=True, text=True, check=True)
    report = json.loads(r.stdout)
    picture = np.frombuffer(subprocess.run(["ffmpeg", "-v", "error", "-i", out, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                                           check=True, capture_output=True).stdout, np.uint8).reshape(H, W, 3)
    cells = chart_cells()

    def mean(img, x, y):  # the cell's middle, away from chroma edges
        return img[y + 16:y + CELL_H - 16, x + 16:x + CELL_W - 16].reshape(-1, 3).astype(np.float64).mean(0)

    source_white = linear709([GREYS[0]] * 3)[1]
    out_cells = [linear709(mean(picture, x, y)) for _, _, x, y, _ in cells]
    out_white = out_cells[0][1]
    grey_errors, grey_lstar, deltas = [], [], []
    for (what, i, _, _, rgb), got in zip(cells, out_cells):
        want_lab = lab(linear709(rgb), source_white)
        got_lab = lab(got, out_white)
        deltas.append(ciede2000(want_lab, got_lab))
        if what == "grey":
            grey_errors.append(got_lab[0] - want_lab[0])
            grey_lstar.append(got_lab[0])
    steps = np.diff(grey_lstar[::-1])
    tm = report.get("tone_mapping", {})
    return dict(kind=kind, white=white, highlights=highlights, grey_errors=grey_errors, max_grey_error=max(map(abs, grey_errors)),
                mean_de=float(np.mean(deltas)), exposure=tm.get("exposure_stops"), key=tm.get("key_cd_m2"), peak=tm.get("peak_cd_m2"),
                smallest_step=float(steps.min()))


def main():
    sdrify = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        work = sys.argv[2] if len(sys.argv) > 2 else tmp
        sdr = scene()
        print("| transfer | white (cd/m²) | highlights | grey L* error per patch (white … black) | max | mean ΔE00 | "
              "exposure (stops) | key / peak (cd/m²) | smallest grey step (L*) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for kind in ("hlg", "pq"):
            for white in PLACEMENTS:
                for highlights in (False, True):
                    m = measure(sdrify, work, kind, white, highlights, sdr)
                    errors = " ".join(f"{e:+.1f}" for e in m["grey_errors"])
                    print(f"| {kind.upper()} | {white} | {'yes' if highlights else 'no'} | {errors} | {m['max_grey_error']:.1f} | "
                          f"{m['mean_de']:.1f} | {m['exposure']} | {m['key']} / {m['peak']} | {m['smallest_step']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
