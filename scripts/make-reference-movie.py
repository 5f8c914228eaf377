#!/usr/bin/env python3
"""Makes a QuickTime reference movie for tests: the video track of IN (a MOV whose movie box follows its media
data, as ffmpeg writes it) is said to live in another file, through a data reference that is an alias record
naming an absolute path (how Final Cut and QuickTime 7 wrote reference movies). The samples stay in IN's media data,
but a reader that follows the reference (or, like FFmpeg by default, refuses to) finds none of them here.

    scripts/make-reference-movie.py IN.mov OUT.mov
"""
import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"dinf", b"stbl", b"edts"}


def boxes(data):
    at = 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8 or at + size > len(data):
            raise SystemExit(f"unexpected box size at {at}")
        yield kind, data[at + 8:at + size]
        at += size


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def alias_record(path):
    """An alias record (version 2) with an absolute path (type 2): what QuickTime wrote into 'alis'."""
    name = path.rsplit("/", 1)[-1].encode()[:63]
    record = b"\0" * 4 + struct.pack(">HH", 0, 2) + struct.pack(">H", 0)  # user type, size (unused), version, kind
    record += bytes([5]) + b"Media".ljust(27, b"\0")  # volume name
    record += b"\0" * 12  # volume date, file system type, disk type
    record += bytes([len(name)]) + name.ljust(63, b"\0")  # file name
    record += b"\0" * 16  # parent directory, file number, creation date, type and creator
    record += struct.pack(">hh", -1, -1)  # levels from and to
    record += b"\0" * 16  # volume attributes, file system ID, reserved
    encoded = path.encode()
    padded = encoded + (b"\0" if len(encoded) % 2 else b"")
    record += struct.pack(">hH", 2, len(encoded)) + padded  # absolute path
    record += struct.pack(">hH", -1, 0)  # end
    return record


def rewrite(data, in_video=False):
    out = b""
    children = list(boxes(data))
    is_video = any(k == b"hdlr" and p[8:12] == b"vide" for k, p in children)
    for kind, payload in children:
        if kind == b"dref" and in_video:
            entry = box(b"alis", b"\0\0\0\0" + alias_record("/Volumes/Media/Capture Scratch/clip.mov"))
            payload = payload[:4] + struct.pack(">I", 1) + entry  # version/flags, one entry
        elif kind in CONTAINERS:
            payload = rewrite(payload, in_video or is_video or (kind == b"mdia" and any(
                k == b"hdlr" and p[8:12] == b"vide" for k, p in boxes(payload))))
        out += box(kind, payload)
    return out


def main():
    source, target = sys.argv[1], sys.argv[2]
    data = open(source, "rb").read()
    top = list(boxes(data))
    if [k for k, _ in top].index(b"moov") < [k for k, _ in top].index(b"mdat"):
        raise SystemExit("the movie box must follow the media data (chunk offsets stay as they are)")
    with open(target, "wb") as f:
        for kind, payload in top:
            f.write(box(kind, rewrite(payload) if kind == b"moov" else payload))


if __name__ == "__main__":
    main()
