#!/usr/bin/env python3
"""Writes the seed corpora for the Swift parser fuzz targets (scripts/fuzz swift), one folder per target named as
`ParserEntryPoint` names them. Binary seeds are cut from testvectors/ and, where present, ../shared/realmedia
(movie boxes, Dolby Vision RPUs, SEI-bearing access units, timed-metadata samples); text seeds are small files in
each caption, timeline, overlay and GPX dialect, written here, with the features the readers handle.

usage: make-fuzz-seeds.py OUTDIR
"""
import glob
import os
import struct
import subprocess
import sys
import tempfile

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
realmedia = os.path.join(root, "..", "shared", "realmedia")


def put(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def ffmpeg(args):
    return subprocess.run(["ffmpeg", "-v", "error", "-y"] + args, capture_output=True).stdout


def movies():
    files = sorted(glob.glob(os.path.join(root, "testvectors", "*.mp4")) + glob.glob(os.path.join(root, "testvectors", "*.mov")))
    if os.path.isdir(realmedia):
        files += sorted(f for f in glob.glob(os.path.join(realmedia, "*")) if f.lower().endswith((".mp4", ".mov")))
    return files


def header_boxes(path, limit=1 << 20):
    """The file's top-level boxes without the media data: what the box walkers read."""
    data, at, kept = open(path, "rb").read(), 0, b""
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
        if size < 8:
            break
        if kind not in (b"mdat", b"free", b"skip"):
            kept += data[at:at + size]
        at += size
    return kept if 0 < len(kept) <= limit else None


def nal_units(annexb):
    units, at = [], annexb.find(b"\x00\x00\x01")
    while at >= 0:
        nxt = annexb.find(b"\x00\x00\x01", at + 3)
        unit = annexb[at + 3:nxt if nxt >= 0 else len(annexb)]
        units.append(unit.rstrip(b"\x00"))
        at = nxt
    return units


def binary_seeds(work):
    for path in movies():
        name = os.path.basename(path)
        boxes = header_boxes(path)
        if boxes:
            put("boxes", name, boxes)
        streams = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=index,codec_name,codec_tag_string", "-of", "csv=p=0", path],
                                 capture_output=True, text=True).stdout.split("\n")
        for line in filter(None, streams):
            index, codec, tag = (line.split(",") + ["", ""])[:3]
            if codec in ("hevc", "h264"):
                annexb = ffmpeg(["-i", path, "-map", f"0:{index}", "-c", "copy", "-frames:v", "3", "-bsf:v", f"{codec}_mp4toannexb", "-f", codec, "-"])
                mode = 0 if codec == "h264" else 1  # the SEI target's first byte: codec, start codes
                put("sei", f"{name}.annexb", bytes([mode]) + annexb[:8192])
                samples = ffmpeg(["-i", path, "-map", f"0:{index}", "-c", "copy", "-frames:v", "2", "-f", "data", "-"])
                put("sei", f"{name}.lengths", bytes([mode | 6]) + samples[:8192])  # 4-byte NAL lengths
                rpus = [u[2:] for u in nal_units(annexb) if codec == "hevc" and len(u) > 2 and (u[0] >> 1) & 0x3F == 62]
                for n, rpu in enumerate(rpus[:2]):
                    put("dovi-rpu", f"{name}.{n}", rpu)
            elif tag in ("mebx", "gpmd"):
                data = ffmpeg(["-i", path, "-map", f"0:{index}", "-c", "copy", "-f", "data", "-"])
                put("mebx" if tag == "mebx" else "gpmf", f"{name}.{index}", data[:4096])
    # Timed metadata ffmpeg cannot write: the project's own track writer adds it to a test vector.
    for kind in ("gpmf", "mebx"):
        made = os.path.join(work, f"{kind}.mov")
        ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10:duration=2", "-c:v", "libx264", os.path.join(work, "plain.mov")])
        subprocess.run([sys.executable, os.path.join(here, "add-telemetry-track.py"), os.path.join(work, "plain.mov"), made, kind, "2",
                        os.path.join(work, "sidecar.json")], check=True, capture_output=True)
        put("boxes", f"{kind}.mov", header_boxes(made))
        data = ffmpeg(["-i", made, "-map", "0:d:0", "-c", "copy", "-f", "data", "-"])
        put(kind, f"written.{kind}", data[:4096])


