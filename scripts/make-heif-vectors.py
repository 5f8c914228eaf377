#!/usr/bin/env python3
"""Writes HEIF stills for the tests: pictures coded by x265 (HEVC) or libaom (AV1) through ffmpeg, put into the
HEIF item structure (ISO/IEC 23008-12) here, box by box, the way phones lay them out. No library writes what the
tests need (libheif 1.15 writes no grids, irot with imir, or iOS 18's auxiliary items), so this does.

usage: make-heif-vectors.py SOURCE.png OUTDIR
       make-heif-vectors.py --photo WIDTHxHEIGHT SOURCE OUTDIR/NAME.heic   (a phone-sized photo: a grid of 512x512
                                                                              tiles, as iPhones write 12 Mpx photos)
Writes into OUTDIR:
  single.heic    one HEVC picture, 8-bit 4:2:0, nclx BT.709 full range
  p3.heic        the same picture said to be in Display P3 (nclx primaries 12, sRGB transfer), as iPhone photos are
  grid.heic      a 2x2 grid of 256x256 tiles cut to 480x400, in idat (iloc v1), turned 90° anticlockwise (irot 1)
                 then mirrored top to bottom (imir mode 0, as the amended standard, iPhones and libheif read it)
  hlg.heic       10-bit HLG (nclx 9/18/9), one picture
  ios18.heic     a grid as iPhone HDR photos have it, with an auxiliary gain map (auxC hdrgainmap, auxl), an
                 ISO 21496-1 'tmap' item (dimg: primary, gain map), a thumbnail (thmb), four more auxiliary mattes,
                 and an ICC profile: the structure Debian's libheif refuses
  single.avif    one AV1 picture
The source picture is scaled to 480x400 first; each file's expected upright picture is SOURCE as the tests
derive it with ffmpeg (transpose for grid.heic).
"""
import os
import struct
import subprocess
import sys
import tempfile

photo = sys.argv[1] == "--photo"
if photo:
    size, source, target = sys.argv[2], sys.argv[3], sys.argv[4]
    W, H = (int(v) for v in size.split("x"))
else:
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    W, H = 480, 400


def run(args):
    subprocess.run(args, check=True, capture_output=True)


def coded(png, codec, extra=()):
    """(configuration box payload, sample bytes) of `png` coded as one picture: via an MP4 ffmpeg writes."""
    with tempfile.TemporaryDirectory() as work:
        mp4 = os.path.join(work, "one.mp4")
        if codec == "hevc":
            args = ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=1", "-tag:v", "hvc1"]
        else:
            args = ["-c:v", "libaom-av1", "-cpu-used", "8", "-still-picture", "1", "-crf", "8", "-b:v", "0"]
        run(["ffmpeg", "-v", "error", "-y", "-i", png, "-frames:v", "1"] + list(extra) + args + [mp4])
        data = open(mp4, "rb").read()
        name = b"hvcC" if codec == "hevc" else b"av1C"
        at = data.find(name)
        size = struct.unpack(">I", data[at - 4:at])[0]
        config = data[at + 4:at - 4 + size]
        r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=size,pos", "-of", "csv=p=0", mp4],
                           capture_output=True, text=True, check=True)
        length, pos = (int(v) for v in r.stdout.split()[0].split(","))  # ffprobe prints size, then pos
        return config, data[pos:pos + length]


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full(kind, version, flags, payload):
    return box(kind, struct.pack(">I", version << 24 | flags) + payload)


