#!/usr/bin/env python3
"""The maker's own SDR as the reference (issue 43): a gain-map photo stores the phone maker's SDR rendering of a
scene as its base image and, in its gain map, how to rebuild the HDR rendering. This rebuilds the HDR with each
maker's published formula, writes it as a 2-second PQ and HLG video, converts those with sdrify and the anchors,
and holds each SDR picture against the maker's base, pixel for pixel.

    scripts/maker_sdr.py SDRIFY SDRIFY_BENCH WORKDIR PHOTO... [--sheets DIR]

- Google Ultra HDR JPEG (JPEG_R): the gain map is the second image of the MPF index; its `hdrgm` XMP gives
  GainMapMin/Max (log2), Gamma, OffsetSDR/HDR. HDR = (SDR + OffsetSDR) * 2^(log2 boost) - OffsetHDR, the boost
  interpolated in log2 between min and max by the gain map's value^(1/Gamma) (applied at full weight).
- Apple HEIC: the auxiliary picture `urn:com:apple:photo:2020:aux:hdrgainmap` (decoded by sdrify's own HEIF reader,
  `sdrify-bench heif-planes`), the headroom from the XMP (`HDRGainMapHeadroom`). HDR = SDR * (1 + (headroom - 1) * g),
  g the gain map linearised with the inverse of the BT.709 transfer, as Apple's "Applying Apple HDR effect to your
  photos" says.
Both in linear Display P3, 1.0 = SDR white, placed at 203 cd/m2 (ITU-R BT.2408) in BT.2020 for the video.

Measured on the picture as a gamma 2.2 display shows it (both the maker's P3 base and the converters' BT.709
output), CIE L*a*b* (D65), after 2x2 averaging: CIEDE2000 mean and p95, the mean L* difference, the chroma ratio
(mean C* over the maker's), the share of near-white pixels (every channel at 250 of 255 or more), and the texture
in the maker's brightest 3 % (mean absolute L* high-pass, 9x9, over the maker's).
"""
import os
import re
import struct
import subprocess
import sys

import numpy as np

WHITE_NITS = 203.0
P3_TO_XYZ = np.array([[0.4865709, 0.2656677, 0.1982173], [0.2289746, 0.6917385, 0.0792869], [0.0, 0.0451134, 1.0439444]])
BT709_TO_XYZ = np.array([[0.4123908, 0.3575843, 0.1804808], [0.2126390, 0.7151687, 0.0721923], [0.0193308, 0.1191948, 0.9505322]])
BT2020_TO_XYZ = np.array([[0.6369580, 0.1446169, 0.1688810], [0.2627002, 0.6779981, 0.0593017], [0.0, 0.0280727, 1.0609851]])
D65 = np.array([0.9504559, 1.0, 1.0890578])


# Tuning and checking kept apart (issue 55): rules are tuned on the first set and must hold on the second, which
# they never saw. A photo not named here (given on the command line) is checked.
TUNING = {"mishaal_Ultra_HDR_Samples_Originals_05.jpg", "applephoto2uhdr_IMG_3853.HEIC"}


def photo_set(name):
    return "tuning" if name in TUNING else "checking"


def run(argv, data=None):
    return subprocess.run(argv, input=data, capture_output=True, check=True).stdout


def ffmpeg_rgb(path_or_bytes, extra=None):
    """An image decoded by FFmpeg to 16-bit R'G'B' (0..1) and its size."""
    src = ["-i", "-"] if isinstance(path_or_bytes, bytes) else ["-i", path_or_bytes]
    out = run(["ffmpeg", "-v", "error", *src, "-frames:v", "1", *(extra or []), "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"],
              path_or_bytes if isinstance(path_or_bytes, bytes) else None)
    probe = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0",
                 *(["-"] if isinstance(path_or_bytes, bytes) else [path_or_bytes])],
                path_or_bytes if isinstance(path_or_bytes, bytes) else None)
    w, h = (int(v) for v in probe.decode().strip().split(",")[:2])
    return np.frombuffer(out, "<u2").reshape(-1, 3)[: w * h].reshape(h, w, 3) / 65535.0