TEXT_SEEDS = {
    "srt": {
        "basic.srt": "1\n00:00:00,500 --> 00:00:02,000\nHello <i>there</i>\n<b>bold</b> <u>under</u>\n\n"
                     "2\n00:00:01,000 --> 00:00:03,250\n{\\an8}<font color=\"#ff0000\">red</font> &amp; more\n\n",
        "crlf.srt": "1\r\n00:00:00,000 --> 00:00:01,000\r\nline\r\n\r\n",
    },
    "webvtt": {
        "basic.vtt": "00:00.500 --> 00:02.000 line:10% position:20% align:start size:50%\n<v Anna>Hi</v> <c.yellow>there</c>\n\n"
                     "NOTE a comment\n\nSTYLE\n::cue { color: red }\n\nid\n00:00:01.000 --> 00:00:03.000\n&lt;tag&gt; &nbsp;x\n",
    },
    "ass": {
        "basic.ass": "[Script Info]\nScriptType: v4.00+\nPlayResX: 640\nPlayResY: 360\n\n[V4+ Styles]\n"
                     "Format: Name, Fontname, Fontsize, PrimaryColour, Bold, Italic, Alignment\nStyle: Default,Arial,20,&H00FFFFFF,0,0,2\n\n"
                     "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
                     "Dialogue: 0,0:00:00.50,0:00:02.00,Default,,0,0,0,,{\\i1}Hi{\\i0}\\N{\\an8\\c&H0000FF&}top, with a comma\n",
    },
    "ttml": {
        "basic.ttml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tt xmlns=\"http://www.w3.org/ns/ttml\" xmlns:tts=\"http://www.w3.org/ns/ttml#styling\""
                      " ttp:frameRate=\"30\" xmlns:ttp=\"http://www.w3.org/ns/ttml#parameter\"><head><styling>"
                      "<style xml:id=\"s1\" tts:color=\"#FFFF00\" tts:fontStyle=\"italic\"/></styling><layout>"
                      "<region xml:id=\"top\" tts:origin=\"10% 10%\" tts:extent=\"80% 20%\" tts:displayAlign=\"before\"/></layout></head>"
                      "<body><div><p begin=\"00:00:00.500\" end=\"00:00:02:15\" style=\"s1\" region=\"top\">Hi<br/>"
                      "<span tts:fontWeight=\"bold\" tts:color=\"rgb(255,0,0)\">there</span></p>"
                      "<p begin=\"2.5s\" dur=\"1000ms\">more</p></div></body></tt>\n",
    },
    "scc": {
        "basic.scc": "Scenarist_SCC V1.0\n\n00:00:00:15\t9420 9420 94ae 94ae 9452 9452 97a2 97a2 c8e5 ecec ef80 942f 942f\n\n"
                     "00:00:02:00\t942c 942c\n\n00:00:03;00\t9425 9425 94ad 94ad 9470 9470 d2ef ecec 94ad 94ad\n",
    },
    "lrc": {
        "basic.lrc": "[ti:Song]\n[ar:Someone]\n[offset:-120]\n[length:01:02.5]\n[00:01.50][00:10.00]Chorus [line]\n"
                     "[00:03:25]Second & <more>\n[00:05.00]\n[00:06.00]<00:06.00>Word <00:06.40>by <00:06.8>word\n"
                     "<00:08.00>Only word times\n[100:00.00]late\n",
    },
    "timeline": {
        "basic.json": '{"output": {"preset": "640x480", "fps": 30, "background": "#102030", "fit": "cover"},'
                      ' "clips": [{"file": "a.mp4", "from": 0.5, "duration": 1, "transition": {"kind": "fade", "duration": 0.5}},'
                      ' {"image": "b.png", "duration": 2, "fit": "contain"}, {"color": "#ffffff", "duration": 1}],'
                      ' "music": {"file": "m.m4a", "volume": 0.5, "fade_out": 1},'
                      ' "overlays": {"stickers": [{"image": "s.png", "x": "10%", "y": 20, "start": 0, "end": 2}]}}',
        "split-pip.json": '{"clips": [{"split": [{"file": "a.mp4", "from": 1, "volume": 0.5}, {"color": "#ff0000"},'
                          ' {"image": "b.png", "fit": "cover"}, {"file": "a.mp4", "rotate": 90}], "layout": "2x2", "duration": 2},'
                          ' {"file": "a.mp4", "pip": [{"file": "a.mp4", "x": "62%", "y": "5%", "width": "33%", "start": 0.5,'
                          ' "end": 3, "from": 2, "to": 4.5, "radius": 24, "border": 4, "border_color": "#ffffff", "opacity": 0.8,'
                          ' "volume": 1, "keyframes": [{"t": 0, "x": 0, "scale": 1.2}, {"t": 1, "x": "50%", "easing": "ease-in"}]}]}]}',
    },
    "overlay": {
        "basic.json": '{"stickers": [{"image": "s.png", "x": "50%", "y": "10%", "width": 100, "start": 0.5, "end": 3,'
                      ' "opacity": 0.8, "keyframes": [{"t": 0, "x": 0}, {"t": 1, "x": "90%", "easing": "ease-in-out"}]}],'
                      ' "titles": [{"text": "Hi {speed_kmh}", "start": 0, "end": 2, "position": "bottom"}],'
                      ' "captions": [{"file": "c.srt", "offset": 1.5}], "effects": [{"kind": "blur", "start": 1, "end": 2}]}',
    },
    "gpx": {
        "basic.gpx": '<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
                     '<trkpt lat="51.5" lon="-0.12"><ele>20.5</ele><time>2024-05-01T10:00:00Z</time></trkpt>'
                     '<trkpt lat="51.5001" lon="-0.1201"><ele>21</ele><time>2024-05-01T10:00:01.5Z</time><speed>3.2</speed></trkpt>'
                     '</trkseg></trk></gpx>',
    },
}


