"""The boxes of an ISO-BMFF (MP4/MOV) file, for the scripts that edit vectors: one reader of the box layout."""
import struct


def boxes(data, start, end):
    """(kind, offset, size) of each box between `start` and `end` (32-bit sizes: what ffmpeg writes for small files)."""
    at = start
    while at + 8 <= end:
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8 or at + size > end:
            raise SystemExit(f"unexpected box size {size} at {at}")
        yield kind, at, size
        at += size


def child(data, at, size, kind):
    """(offset, size) of the first box `kind` inside the box at `at`."""
    return next((a, s) for k, a, s in boxes(data, at + 8, at + size) if k == kind)