def heif(path, items, primary, refs, brand="heic", idat_items=()):
    """items: [(id, type, data, [property boxes], hidden)]; refs: [(type, from, [to])]. Data of `idat_items` goes
    into idat (iloc version 1, construction method 1), the rest into mdat."""
    properties, associations = [], []
    for item_id, _, _, props, _ in items:
        indices = []
        for p in props:
            if p not in properties:
                properties.append(p)
            indices.append(properties.index(p) + 1)
        associations.append((item_id, indices))
    ipco = box("ipco", b"".join(properties))
    ipma = full("ipma", 0, 0, struct.pack(">I", len(associations)) + b"".join(
        struct.pack(">HB", i, len(ix)) + bytes(0x80 | n for n in ix) for i, ix in associations))
    iinf = full("iinf", 0, 0, struct.pack(">H", len(items)) + b"".join(
        full("infe", 2, 1 if hidden else 0, struct.pack(">HH4s", i, 0, t.encode()) + b"\0") for i, t, _, _, hidden in items))
    iref = full("iref", 0, 0, b"".join(box(t, struct.pack(">HH", f, len(to)) + b"".join(struct.pack(">H", x) for x in to)) for t, f, to in refs))
    hdlr = full("hdlr", 0, 0, struct.pack(">I4s", 0, b"pict") + bytes(12) + b"\0")
    pitm = full("pitm", 0, 0, struct.pack(">H", primary))
    idat = b"".join(d for i, _, d, _, _ in items if i in idat_items)

    def meta(mdat_start):
        entries, at_mdat, at_idat = [], mdat_start, 0
        for i, _, d, _, _ in items:
            if i in idat_items:
                entries.append(struct.pack(">HHHHII", i, 1, 0, 1, at_idat, len(d)))
                at_idat += len(d)
            else:
                entries.append(struct.pack(">HHHHII", i, 0, 0, 1, at_mdat, len(d)))
                at_mdat += len(d)
        iloc = full("iloc", 1, 0, struct.pack(">BBH", 0x44, 0x00, len(items)) + b"".join(entries))
        return full("meta", 0, 0, hdlr + pitm + iinf + iref + box("iprp", ipco + ipma) + iloc + (box("idat", idat) if idat else b""))

    ftyp = box("ftyp", brand.encode() + struct.pack(">I", 0) + b"mif1" + brand.encode() + b"miaf")
    start = len(ftyp) + len(meta(0)) + 8
    mdat = box("mdat", b"".join(d for i, _, d, _, _ in items if i not in idat_items))
    with open(path, "wb") as f:
        f.write(ftyp + meta(start) + mdat)


def ispe(w, h):
    return full("ispe", 0, 0, struct.pack(">II", w, h))


def nclx(p, t, m, full_range):
    return box("colr", b"nclx" + struct.pack(">HHHB", p, t, m, 0x80 if full_range else 0))


def aux(urn):
    return full("auxC", 0, 0, urn.encode() + b"\0")


def phone_photo(work):
    """W×H as a grid of 512x512 HEVC tiles (the right and bottom ones cut), 8-bit full range, nclx BT.709."""
    base = os.path.join(work, "base.png")
    run(["ffmpeg", "-v", "error", "-y", "-i", source, "-vf", f"scale={W}:{H}", "-frames:v", "1", "-pix_fmt", "rgb24", base])
    rows, columns = (H + 511) // 512, (W + 511) // 512
    full_range = ["-vf", "scale=out_color_matrix=bt709:out_range=full", "-pix_fmt", "yuvj420p", "-color_range", "pc", "-colorspace", "bt709"]
    tiles = []
    for r in range(rows):
        for c in range(columns):
            tile = os.path.join(work, f"t{r}_{c}.png")
            run(["ffmpeg", "-v", "error", "-y", "-i", base, "-vf",
                 f"pad={columns * 512}:{rows * 512}:0:0:black,crop=512:512:{c * 512}:{r * 512}", tile])
            tiles.append(coded(tile, "hevc", full_range))
    items = [(1, "grid", struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, W, H), [ispe(W, H), nclx(1, 1, 1, True)], False)]
    items += [(100 + n, "hvc1", s, [box("hvcC", cfg), ispe(512, 512)], True) for n, (cfg, s) in enumerate(tiles)]
    heif(target, items, 1, [("dimg", 1, [100 + n for n in range(len(tiles))])], idat_items=(1,))


if photo:
    with tempfile.TemporaryDirectory() as work:
        phone_photo(work)
    print(f"wrote {target}")
    sys.exit(0)

def quarters(picture, name, extra):
    """`picture` padded to 512x512 and cut into 2x2 tiles of 256x256, each coded as HEVC, in row order."""
    tiles = []
    for r in range(2):
        for c in range(2):
            tile = os.path.join(work, f"{name}{r}{c}.png")
            run(["ffmpeg", "-v", "error", "-y", "-i", picture, "-vf", f"pad=512:512:0:0:black,crop=256:256:{c * 256}:{r * 256}", tile])
            tiles.append(coded(tile, "hevc", extra))
    return tiles