def slow_motion_seeds():
    """A movie header with Samsung's smta box and an SEF trailer (as the Samsung slow-motion files have them), and
    packets as temporal-layer readers see them: H.264 with SVC prefix NAL units, HEVC, length-prefixed and Annex B."""
    def box(kind, payload):
        return struct.pack(">I4s", 8 + len(payload), kind) + payload
    saut = box(b"saut", bytes([0, 0, 0, 0, 0, 12, 1, 4]))
    moov = box(b"moov", box(b"udta", box(b"smta", bytes(4) + saut)))
    name, body = b"SlowMotion_Data", b"88:879:2*1255:1970:4"
    datum = bytes([0, 0, 0x90, 0x08]) + struct.pack("<I", len(name)) + name + body
    trailer = b"SEFH" + struct.pack("<II", 106, 1) + bytes([0, 0, 0x90, 0x08]) + struct.pack("<II", len(datum), len(datum))
    put("slow-motion", "samsung.mp4", box(b"ftyp", b"mp42" + bytes(4)) + moov + box(b"mdat", bytes(32)) + datum + trailer
        + struct.pack("<I", len(trailer)) + b"SEFT")
    prefix, slice_ = bytes([0x6e, 0xc0, 0x80, 0x4f]), bytes([0x01, 0x9a, 0x22, 0x33])
    put("temporal-layers", "h264-avcc", bytes([3 << 1]) + struct.pack(">I", 4) + prefix + struct.pack(">I", 4) + slice_)
    put("temporal-layers", "h264-annexb", bytes([0]) + b"\x00\x00\x01" + prefix + b"\x00\x00\x01" + slice_)
    put("temporal-layers", "hevc-avcc", bytes([1 | 3 << 1]) + struct.pack(">I", 3) + bytes([0x02, 0x03, 0x44]))


