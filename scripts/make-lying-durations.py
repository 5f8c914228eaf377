#!/usr/bin/env python3
"""Writes valid files whose containers lie about how long each picture lasts, while the pictures' own presentation
times are right (1/30 s apart), and expected.json: for each, its pictures and their true spacing.

Phones and their muxers do this (an HTC phone's Matroska says every packet lasts 1 ms). No tool writes such a file on
purpose, and rewriting timestamps with ffmpeg's `setts` makes damaged presentation times instead, so the lie is edited
in here, in the one field that carries it:
- Matroska: the track's DefaultDuration (each SimpleBlock's duration), 1 ms, absent (0) or 100 ms;
- MP4: the sample table's decode steps (stts), 1 ms each with the composition offsets (ctts) carrying the rest, so
  that every picture keeps its presentation time; and a last sample said to last 0 or 2 s.
Each file is checked after editing: ffprobe must read the same presentation times as the honest file it came from,
which is kept beside it (honest_*) for comparison.

usage: make-lying-durations.py OUTDIR
"""
import functools
import json
import os
import struct
import subprocess
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import boxes, child  # noqa: E402  (beside this script)

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
FRAMES, RATE = 30, 30
expected = {}


def path(name):
    return os.path.join(out, name)


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)


def honest(name, bframes, container_args=()):
    """A 1-second 30 fps H.264 clip (with or without B-frames) with sound, honest about its timing."""
    ffmpeg("-f", "lavfi", "-i", f"testsrc2=size=320x240:rate={RATE}", "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000",
           "-t", str(FRAMES // RATE), "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
           "-bf", str(bframes), "-g", "15", "-c:a", "aac", *container_args, path(name))


@functools.cache  # each honest file is compared with every edit made of it
def presentation_times(p):
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", p],
                       stdout=subprocess.PIPE, check=True)
    fields = [line.split(",")[0].strip() for line in r.stdout.decode().splitlines()]
    return [round(float(x), 4) for x in fields if x not in ("", "N/A")]


