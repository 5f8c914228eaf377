#!/usr/bin/env python3
"""Writes a corpus of valid but unusual inputs (made with the ffmpeg CLI, and edited here where no tool writes the
shape) and expected.json: for each file, how many pictures a player shows and why the file is valid. The tests
(UnusualInputTests) convert each and expect exit 0, no damage reported, and that many pictures: the counterpart of
the hostile corpus, kept at 0 false alarms.

usage: make-unusual-vectors.py OUTDIR
"""
import json
import os
import struct
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import boxes  # noqa: E402  (beside this script)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
expected = {}


def path(name):
    return os.path.join(out, name)


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)


def source(seconds, rate=30, size="320x240"):
    return ["-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}:duration={seconds}"]


def tone(seconds, freq=440):
    return ["-f", "lavfi", "-i", f"sine=f={freq}:duration={seconds}"]


def expect(name, frames, why):
    expected[name] = {"frames": frames, "why": why}


# MPEG-TS spliced by `cat`: the second part's timestamps start over (overlap) or leap ahead (jump).
ffmpeg(*source(2), *tone(2), "-c:v", "libx264", "-g", "15", "-c:a", "aac", "-f", "mpegts", path("part_a.ts"))
ffmpeg(*source(2), *tone(2, 880), "-c:v", "libx264", "-g", "15", "-c:a", "aac", "-output_ts_offset", "100", "-f", "mpegts",
       path("part_b.ts"))
for name, parts in (("spliced_overlap.ts", ["part_a.ts", "part_a.ts"]), ("spliced_jump.ts", ["part_a.ts", "part_b.ts"]),
                    ("spliced_back.ts", ["part_b.ts", "part_a.ts"])):
    with open(path(name), "wb") as f:
        for p in parts:
            f.write(open(path(p), "rb").read())
    expect(name, 120, "two 2-second parts joined with cat: players show one after the other")
# MPEG-PS (DVD, camcorders) joined the same way.
ffmpeg(*source(2), *tone(2), "-c:v", "mpeg2video", "-q:v", "4", "-c:a", "mp2", "-f", "mpeg", path("part.mpg"))
with open(path("spliced.mpg"), "wb") as f:
    f.write(open(path("part.mpg"), "rb").read() * 2)
os.remove(path("part.mpg"))
expect("spliced.mpg", 120, "an MPEG program stream joined to itself with cat")
# A TS cut at an arbitrary packet: it starts mid-GOP, before its first keyframe (a stream joined late).
data = open(path("part_a.ts"), "rb").read()
cut = (len(data) // 3) // 188 * 188
with open(path("joined_late.ts"), "wb") as f:
    f.write(data[cut:])
expect("joined_late.ts", None, "a broadcast joined mid-GOP: pictures from the first keyframe on")
for p in ("part_a.ts", "part_b.ts"):
    os.remove(path(p))

# Matroska keeps only presentation times: B-frames have no decode timestamps.
ffmpeg(*source(2), "-c:v", "libx264", "-bf", "3", "-g", "30", path("bframes.mkv"))
expect("bframes.mkv", 60, "Matroska with B-frames (presentation times only)")

# A screen recording: pictures only when something changed, gaps of up to 2 s.
ffmpeg(*source(3, rate=10), "-vf", "select='not(between(n,5,24))',setpts='PTS-STARTPTS'", "-fps_mode", "passthrough",
       "-c:v", "libx264", path("screen_vfr.mp4"))
expect("screen_vfr.mp4", 10, "variable frame rate with a 2-second gap (pictures sent on change)")

# One picture.
ffmpeg(*source(1), "-frames:v", "1", "-c:v", "libx264", path("one_frame.mp4"))
expect("one_frame.mp4", 1, "a single picture")

# The sound begins half a second before the pictures.
ffmpeg("-itsoffset", "0.5", *source(2), *tone(3), "-c:v", "libx264", "-c:a", "aac", path("audio_first.mp4"))
expect("audio_first.mp4", 75, "audio from 0 s, video from 0.5 s: the first picture held until the video starts")

# Open-GOP HEVC cut at a CRA picture: the leading (RASL) pictures after it reference what was cut away, and a
# decoder starting there skips them. Cut in the raw stream at the parameter sets before the second CRA.
ffmpeg(*source(3), "-c:v", "libx265", "-x265-params", "keyint=30:min-keyint=30:open-gop=1:bframes=3:repeat-headers=1:log-level=error",
       "-f", "hevc", path("open_gop.hevc"))
stream = open(path("open_gop.hevc"), "rb").read()
units = [at for at in range(len(stream) - 4) if stream[at:at + 3] == b"\x00\x00\x01"]
cras = [at for at in units if (stream[at + 3] >> 1) & 0x3F == 21]
vps = max(at for at in units if at < cras[1] and (stream[at + 3] >> 1) & 0x3F == 32)
open(path("cut_at_cra.hevc"), "wb").write(stream[vps - 1 if stream[vps - 1] == 0 else vps:])
os.remove(path("open_gop.hevc"))
expect("cut_at_cra.hevc", None, "open-GOP HEVC starting at a CRA, its RASL pictures skipped")


# An edit list of many segments (an editor's cuts kept as edits): 6 one-third-second pieces of a 6-second track.
ffmpeg(*source(6), "-c:v", "libx264", "-g", "30", "-bf", "2", path("edits_src.mp4"))  # moov last: it may grow
d = bytearray(open(path("edits_src.mp4"), "rb").read())
moov = next(at for kind, at, size in boxes(d, 0, len(d)) if kind == b"moov")
movie_scale = struct.unpack(">I", d[d.find(b"mvhd") + 16:d.find(b"mvhd") + 20])[0]
media_scale = struct.unpack(">I", d[d.find(b"mdhd") + 16:d.find(b"mdhd") + 20])[0]
elst = d.find(b"elst") - 4
first_media_time = struct.unpack(">i", d[elst + 20:elst + 24])[0]
entries = b"".join(struct.pack(">IiI", movie_scale // 3, first_media_time + k * media_scale, 0x10000) for k in range(6))
new_elst = struct.pack(">I4sII", 16 + len(entries), b"elst", 0, 6) + entries
grown = len(new_elst) - struct.unpack(">I", d[elst:elst + 4])[0]
old_size = struct.unpack(">I", d[elst:elst + 4])[0]
d[elst:elst + old_size] = new_elst
for kind in (b"edts", b"trak", b"moov"):  # every box that holds the edit list
    at = d.rfind(kind, 0, elst) - 4
    struct.pack_into(">I", d, at, struct.unpack(">I", d[at:at + 4])[0] + grown)
open(path("many_edits.mp4"), "wb").write(d)
os.remove(path("edits_src.mp4"))
expect("many_edits.mp4", 60, "an edit list of 6 segments of 10 pictures each")

with open(path("expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print(f"{len(expected)} files in {out}")
