#!/usr/bin/env python3
"""Measures what a tone mapper made of a real HDR clip, against the clip itself (scripts/compare-realfootage).

usage: realfootage_measures.py SOURCE OUTPUT.mp4 [FRAME]

Both are decoded by the ffmpeg CLI (the source turned upright by its display matrix and scaled to the output's
size as 10-bit Y'CbCr); the source's light is computed from its PQ or HLG signal (HLG through the BT.2100 OOTF at
1000 cd/m²), the output's from BT.709 Y'CbCr and the SDR display sdrify renders for
(gamma 2.2, SDRDisplay in Sources/SDRifyValues/Color/Transfer.swift). Prints one line of measures:
  texture    highlight texture kept: the mean 8×8-block (4×4 where too few fit) standard deviation of luma in the
             source's brightest 5 % (blocks three-quarters inside it), output over source, both as signal 0-1
             (1.0 = all kept)
  at250      fraction of those brightest pixels whose largest R'G'B' output code (full range) is 250 or more
  clipped    fraction of those pixels already at the source's top signal (≥ 98 %), which no mapping can keep
  steps      grey separation: for the source's light deciles 50…90 %, how many stops apart neighbouring deciles
             come out for each stop they were apart (the smallest ratio; 1.0 = relative tones kept)
  sat        saturation kept: mean (max − min)/max of linear BT.709 RGB, output over source (the source brought
             into BT.709 at constant luminance), over the brighter half of pixels that are visibly coloured
"""
import subprocess
import sys
import numpy as np


# The SDR display outputs are seen on (SDRDisplay in Sources/SDRifyValues/Color/Transfer.swift).
SDR_DISPLAY_GAMMA = 2.2

def probe(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width,height,color_transfer", "-of", "csv=p=0", path],
                         capture_output=True, text=True, check=True).stdout.strip().split(",")
    return int(out[0]), int(out[1]), out[2]


def yuv(path, w, h, frame, fmt, vf=None):
    filters = f"select=eq(n\\,{frame})" + (f",{vf}" if vf else "")
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-vf", filters, "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", fmt, "-"], capture_output=True, check=True).stdout
    dt = np.uint16 if fmt.endswith("10le") else np.uint8
    a = np.frombuffer(raw, dt).astype(np.float64)
    y = a[:w * h].reshape(h, w)
    u = a[w * h:w * h * 5 // 4].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1)
    v = a[w * h * 5 // 4:w * h * 3 // 2].reshape(h // 2, w // 2).repeat(2, 0).repeat(2, 1)
    return y, u, v


def to_rgb(y, cb, cr, kr, kb):
    kg = 1 - kr - kb
    r = y + 2 * (1 - kr) * cr
    b = y + 2 * (1 - kb) * cb
    g = (y - kr * r - kb * b) / kg
    return np.clip(np.stack([r, g, b]), 0, 1)


def pq_eotf(e):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    p = np.power(e, 1 / m2)
    return 10000 * np.power(np.maximum(p - c1, 0) / (c2 - c3 * p), 1 / m1)


def hlg_display(rgb):
    a, b = 0.17883277, 1 - 4 * 0.17883277
    c = 0.5 - a * np.log(4 * a)
    e = np.where(rgb <= 0.5, rgb * rgb / 3, (np.exp((rgb - c) / a) + b) / 12)
    ys = np.tensordot([0.2627, 0.6780, 0.0593], e, 1)
    return 1000 * e * np.power(np.maximum(ys, 1e-9), 0.2)


M2020_TO_709 = np.array([[1.6605, -0.5876, -0.0728], [-0.1246, 1.1329, -0.0083], [-0.0182, -0.1006, 1.1187]])


def block_std(a, mask, n):
    h, w = (a.shape[0] // n) * n, (a.shape[1] // n) * n
    blocks = a[:h, :w].reshape(h // n, n, w // n, n)
    inside = mask[:h, :w].reshape(h // n, n, w // n, n).mean(axis=(1, 3)) >= 0.75
    return blocks.std(axis=(1, 3))[inside]


def block_size(mask):
    """8×8 blocks, or 4×4 where the brightest region is too scattered for 20 blocks of 8×8."""
    return 8 if block_std(np.zeros(mask.shape), mask, 8).size >= 20 else 4


def saturation(rgb):
    mx, mn = rgb.max(axis=0), np.maximum(rgb.min(axis=0), 0)
    return (mx - mn) / np.maximum(mx, 1e-9)


def main():
    src, out = sys.argv[1], sys.argv[2]
    frame = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    w, h, _ = probe(out)
    _, _, transfer = probe(src)
    sy, su, sv = yuv(src, w, h, frame, "yuv420p10le", f"scale={w}:{h}:flags=bicubic")
    oy, ou, ov = yuv(out, w, h, frame, "yuv420p")
    s_sig = to_rgb((sy - 64) / 876, (su - 512) / 896, (sv - 512) / 896, 0.2627, 0.0593)
    s_lin = hlg_display(s_sig) if transfer == "arib-std-b67" else pq_eotf(s_sig)
    s_lum = np.tensordot([0.2627, 0.6780, 0.0593], s_lin, 1)
    o_sig = to_rgb((oy - 16) / 219, (ou - 128) / 224, (ov - 128) / 224, 0.2126, 0.0722)
    o_lin = np.power(np.clip(o_sig, 0, 1), SDR_DISPLAY_GAMMA)
    o_lum = np.tensordot([0.2126, 0.7152, 0.0722], o_lin, 1)

    bright = s_lum >= np.percentile(s_lum, 95)
    s_luma, o_luma = (sy - 64) / 876, (oy - 16) / 219
    n = block_size(bright)
    src_blocks = block_std(s_luma, bright, n)
    texture = block_std(o_luma, bright, n).mean() / max(src_blocks.mean(), 1e-9) if src_blocks.size else float("nan")
    at250 = (np.round(o_sig.max(axis=0) * 255) >= 250)[bright].mean()
    clipped = (s_sig.max(axis=0) >= 0.98)[bright].mean()

    levels = np.percentile(s_lum, [50, 60, 70, 80, 90])
    outs = []
    for lo in levels:
        near = np.abs(np.log2(np.maximum(s_lum, 1e-6) / lo)) < 0.1
        outs.append(np.median(o_lum[near]) if near.any() else np.nan)
    ratios = [np.log2(outs[i + 1] / outs[i]) / np.log2(levels[i + 1] / levels[i])
              for i in range(len(levels) - 1) if levels[i + 1] > levels[i] * 1.05]
    steps = min(ratios) if ratios else float("nan")

    s709 = np.tensordot(M2020_TO_709, s_lin, 1)
    sl = np.tensordot([0.2126, 0.7152, 0.0722], s709, 1)
    low = np.minimum(s709.min(axis=0), 0)  # out of BT.709: toward grey at equal luminance until it fits
    t = np.where(low < 0, sl / np.maximum(sl - low, 1e-9), 1)
    s709 = sl + t * (s709 - sl)
    ss, so = saturation(s709), saturation(o_lin)
    coloured = (ss > 0.15) & (s_lum >= np.median(s_lum))
    sat = so[coloured].mean() / ss[coloured].mean() if coloured.any() else float("nan")
    print(f"{texture:.2f} {at250 * 100:.1f} {clipped * 100:.1f} {steps:.2f} {sat:.2f}")


if __name__ == "__main__":
    main()
