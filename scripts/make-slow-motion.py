#!/usr/bin/env python3
"""Makes a movie into a Samsung-style slow-motion file, for tests and benchmarks: an 'smta' box in the movie's user
data (the capture rate and the SVC temporal-layer count) and an SEF trailer with SlowMotion_Data segments, laid out as
Samsung phones write them (media3's SefReader and parseSmta read the same fields). The movie box must be last
(ffmpeg's default, without +faststart), so no chunk offset moves.

usage: make-slow-motion.py IN OUT RATE LAYERS SEGMENTS
  RATE 120 or 240; LAYERS the temporal-layer count; SEGMENTS "start:end:mode*…" in ms of file time (mode m slows 2^(m-1))
"""
import struct
import sys

src, out, rate, layers, segments = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5].encode()
data = open(src, "rb").read()
at = data.rfind(b"moov") - 4
assert at > 0 and struct.unpack(">I", data[at:at + 4])[0] == len(data) - at, "the movie box must be last"


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


mode = {240: 12, 120: 13}[rate]
udta = box(b"udta", box(b"smta", bytes(4) + box(b"saut", bytes([0, 0, 0, 0, 0, mode, 1, layers]))))
name = b"SlowMotion_Data"
datum = bytes([0, 0, 0x90, 0x08]) + struct.pack("<I", len(name)) + name + segments
trailer = b"SEFH" + struct.pack("<II", 106, 1) + bytes([0, 0, 0x90, 0x08]) + struct.pack("<II", len(datum), len(datum))
with open(out, "wb") as f:
    f.write(data[:at] + box(b"moov", data[at + 8:] + udta) + datum + trailer + struct.pack("<I", len(trailer)) + b"SEFT")
