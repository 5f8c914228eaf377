#!/usr/bin/env python3
"""One picture to look at for a real HDR clip (scripts/compare-realfootage): the source as an HDR reference display
shows it, sdrify's output and libplacebo's side by side, with the tone curves drawn beside them.

usage: realfootage_sheet.py SOURCE SDRIFY.mp4 SDRIFY.json PLACEBO.mp4|- FRAME OUT.png

- The source: its display light (PQ, or HLG through the BT.2100 OOTF on a 1000 cd/m² reference display) scaled
  linearly so that 1000 cd/m² is the PNG's white: no tone curve, every ratio as the reference display shows it.
  (A 16-bit PQ BT.2020 PNG with a cICP chunk, for HDR-capable viewers, is written beside OUT as OUT-hdr.png.)
- sdrify's and libplacebo's outputs as they are, seen on the SDR display sdrify renders for (gamma 2.2).
- The curves: for each output, the median output luminance (relative to SDR white) of the pixels at each source
  luminance, measured on this frame, so both pipelines are drawn the same way; sdrify's scene white and peak
  (its --json, the scene this frame belongs to) are marked.
"""
import json
import subprocess
import struct
import sys
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import realfootage_measures as rm  # noqa: E402

M2020_TO_709 = rm.M2020_TO_709


def source_light(path, w, h, frame):
    """BT.2020 display light (cd/m²), planes first, at the output's size."""
    _, _, transfer = rm.probe(path)
    y, u, v = rm.yuv(path, w, h, frame, "yuv420p10le", f"scale={w}:{h}:flags=bicubic")
    signal = rm.to_rgb((y - 64) / 876, (u - 512) / 896, (v - 512) / 896, 0.2627, 0.0593)
    return rm.hlg_display(signal) if transfer == "arib-std-b67" else rm.pq_eotf(signal)


def output_picture(path, w, h, frame):
    """(8-bit sRGB-ish picture for showing, linear BT.709 luminance relative to SDR white)."""
    y, u, v = rm.yuv(path, w, h, frame, "yuv420p")
    signal = rm.to_rgb((y - 16) / 219, (u - 128) / 224, (v - 128) / 224, 0.2126, 0.0722)
    lum = np.tensordot([0.2126, 0.7152, 0.0722], np.power(np.clip(signal, 0, 1), rm.SDR_DISPLAY_GAMMA), 1)
    return (signal.transpose(1, 2, 0) * 255).round().astype(np.uint8), lum


def reference_view(light):
    """The reference display's light, 1000 cd/m² = white, in BT.709 coded for the SDR display (gamma 2.2)."""
    rgb709 = np.clip(np.tensordot(M2020_TO_709, light / 1000.0, 1), 0, 1)
    return (np.power(rgb709, 1 / rm.SDR_DISPLAY_GAMMA).transpose(1, 2, 0) * 255).round().astype(np.uint8)


def write_hdr_png(light, path):
    """16-bit PNG of the display light as PQ BT.2020, with cICP (9, 16, 0, 1) so HDR viewers show it as HDR."""
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    yp = np.power(np.clip(light, 0, 10000) / 10000, m1)
    pq = np.power((c1 + c2 * yp) / (1 + c3 * yp), m2)
    pixels = (pq.transpose(1, 2, 0) * 65535).round().astype(">u2")
    h, w = pixels.shape[:2]
    raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0)))
        f.write(chunk(b"cICP", bytes([9, 16, 0, 1])))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def curve(source_lum, out_lum):
    """Median output per 1/8-stop bin of source luminance (bins with at least 40 pixels)."""
    stops = np.log2(np.maximum(source_lum, 1e-4))
    edges = np.arange(np.floor(stops.min()), np.ceil(stops.max()) + 0.125, 0.125)
    xs, ys = [], []
    index = np.digitize(stops.ravel(), edges)
    flat = out_lum.ravel()
    for i in np.unique(index):
        sel = flat[index == i]
        if sel.size >= 40:
            xs.append(2 ** ((edges[i - 1] + 0.0625) if i > 0 else edges[0]))
            ys.append(np.median(sel))
    return np.array(xs), np.array(ys)


def main():
    source, sdrify_out, sdrify_json, placebo_out, frame, png = sys.argv[1:7]
    frame = int(frame)
    w, h, _ = rm.probe(sdrify_out)
    light = source_light(source, w, h, frame)
    lum = np.tensordot([0.2627, 0.6780, 0.0593], light, 1)
    tiles = [("source on a 1000 cd/m² reference\n(linear, 1000 cd/m² = white)", reference_view(light), None)]
    shown, sdr_lum = output_picture(sdrify_out, w, h, frame)
    tiles.append(("sdrify (--tonemap auto)", shown, sdr_lum))
    if placebo_out != "-":
        shown, placebo_lum = output_picture(placebo_out, w, h, frame)
        tiles.append(("libplacebo (defaults)", shown, placebo_lum))
    write_hdr_png(light, png[:-4] + "-hdr.png")

    with open(sdrify_json) as f:
        tone = json.load(f).get("tone_mapping") or {}
    scenes = tone.get("by_scene") or []
    rate = None
    scene = scenes[0] if scenes else None
    for s in scenes:  # the scene this frame falls in: the last one starting at or before it
        start = s.get("start")
        if start is not None and rate is None:
            out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate",
                                     "-of", "csv=p=0", sdrify_out], capture_output=True, text=True).stdout.strip()
            num, _, den = out.partition("/")
            rate = float(num) / float(den or 1) if float(den or 1) else 30.0
        if start is not None and rate and start <= frame / rate + 1e-6:
            scene = s

    aspect = w / h
    fig = plt.figure(figsize=(3.2 * aspect * len(tiles) + 4.5, 3.6), dpi=110)
    grid = fig.add_gridspec(1, len(tiles) + 1, width_ratios=[aspect] * len(tiles) + [1.4])
    for i, (title, picture, _) in enumerate(tiles):
        ax = fig.add_subplot(grid[0, i])
        ax.imshow(picture, interpolation="bilinear")
        ax.set_title(title, fontsize=8)
        ax.axis("off")
    ax = fig.add_subplot(grid[0, len(tiles)])
    for (title, _, out_lum), colour in zip(tiles[1:], ["tab:blue", "tab:orange"]):
        xs, ys = curve(lum, out_lum)
        ax.plot(xs, ys, color=colour, label=title.split(" (")[0])
    if scene:
        for key, style, label in [("white_cd_m2", "--", "scene white"), ("peak_cd_m2", ":", "scene peak")]:
            if scene.get(key):
                ax.axvline(scene[key], color="grey", linestyle=style, linewidth=1, label=f"{label} {scene[key]:.0f}")
        ax.set_title(f"tone curves on this frame\n(exposure {scene.get('exposure_stops', 0):+.2f} stops)", fontsize=8)
    ax.axvline(203, color="black", linewidth=0.5, alpha=0.4)
    ax.set_xscale("log")
    ax.set_xlim(left=0.1)
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 1.1)
    ax.set_xlabel("source luminance (cd/m²)", fontsize=7)
    ax.set_ylabel("output luminance (SDR white = 1)", fontsize=7)
    ax.tick_params(labelsize=6)
    ax.grid(True, which="both", alpha=0.2)
    ax.legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(png)


if __name__ == "__main__":
    main()