def srgb_eotf(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def bt709_inverse_oetf(v):
    return np.where(v < 0.081, v / 4.5, ((v + 0.099) / 1.099) ** (1 / 0.45))


def resize(a, w, h):
    """Bilinear resampling of a (H, W[, C]) array to w x h (pixel centres aligned)."""
    H, W = a.shape[:2]
    ys = np.clip((np.arange(h) + 0.5) * H / h - 0.5, 0, H - 1)
    xs = np.clip((np.arange(w) + 0.5) * W / w - 0.5, 0, W - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, H - 1), np.minimum(x0 + 1, W - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    if a.ndim == 3:
        fy, fx = fy[..., None], fx[..., None]
    top = a[y0][:, x0] * (1 - fx) + a[y0][:, x1] * fx
    bottom = a[y1][:, x0] * (1 - fx) + a[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def block_mean(a, n):
    h, w = a.shape[0] // n * n, a.shape[1] // n * n
    a = a[:h, :w]
    return a.reshape(h // n, n, w // n, n, *a.shape[2:]).mean(axis=(1, 3))


# --- reading the photos -------------------------------------------------------------------------------------------

def mpf_second_image(data, path):
    """The second image of a JPEG's MPF index (CIPA DC-007): APP2 "MPF\\0", a TIFF header, an IFD whose MPEntry
    (0xB002) lists each image's size and offset (from the TIFF header; the first image's is 0)."""
    mpf = data.find(b"MPF\x00")
    if mpf < 0:
        raise SystemExit(f"{path}: no MPF index (no gain map image)")
    tiff = mpf + 4
    endian = "<" if data[tiff:tiff + 2] == b"II" else ">"
    ifd = tiff + struct.unpack(endian + "I", data[tiff + 4:tiff + 8])[0]
    entries = struct.unpack(endian + "H", data[ifd:ifd + 2])[0]
    images = []
    for i in range(entries):
        tag, _, count, value = struct.unpack(endian + "HHII", data[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
        if tag == 0xB002:
            for k in range(count // 16):
                _, size, offset, _, _ = struct.unpack(endian + "IIIHH", data[tiff + value + 16 * k:tiff + value + 16 * k + 16])
                images.append((offset, size))
    if len(images) < 2:
        raise SystemExit(f"{path}: the MPF index lists no second image")
    offset, size = images[1]
    return data[tiff + offset:tiff + offset + size]


def base_primaries(data):
    """The base image's RGB → XYZ matrix from its ICC profile's red colorant: Display P3 or sRGB (BT.709) primaries
    (a JPEG without a profile is sRGB)."""
    i = data.find(b"ICC_PROFILE\x00")
    if i < 0:
        return BT709_TO_XYZ
    prof = data[i + 14:]
    for k in range(struct.unpack(">I", prof[128:132])[0]):
        sig, off, _ = struct.unpack(">4sII", prof[132 + 12 * k:144 + 12 * k])
        if sig == b"rXYZ":
            x = struct.unpack(">i", prof[off + 8:off + 12])[0] / 65536
            return P3_TO_XYZ if abs(x - 0.5151) < abs(x - 0.4361) else BT709_TO_XYZ
    return BT709_TO_XYZ


def apple_maker_headroom(data):
    """The headroom (linear) of an Apple gain-map JPEG from its EXIF maker note, or None: tags 33 (HDRHeadroom)
    and 48 (HDRGain) of the "Apple iOS" note (big-endian, offsets from the note's start), turned into stops by
    Apple's published piecewise formula."""
    note = data.find(b"Apple iOS\x00")
    if note < 0 or data[note + 12:note + 14] != b"MM":
        return None
    count = struct.unpack(">H", data[note + 14:note + 16])[0]
    values = {}
    for i in range(count):
        entry = note + 16 + 12 * i
        tag, kind, n, value = struct.unpack(">HHII", data[entry:entry + 12])
        if tag in (33, 48) and kind in (5, 10) and n == 1:
            num, den = struct.unpack(">ii" if kind == 10 else ">II", data[note + value:note + value + 8])
            values[tag] = num / den if den else 0.0
    if 33 not in values or 48 not in values:
        return None
    m33, m48 = values[33], values[48]
    if m33 < 1.0:
        stops = -20.0 * m48 + 1.8 if m48 <= 0.01 else -0.101 * m48 + 1.601
    else:
        stops = -70.0 * m48 + 3.0 if m48 <= 0.01 else -0.303 * m48 + 2.303
    return 2 ** max(stops, 0.0)


def apple_jpeg(path):
    """(maker's SDR R'G'B', linear HDR in P3, a description) of an Apple gain-map JPEG: the gain map is the MPF
    second image, the headroom is in the maker note; HDR as for the HEIC."""
    data = open(path, "rb").read()
    base = ffmpeg_rgb(path)
    headroom = apple_maker_headroom(data)
    gain = ffmpeg_rgb(mpf_second_image(data, path))[..., 0]
    g = bt709_inverse_oetf(resize(gain, base.shape[1], base.shape[0]))
    hdr = srgb_eotf(base) * (1 + (headroom - 1) * g)[..., None]
    return base, hdr, f"Apple gain map (maker note), headroom x{headroom:.2f}", base_primaries(data)


def ultra_hdr(path):
    """(maker's SDR R'G'B', linear HDR in P3, a description) of a Google Ultra HDR JPEG."""
    data = open(path, "rb").read()
    if b"hdrgm" not in data and apple_maker_headroom(data):
        return apple_jpeg(path)
    base = ffmpeg_rgb(path)
    gain_jpeg = mpf_second_image(data, path)
    xmp = gain_jpeg.decode("latin-1")

    def field(name, default):
        m = re.search(r'hdrgm:%s="([-0-9.eE+]+)"' % name, xmp) or re.search(r"<hdrgm:%s>([-0-9.eE+]+)<" % name, xmp)
        return float(m.group(1)) if m else default

    lo, hi = field("GainMapMin", 0.0), field("GainMapMax", None)
    gamma, off_sdr, off_hdr = field("Gamma", 1.0), field("OffsetSDR", 1 / 64), field("OffsetHDR", 1 / 64)
    if hi is None:
        raise SystemExit(f"{path}: the gain map's XMP has no hdrgm:GainMapMax")
    gain = ffmpeg_rgb(gain_jpeg)[..., 0]  # one channel, as grey
    g = resize(gain, base.shape[1], base.shape[0]) ** (1 / gamma)
    boost = np.exp2(lo * (1 - g) + hi * g)
    hdr = (srgb_eotf(base) + off_sdr) * boost[..., None] - off_hdr
    return base, np.maximum(hdr, 0), f"Ultra HDR, GainMapMax {hi:.3f} (x{2 ** hi:.2f})", base_primaries(data)


def apple_heic(path, bench):
    """(maker's SDR R'G'B', linear HDR in P3, a description) of an Apple HDR HEIC."""
    def planes(aux, out):
        argv = [bench, "heif-planes", path] + ([aux] if aux else []) + [out]
        w, h, fmt, matrix, rng = run(argv).decode().split()
        return int(w), int(h), fmt, int(matrix), rng, np.fromfile(out, np.uint8)

    work = os.environ.get("TMPDIR", "/tmp")
    w, h, fmt, matrix, rng, raw = planes(None, os.path.join(work, "maker_base.yuv"))
    if fmt != "yuv420p":
        raise SystemExit(f"{path}: the primary picture is {fmt}")
    y = raw[: w * h].reshape(h, w).astype(float)
    cw, ch = (w + 1) // 2, (h + 1) // 2
    cb = raw[w * h: w * h + cw * ch].reshape(ch, cw).repeat(2, 0).repeat(2, 1)[:h, :w].astype(float)
    cr = raw[w * h + cw * ch:].reshape(ch, cw).repeat(2, 0).repeat(2, 1)[:h, :w].astype(float)
    kr, kb = (0.2126, 0.0722) if matrix == 1 else (0.299, 0.114)
    if rng == "full":
        Y, U, V = y / 255, (cb - 128) / 255, (cr - 128) / 255
    else:
        Y, U, V = (y - 16) / 219, (cb - 128) / 224, (cr - 128) / 224
    kg = 1 - kr - kb
    r = Y + 2 * (1 - kr) * V
    b = Y + 2 * (1 - kb) * U
    g = (Y - kr * r - kb * b) / kg
    base = np.clip(np.stack([r, g, b], -1), 0, 1)
    gw, gh, _, _, _, graw = planes("urn:com:apple:photo:2020:aux:hdrgainmap", os.path.join(work, "maker_gain.raw"))
    gain = graw[: gw * gh].reshape(gh, gw) / 255.0
    m = re.search(rb"HDRGainMapHeadroom[>=\"']+([0-9.]+)", open(path, "rb").read())
    if not m:
        raise SystemExit(f"{path}: no HDRGainMapHeadroom in its XMP")
    headroom = float(m.group(1))
    g = bt709_inverse_oetf(resize(gain, w, h))
    hdr = srgb_eotf(base) * (1 + (headroom - 1) * g)[..., None]
    return base, hdr, f"Apple gain map, headroom x{headroom:.2f}", P3_TO_XYZ


# --- writing the HDR video ----------------------------------------------------------------------------------------

def pq_oetf(nits):
    y = np.clip(nits / 10000.0, 0, 1)
    m1, m2, c1, c2, c3 = 0.1593017578125, 78.84375, 0.8359375, 18.8515625, 18.6875
    return ((c1 + c2 * y ** m1) / (1 + c3 * y ** m1)) ** m2


def hlg_signal(nits):
    """BT.2100 HLG for a 1000 cd/m2 display (system gamma 1.2): display light back to scene light, then the OETF."""
    d = np.clip(nits / 1000.0, 0, 1)
    yd = np.maximum(d @ np.array([0.2627, 0.6780, 0.0593]), 1e-12)
    e = d * (yd ** ((1 - 1.2) / 1.2))[..., None]
    a, b, c = 0.17883277, 0.28466892, 0.55991073
    e = np.clip(e, 0, 1)
    return np.where(e <= 1 / 12, np.sqrt(3 * e), a * np.log(np.maximum(12 * e - b, 1e-12)) + c)


def write_video(hdr_base, to_xyz, kind, out):
    rgb2020 = hdr_base @ (np.linalg.inv(BT2020_TO_XYZ) @ to_xyz).T
    nits = np.maximum(rgb2020, 0) * WHITE_NITS
    signal = pq_oetf(nits) if kind == "pq" else hlg_signal(nits)
    h, w = signal.shape[:2]
    frame = (np.clip(signal, 0, 1) * 65535 + 0.5).astype("<u2").tobytes()
    trc = "smpte2084" if kind == "pq" else "arib-std-b67"
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", f"{w}x{h}", "-framerate", "30", "-i", "-",
         "-vf", "loop=loop=59:size=1,scale=out_color_matrix=bt2020:out_range=tv,format=yuv420p10le",
         "-c:v", "libx265", "-preset", "fast", "-crf", "8", "-x265-params",
         f"log-level=error:colorprim=bt2020:transfer={trc}:colormatrix=bt2020nc:range=limited",
         "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv", "-tag:v", "hvc1", out],
        input=frame, check=True)


# --- measuring ------------------------------------------------------------------------------------------------------

def lab(rgb_linear, to_xyz):
    xyz = rgb_linear @ to_xyz.T / D65
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def ciede2000(p, q):
    L1, a1, b1 = p[..., 0], p[..., 1], p[..., 2]
    L2, a2, b2 = q[..., 0], q[..., 1], q[..., 2]
    C1, C2 = np.hypot(a1, b1), np.hypot(a2, b2)
    Cb7 = ((C1 + C2) / 2) ** 7
    G = 0.5 * (1 - np.sqrt(Cb7 / (Cb7 + 25.0 ** 7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(C1p * C2p == 0, 0, dh)
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dh / 2))
    Lbp, Cbp = (L1 + L2) / 2, (C1p + C2p) / 2
    hs = h1p + h2p
    hbp = np.where(C1p * C2p == 0, hs, np.where(np.abs(h1p - h2p) <= 180, hs / 2, np.where(hs < 360, (hs + 360) / 2, (hs - 360) / 2)))
    T = (1 - 0.17 * np.cos(np.radians(hbp - 30)) + 0.24 * np.cos(np.radians(2 * hbp)) + 0.32 * np.cos(np.radians(3 * hbp + 6))
         - 0.20 * np.cos(np.radians(4 * hbp - 63)))
    dT = 30 * np.exp(-(((hbp - 275) / 25) ** 2))
    RC = 2 * np.sqrt(Cbp ** 7 / (Cbp ** 7 + 25.0 ** 7))
    SL = 1 + 0.015 * (Lbp - 50) ** 2 / np.sqrt(20 + (Lbp - 50) ** 2)
    SC, SH = 1 + 0.045 * Cbp, 1 + 0.015 * Cbp * T
    RT = -np.sin(np.radians(2 * dT)) * RC
    l, c, hh = dLp / SL, dCp / SC, dHp / SH
    return np.sqrt(l * l + c * c + hh * hh + RT * c * hh)


def box(a, n=9):
    """Mean over n x n neighbourhoods (edges clamped), by summed-area table."""
    r = n // 2
    p = np.pad(a, r, mode="edge")
    s = np.pad(p.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    h, w = a.shape
    return (s[n:n + h, n:n + w] - s[:h, n:n + w] - s[n:n + h, :w] + s[:h, :w]) / (n * n)


def decoded_frame(path, w, h):
    """The middle picture of a converted video as 16-bit R'G'B' (its own colour tags read)."""
    out = run(["ffmpeg", "-v", "error", "-i", path, "-vf", "select=eq(n\\,30),scale=in_color_matrix=bt709:in_range=tv:out_range=pc", "-frames:v", "1",
               "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"])
    return np.frombuffer(out, "<u2").reshape(h, w, 3) / 65535.0


def measure(maker_codes, to_xyz, out_codes):
    """The maker's base (R'G'B' in its own primaries) against a converter's output (BT.709 R'G'B'), both seen on a
    gamma 2.2 display."""
    ref = lab(block_mean(maker_codes ** 2.2, 2), to_xyz)
    got = lab(block_mean(out_codes ** 2.2, 2), BT709_TO_XYZ)
    de = ciede2000(ref, got)
    chroma = np.hypot(got[..., 1], got[..., 2]).mean() / max(np.hypot(ref[..., 1], ref[..., 2]).mean(), 1e-9)
    near_white = (out_codes.min(axis=-1) >= 250 / 255).mean() * 100
    bright = ref[..., 0] >= np.percentile(ref[..., 0], 97)
    texture_ref = np.abs(ref[..., 0] - box(ref[..., 0]))[bright].mean()
    texture_got = np.abs(got[..., 0] - box(got[..., 0]))[bright].mean()
    return {"mean": de.mean(), "p95": np.percentile(de, 95), "dL": (got[..., 0] - ref[..., 0]).mean(), "chroma": chroma,
            "white": near_white, "texture": texture_got / max(texture_ref, 1e-9)}


def main():
    argv = sys.argv[1:]
    sheets = None
    if "--sheets" in argv:
        i = argv.index("--sheets")
        sheets = argv[i + 1]
        del argv[i:i + 2]
        os.makedirs(sheets, exist_ok=True)
    sdrify, bench, work, photos = argv[0], argv[1], argv[2], argv[3:]
    os.makedirs(work, exist_ok=True)
    converters = [
        ("**sdrify**", lambda i, o: [sdrify, i, o, "--preset", "HighestQuality", "--crf", "10", "--quiet", "--overwrite"]),
        ("ffmpeg zscale + hable", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-vf",
                                                "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
                                                "zscale=t=bt709:m=bt709:r=tv,format=yuv420p", "-c:v", "libx264", "-crf", "10", o]),
        ("libplacebo (defaults, lavapipe)", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-init_hw_device", "vulkan=vk", "-filter_hw_device",
                                                          "vk", "-i", i, "-vf",
                                                          "hwupload,libplacebo=colorspace=bt709:color_primaries=bt709:color_trc=bt709:"
                                                          "range=tv:format=yuv420p,hwdownload,format=yuv420p", "-c:v", "libx264", "-crf", "10", o]),
        ("clipped at SDR white", lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-vf",
                                               "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=clip,"
                                               "zscale=t=bt709:m=bt709:r=tv,format=yuv420p", "-c:v", "libx264", "-crf", "10", o]),
    ]
    if os.environ.get("MAKER_ONLY_SDRIFY"):
        converters = converters[:1]
    print("| photo | set | HDR | converter | ΔE00 mean | ΔE00 p95 | ΔL* | chroma / maker's | near white % (maker's) | texture in brightest 3 % / maker's |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {}
    for photo in photos:
        name = os.path.basename(photo)
        base, hdr, what, to_xyz = apple_heic(photo, bench) if photo.lower().endswith((".heic", ".heif")) else ultra_hdr(photo)
        # Measured at about 2000 pixels across: whole blocks of the full picture averaged (even sizes for 4:2:0).
        n = max(1, round(base.shape[1] / 2000))
        base, hdr = block_mean(base, n), block_mean(hdr, n)
        h, w = base.shape[0] // 4 * 4, base.shape[1] // 4 * 4
        base, hdr = base[:h, :w], hdr[:h, :w]
        maker_white = (base.min(axis=-1) >= 250 / 255).mean() * 100
        print(f"<!-- {name}: {what}; {w}x{h}; HDR peak {hdr.max() * WHITE_NITS:.0f} cd/m2 -->", flush=True)
        for kind in ("pq", "hlg"):
            video = os.path.join(work, f"{name}.{kind}.mp4")
            write_video(hdr, to_xyz, kind, video)
            shown = []
            for label, command in converters:
                out = os.path.join(work, f"{name}.{kind}.{len(shown)}.mp4")
                try:
                    subprocess.run(command(video, out), check=True, capture_output=True)
                except subprocess.CalledProcessError as e:
                    print(f"| {name} | {photo_set(name)} | {kind} | {label} | failed: {e.stderr.decode(errors='replace').strip()[:80]} | | | | | |")
                    continue
                codes = decoded_frame(out, w, h)
                m = measure(base, to_xyz, codes)
                totals.setdefault((photo_set(name), label, kind), []).append(m)
                print(f"| {name} | {photo_set(name)} | {kind} | {label} | {m['mean']:.2f} | {m['p95']:.2f} | {m['dL']:+.1f} | {m['chroma']:.2f} | "
                      f"{m['white']:.2f} ({maker_white:.2f}) | {m['texture']:.2f} |", flush=True)
                shown.append((label, codes))
            if sheets:
                # The maker's P3 picture brought into BT.709 for the sheet, as the converters' outputs are.
                p3_in_709 = np.clip(srgb_eotf(base) @ (np.linalg.inv(BT709_TO_XYZ) @ to_xyz).T, 0, 1)
                tiles = [np.where(p3_in_709 <= 0.0031308, 12.92 * p3_in_709, 1.055 * p3_in_709 ** (1 / 2.4) - 0.055)]
                tiles += [c for _, c in shown]
                small = [resize(t, 640, round(640 * h / w)) for t in tiles]
                sheet = (np.concatenate(small, axis=1) * 255 + 0.5).clip(0, 255).astype(np.uint8)
                path = os.path.join(sheets, f"{name}.{kind}.png")
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s",
                                f"{sheet.shape[1]}x{sheet.shape[0]}", "-i", "-", path], input=sheet.tobytes(), check=True)
    print()
    print("| set | converter | HDR | photos | ΔE00 mean | ΔE00 p95 | chroma / maker's | worst ΔL* | worst texture / maker's |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (group, label, kind), ms in sorted(totals.items(), key=lambda t: (t[0][0] != "tuning", t[0][2])):
        worst_dl = max((m["dL"] for m in ms), key=abs)
        print(f"| {group} | {label} | {kind} | {len(ms)} | {np.mean([m['mean'] for m in ms]):.2f} | {np.mean([m['p95'] for m in ms]):.2f} | "
              f"{np.mean([m['chroma'] for m in ms]):.2f} | {worst_dl:+.1f} | {min(m['texture'] for m in ms):.2f} |")


if __name__ == "__main__":
    main()
