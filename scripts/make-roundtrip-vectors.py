#!/usr/bin/env python3
"""Builds the tone-mapping round-trip vectors (ITU-R BT.2408 display-referred SDR-in-HDR).

An SDR picture (four photographs) is lifted into HDR as BT.2408 describes, with the light of the SDR display sdrify
renders for (gamma 2.2, SDRDisplay in Sources/SDRifyValues/Color/Transfer.swift; BT.2408 itself assumes BT.1886's
2.4) and SDR 100 % = 203 cd/m², BT.709 → BT.2020 primaries, then the PQ inverse EOTF, or for HLG the
inverse OOTF at 1000 cd/m² (gamma 1.2 on luminance) and the HLG OETF. An HDR-only area is added: a neutral
ramp from 0 to 1000 cd/m² (even steps in PQ) and saturated BT.2020 patches at 600 cd/m² (in the HLG file,
whose 1000 cd/m² display cannot show a saturated red that bright, each patch is scaled down until its largest
channel is 900 cd/m²; the layout records each file's values). zimg (ffmpeg's
zscale) turns the float R'G'B' into 10-bit limited-range 4:2:0 BT.2020 Y'CbCr; x265 encodes it losslessly.

Writes testvectors/roundtrip_{pq,hlg}.mp4, roundtrip_reference.png (the SDR picture) and roundtrip_layout.json.
"""
import json
import os
import subprocess
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "testvectors")
W, H = 768, 432
REF_WHITE = 203.0
SDR_DISPLAY_GAMMA = 2.2  # SDRDisplay.gamma
PHOTOS = ["astronaut", "coffee", "chelsea", "rocket"]  # 288x192 each, a 2x2 grid at the top left
RAMP = dict(x=0, y=384, w=768, h=48, max_cd=1000.0)
# Patch colours as BT.2020 linear RGB directions, scaled to the luminance below.
PATCH_CD = 600.0
PATCHES = [("red", (1, 0.05, 0.05)), ("green", (0.05, 1, 0.05)), ("blue", (0.02, 0.05, 1)),
           ("cyan", (0.05, 1, 1)), ("magenta", (1, 0.05, 1)), ("yellow", (1, 1, 0.05))]

M709_TO_2020 = np.array([[0.6274039, 0.3292830, 0.0433131],
                         [0.0690973, 0.9195404, 0.0113623],
                         [0.0163914, 0.0880133, 0.8955953]])
K2020 = np.array([0.2627, 0.6780, 0.0593])


def pq_encode(cd):
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    y = np.power(np.clip(cd, 0, 10000) / 10000, m1)
    return np.power((c1 + c2 * y) / (1 + c3 * y), m2)


def hlg_encode(cd_rgb):
    """Display light (cd/m², BT.2020) → HLG signal: inverse OOTF at 1000 cd/m² (gamma 1.2), then the OETF."""
    gamma = 1.2
    fd = cd_rgb / 1000.0
    yd = np.maximum(fd @ K2020, 1e-12)[..., None]
    es = fd * np.power(yd, (1 - gamma) / gamma)
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    es = np.clip(es, 0, 1)
    return np.where(es <= 1 / 12, np.sqrt(3 * es), a * np.log(np.maximum(12 * es - b, 1e-12)) + c)


def read_rgb(path, w, h):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def main():
    sdr = np.full((H, W, 3), 128, np.uint8)  # reference picture; grey where the area is HDR-only
    for i, name in enumerate(PHOTOS):
        x, y = (i % 2) * 288, (i // 2) * 192
        sdr[y:y + 192, x:x + 288] = read_rgb(os.path.join(OUT, "photos", name + ".png"), 288, 192)

    # Display light of the SDR picture in BT.2020, cd/m².
    display709 = np.power(sdr.astype(np.float64) / 255, SDR_DISPLAY_GAMMA) * REF_WHITE
    cd = display709 @ M709_TO_2020.T

    # HDR-only area: patches in the right column (2 x 3 cells of 96x128), the ramp along the bottom.
    layout = {"width": W, "height": H, "reference_white": REF_WHITE,
              "photos": [dict(name=n, x=(i % 2) * 288, y=(i // 2) * 192, w=288, h=192) for i, n in enumerate(PHOTOS)],
              "patches": [], "ramp": dict(RAMP, pq_start=0.0, pq_end=float(pq_encode(RAMP["max_cd"])))}
    patch_values = {"pq": [], "hlg": []}
    for i, (name, direction) in enumerate(PATCHES):
        d = np.array(direction, np.float64)
        rgb = d * PATCH_CD / float(d @ K2020)
        assert (np.linalg.inv(M709_TO_2020) @ rgb).min() < 0, f"{name} must lie outside BT.709"
        patch_values["pq"].append(rgb)
        patch_values["hlg"].append(rgb * min(1.0, 900.0 / rgb.max()))
        layout["patches"].append(dict(name=name, x=576 + (i % 2) * 96, y=(i // 2) * 128, w=96, h=128,
                                      bt2020_cd={k: list(map(float, v[i])) for k, v in patch_values.items()}))
    ramp_pq = np.linspace(0, layout["ramp"]["pq_end"], RAMP["w"])
    m1, m2 = 2610 / 16384, 2523 / 4096 * 128
    c1, c2, c3 = 3424 / 4096, 2413 / 4096 * 32, 2392 / 4096 * 32
    p = np.power(ramp_pq, 1 / m2)
    ramp_cd = 10000 * np.power(np.maximum(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    cd[RAMP["y"]:RAMP["y"] + RAMP["h"], :, :] = ramp_cd[None, :, None]
    sdr[RAMP["y"]:RAMP["y"] + RAMP["h"], :] = 128
    sdr[0:384, 576:768] = 128

    def with_patches(kind):
        out = cd.copy()
        for patch, rgb in zip(layout["patches"], patch_values[kind]):
            out[patch["y"]:patch["y"] + patch["h"], patch["x"]:patch["x"] + patch["w"]] = rgb
        return out

    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-i", "-",
                    "-frames:v", "1", os.path.join(OUT, "roundtrip_reference.png")], input=sdr.tobytes(), check=True)
    with open(os.path.join(OUT, "roundtrip_layout.json"), "w") as f:
        json.dump(layout, f, indent=1)

    for kind, signal, trc in [("pq", pq_encode(with_patches("pq")), "smpte2084"),
                              ("hlg", hlg_encode(with_patches("hlg")), "arib-std-b67")]:
        planes = np.ascontiguousarray(signal.astype(np.float32).transpose(2, 0, 1)[[1, 2, 0]])  # G, B, R planes
        zscale = (f"zscale=min=gbr:m=2020_ncl:rin=full:r=limited:tin={trc}:t={trc}:pin=2020:p=2020:chromal=left,"
                  "format=yuv420p10le")
        x265 = "lossless=1:log-level=error:pools=1:frame-threads=1"
        if kind == "pq":
            x265 += ":hdr10=1:master-display=G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,50):max-cll=1000,400"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "gbrpf32le", "-s", f"{W}x{H}",
                        "-r", "24", "-i", "-", "-frames:v", "3", "-vf", zscale,
                        "-c:v", "libx265", "-x265-params", x265, "-tag:v", "hvc1", "-fflags", "+bitexact",
                        "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv",
                        os.path.join(OUT, f"roundtrip_{kind}.mp4")], input=planes.tobytes() * 3, check=True)


if __name__ == "__main__":
    main()