with tempfile.TemporaryDirectory() as work:
    base = os.path.join(work, "base.png")
    run(["ffmpeg", "-v", "error", "-y", "-i", source, "-vf", f"scale={W}:{H}", "-pix_fmt", "rgb24", base])
    full_range = ["-vf", "scale=out_color_matrix=bt709:out_range=full", "-pix_fmt", "yuvj420p", "-color_range", "pc",
                  "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]

    config, sample = coded(base, "hevc", full_range)
    heif(os.path.join(out, "single.heic"), [(1, "hvc1", sample, [box("hvcC", config), ispe(W, H), nclx(1, 1, 1, True)], False)], 1, [])
    heif(os.path.join(out, "p3.heic"), [(1, "hvc1", sample, [box("hvcC", config), ispe(W, H), nclx(12, 13, 1, True)], False)], 1, [])

    # The grid: 2x2 tiles of 256x256 from the picture padded to 512x512. Tiles are cut from the picture as it is
    # stored, which is the upright picture turned back: mirrored top to bottom, then turned 90° clockwise.
    stored = os.path.join(work, "stored.png")
    run(["ffmpeg", "-v", "error", "-y", "-i", base, "-vf", "vflip,transpose=clock", stored])  # 400x480
    tiles = quarters(stored, "stored", full_range)
    grid_desc = struct.pack(">BBBBHH", 0, 0, 1, 1, H, W)  # rows-1, columns-1, width 400, height 480 (stored)
    tile_items = [(10 + n, "hvc1", s, [box("hvcC", cfg), ispe(256, 256)], True) for n, (cfg, s) in enumerate(tiles)]
    grid_props = [ispe(H, W), nclx(1, 1, 1, True), box("irot", b"\x01"), box("imir", b"\x00")]
    heif(os.path.join(out, "grid.heic"), [(1, "grid", grid_desc, grid_props, False)] + tile_items, 1,
         [("dimg", 1, [10, 11, 12, 13])], idat_items=(1,))

    # 10-bit HLG.
    hlg = ["-vf", "zscale=tin=bt709:pin=bt709:min=bt709:rin=full:t=arib-std-b67:p=bt2020:m=bt2020nc:r=limited:npl=203,format=yuv420p10le",
           "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"]
    config, sample = coded(base, "hevc", hlg)
    heif(os.path.join(out, "hlg.heic"), [(1, "hvc1", sample, [box("hvcC", config), ispe(W, H), nclx(9, 18, 9, False)], False)], 1, [])

    # iOS 18 HDR photo structure: the picture as a grid (unturned here), and around it what libheif 1.15 refuses.
    upright_tiles = quarters(base, "upright", full_range)
    small = os.path.join(work, "small.png")
    run(["ffmpeg", "-v", "error", "-y", "-i", base, "-vf", "scale=240:200,format=gray", small])
    gain_cfg, gain = coded(small, "hevc")
    icc = box("colr", b"prof" + b"\0" * 128)
    items = [(1, "grid", struct.pack(">BBBBHH", 0, 0, 1, 1, W, H), [ispe(W, H), nclx(1, 13, 6, True), icc], False)]
    items += [(10 + n, "hvc1", s, [box("hvcC", cfg), ispe(256, 256)], True) for n, (cfg, s) in enumerate(upright_tiles)]
    items += [(20, "hvc1", gain, [box("hvcC", gain_cfg), ispe(240, 200), aux("urn:com:apple:photo:2020:aux:hdrgainmap")], True)]
    items += [(21, "tmap", struct.pack(">BB", 0, 0) + bytes(60), [ispe(W, H)], False)]
    items += [(30 + n, "hvc1", gain, [box("hvcC", gain_cfg), ispe(240, 200), aux(f"urn:com:apple:photo:2023:aux:semanticmatte:{kind}")], True)
              for n, kind in enumerate(["skin", "hair", "teeth", "glasses"])]
    items += [(40, "hvc1", gain, [box("hvcC", gain_cfg), ispe(240, 200)], False)]
    refs = [("dimg", 1, [10, 11, 12, 13]), ("auxl", 20, [1]), ("dimg", 21, [1, 20]), ("thmb", 40, [1])]
    refs += [("auxl", 30 + n, [1]) for n in range(4)]
    heif(os.path.join(out, "ios18.heic"), items, 1, refs, idat_items=(1,))

    config, sample = coded(base, "av1", ["-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p", "-colorspace", "bt709"])
    heif(os.path.join(out, "single.avif"), [(1, "av01", sample, [box("av1C", config), ispe(W, H), nclx(1, 1, 1, False)], False)], 1, [],
         brand="avif")
print(f"wrote {', '.join(sorted(os.listdir(out)))} in {out}")