def av1_seeds(work):
    """AV1 sequence headers as SVT-AV1 gives them (a bare OBU) and as an MP4's av1C record holds them, 8- and 10-bit."""
    for depth, fmt in ((8, "yuv420p"), (10, "yuv420p10le")):
        clip = os.path.join(work, f"av1-{depth}.mp4")
        ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x64:d=0.1", "-c:v", "libsvtav1", "-preset", "12", "-pix_fmt", fmt, clip])
        data = open(clip, "rb").read() if os.path.exists(clip) else b""
        at = data.find(b"av1C")
        if at < 4:
            continue
        record = data[at + 4:at - 4 + struct.unpack(">I", data[at - 4:at])[0]]
        put("av1-sequence-header", f"av1C-{depth}bit", record)
        put("av1-sequence-header", f"obu-{depth}bit", record[4:])


def gain_map_seeds(work):
    """A gain-map JPEG as sdrify writes it (thumbnail --gain-map of the PQ vector, small), when sdrify is built."""
    sdrify = os.path.join(root, ".build", "debug", "sdrify")
    if not os.path.exists(sdrify):
        return
    jpg = os.path.join(work, "gain-map.jpg")
    subprocess.run([sdrify, "thumbnail", os.path.join(root, "testvectors", "pq_hevc_hdr10.mp4"), jpg, "--size", "64x36", "--gain-map",
                    "-q"], capture_output=True)
    if os.path.exists(jpg):
        put("gain-map-jpeg", "sdrify-64x36.jpg", open(jpg, "rb").read())
    # Files sdrify marks (what -y may replace): a movie's head, and each still format, small.
    for ext in ["jpg", "png", "webp"]:
        still = os.path.join(work, f"still.{ext}")
        subprocess.run([sdrify, "thumbnail", os.path.join(root, "testvectors", "orient_1.mp4"), still, "--size", "32x18", "-q"],
                       capture_output=True)
        if os.path.exists(still):
            put("output-mark", f"sdrify.{ext}", open(still, "rb").read())
    movie = os.path.join(work, "marked.mp4")
    subprocess.run([sdrify, os.path.join(root, "testvectors", "orient_1.mp4"), movie, "--duration", "0.1", "-q"], capture_output=True)
    if os.path.exists(movie):
        put("output-mark", "sdrify.mp4", header_boxes(movie))


def photo_seeds(work):
    """HEIF stills and motion photos as scripts/make-heif-vectors.py and make-motion-photos.py write them."""
    png, jpg, mp4 = (os.path.join(work, n) for n in ("seed.png", "seed.jpg", "seed.mp4"))
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1", png])
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1", jpg])
    ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48:d=0.2", "-c:v", "libx264", "-pix_fmt", "yuv420p", mp4])
    heif_dir, motion_dir = os.path.join(work, "heif"), os.path.join(work, "motion")
    subprocess.run(["python3", os.path.join(here, "make-heif-vectors.py"), png, heif_dir], check=True, capture_output=True)
    subprocess.run(["python3", os.path.join(here, "make-motion-photos.py"), jpg, mp4, os.path.join(heif_dir, "single.heic"), motion_dir],
                   check=True, capture_output=True)
    for name in sorted(os.listdir(heif_dir)):
        put("heif", name, open(os.path.join(heif_dir, name), "rb").read())
    for name in sorted(os.listdir(motion_dir)):
        put("motion-photo", name, open(os.path.join(motion_dir, name), "rb").read())


def text_seeds():
    for target, files in TEXT_SEEDS.items():
        for name, text in files.items():
            put(target, name, text)
            put("captions", name, text) if target in ("srt", "webvtt", "ass", "ttml", "scc", "lrc") else None


with tempfile.TemporaryDirectory() as work:
    binary_seeds(work)
    photo_seeds(work)
    av1_seeds(work)
    gain_map_seeds(work)
slow_motion_seeds()
text_seeds()
for target in sorted(os.listdir(out)):
    print(f"{target}: {len(os.listdir(os.path.join(out, target)))} seeds")