@functools.cache
def timing_said(p):
    """What the container says of the video's timing: each packet's decode time and duration, the track's length."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                        "packet=dts_time,duration_time:stream=duration", "-of", "csv=p=0", p], stdout=subprocess.PIPE, check=True)
    return [line.strip() for line in r.stdout.decode().splitlines() if line.strip()]


def keep(name, source, why, said_differs=True):
    """Checks an edited file against the honest one it came from and records it. (libavformat fills an absent
    or zero duration from the rate or the step before it: that lie shows only in the stream's header.)"""
    times, truth = presentation_times(path(name)), presentation_times(path(source))
    if times != truth or len(times) != FRAMES:
        sys.exit(f"{name}: the edit changed the pictures' times ({times[:5]}… against {truth[:5]}…)")
    if said_differs and timing_said(path(name)) == timing_said(path(source)):
        sys.exit(f"{name}: the edit left the container's timing as it was")
    expected[name] = {"frames": FRAMES, "spacing": 1 / RATE, "honest": source, "why": why}


# --- Matroska: DefaultDuration (EBML ID 0x23E383) in the video track --------------------------------------------------

def with_default_duration(source, name, nanoseconds, why, said_differs=True):
    d = bytearray(open(path(source), "rb").read())
    at = d.find(b"\x23\xe3\x83")
    if at < 0:
        sys.exit(f"{source}: no DefaultDuration")
    size = d[at + 3] & 0x7F  # a one-byte size (0x8n)
    if d[at + 3] & 0x80 == 0 or not 1 <= size <= 8 or nanoseconds >= 1 << (8 * size):
        sys.exit(f"{source}: an unexpected DefaultDuration size")
    d[at + 4:at + 4 + size] = nanoseconds.to_bytes(size, "big")
    open(path(name), "wb").write(d)
    keep(name, source, why, said_differs)


for bframes, tag in ((3, "bframes"), (0, "plain")):
    src = f"honest_{tag}.mkv"
    honest(src, bframes)
    with_default_duration(src, f"mkv_1ms_{tag}.mkv", 1_000_000, f"Matroska ({tag}): every picture said to last 1 ms")
    with_default_duration(src, f"mkv_zero_{tag}.mkv", 0, f"Matroska ({tag}): no duration said (0)", False)
    with_default_duration(src, f"mkv_100ms_{tag}.mkv", 100_000_000, f"Matroska ({tag}): every picture said to last 100 ms")


# --- MP4: the video track's sample table ------------------------------------------------------------------------------

def video_sample_table(d):
    """(stbl offset, size, mdhd offset) of the first video track (moov is last: ffmpeg writes it so without faststart)."""
    moov = next((a, s) for k, a, s in boxes(d, 0, len(d)) if k == b"moov")
    for k, a, s in boxes(d, moov[0] + 8, moov[0] + moov[1]):
        if k != b"trak":
            continue
        mdia = child(d, a, s, b"mdia")
        hdlr = child(d, *mdia, b"hdlr")
        if d[hdlr[0] + 16:hdlr[0] + 20] == b"vide":
            minf = child(d, *mdia, b"minf")
            return child(d, *minf, b"stbl"), child(d, *mdia, b"mdhd"), [moov[0], a, mdia[0], minf[0]]
    sys.exit("no video track")


def full_box(kind, payload, version=0):
    return struct.pack(">I4sI", 12 + len(payload), kind, version << 24) + payload


def rewrite_steps(source, name, steps_of, why, said_differs=True):
    """Rewrites the video track's stts with `steps_of(true steps)` and its ctts so each picture keeps its time."""
    d = bytearray(open(path(source), "rb").read())
    (stbl, stbl_size), (mdhd, _), parents = video_sample_table(d)
    stts = child(d, stbl, stbl_size, b"stts")
    steps = []
    for k in range(struct.unpack(">I", d[stts[0] + 12:stts[0] + 16])[0]):
        count, delta = struct.unpack(">II", d[stts[0] + 16 + 8 * k:stts[0] + 24 + 8 * k])
        steps += [delta] * count
    offsets = [0] * len(steps)
    ctts = next(((a, s) for k, a, s in boxes(d, stbl + 8, stbl + stbl_size) if k == b"ctts"), None)
    if ctts:
        version = d[ctts[0] + 8]
        at, i = ctts[0] + 16, 0
        for _ in range(struct.unpack(">I", d[ctts[0] + 12:ctts[0] + 16])[0]):
            count, offset = struct.unpack(">I" + ("i" if version else "I"), d[at:at + 8])
            offsets[i:i + count] = [offset] * count
            i, at = i + count, at + 8
    decode = [sum(steps[:k]) for k in range(len(steps))]
    shown = [t + o for t, o in zip(decode, offsets)]
    new_steps = steps_of(steps)
    new_decode = [sum(new_steps[:k]) for k in range(len(new_steps))]
    new_offsets = [p - t for p, t in zip(shown, new_decode)]
    # Steps longer than the pictures' make offsets below 0: ctts version 1 carries them signed.
    signed = min(new_offsets) < 0
    new_stts = full_box(b"stts", struct.pack(">I", len(new_steps)) + b"".join(struct.pack(">II", 1, s) for s in new_steps))
    new_ctts = full_box(b"ctts", struct.pack(">I", len(new_offsets))
                        + b"".join(struct.pack(">Ii" if signed else ">II", 1, o) for o in new_offsets), version=1 if signed else 0)
    # Replace stts, and ctts (or add it after stts); the boxes holding them grow by as much.
    body = b"".join(d[a:a + s] for k, a, s in boxes(d, stbl + 8, stbl + stbl_size) if k not in (b"stts", b"ctts"))
    stsd_end = child(d, stbl, stbl_size, b"stsd")[1]  # stsd first, then the timing tables
    new_body = body[:stsd_end] + new_stts + new_ctts + body[stsd_end:]
    grown = len(new_body) - (stbl_size - 8)
    tail = d[stbl + stbl_size:]
    d = d[:stbl + 8] + new_body + tail
    for at in parents + [stbl]:
        struct.pack_into(">I", d, at, struct.unpack(">I", d[at:at + 4])[0] + grown)
    # The media's duration is what its table adds up to (a container lying consistently).
    version = d[mdhd + 8]
    field = mdhd + (32 if version else 24)
    if version:
        struct.pack_into(">Q", d, field, sum(new_steps))
    else:
        struct.pack_into(">I", d, field, sum(new_steps))
    open(path(name), "wb").write(d)
    keep(name, source, why, said_differs)


SCALE = ["-video_track_timescale", "30000"]  # 1 ms is 30 ticks, a picture 1000
for bframes, tag in ((3, "bframes"), (0, "plain")):
    src = f"honest_{tag}.mp4"
    honest(src, bframes, SCALE)
    rewrite_steps(src, f"mp4_1ms_{tag}.mp4", lambda steps: [30] * len(steps),
                  f"MP4 ({tag}): decode steps of 1 ms, composition offsets carrying the rest")
    rewrite_steps(src, f"mp4_long_{tag}.mp4", lambda steps: [2000] * len(steps),
                  f"MP4 ({tag}): decode steps of 1/15 s, twice the pictures' (composition offsets below 0)")
src = "honest_last.mp4"
# No edit list to end the track where the pictures do (and no sound, whose priming moves the first picture then).
honest(src, 0, SCALE + ["-use_editlist", "0", "-an"])
rewrite_steps(src, "mp4_last_zero.mp4", lambda steps: steps[:-1] + [0], "MP4: the last sample said to last 0")
rewrite_steps(src, "mp4_last_long.mp4", lambda steps: steps[:-1] + [60000], "MP4: the last sample said to last 2 s")

# Last, and put in place whole: its presence says the corpus is complete (scripts/conformance makes it if absent).
with open(path("expected.json.part"), "w") as f:
    json.dump(expected, f, indent=1)
os.replace(path("expected.json.part"), path("expected.json"))
print(f"{len(expected)} files in {out}")
