#!/usr/bin/env python3
"""Rewrite the display matrix in the video track's tkhd box of an MP4/MOV file, in place.

    set-display-matrix.py FILE a b c d tx ty

a, b, c, d are written as 16.16 fixed point, tx and ty (pixels) as 16.16, u = v = 0 and w = 1 (2.30).
Only the matrix bytes change; every offset in the file stays valid.
"""
import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta"}


def boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise SystemExit(f"malformed box at offset {pos}")
        yield kind, pos, pos + header, pos + size
        pos += size


def find(data, start, end, kind):
    return [b for b in boxes(data, start, end) if b[0] == kind]


def main():
    if len(sys.argv) != 8:
        raise SystemExit(__doc__)
    path = sys.argv[1]
    a, b, c, d, tx, ty = (float(v) for v in sys.argv[2:])
    data = bytearray(open(path, "rb").read())
    (_, _, moov_body, moov_end), = find(data, 0, len(data), b"moov")
    for _, _, trak_body, trak_end in find(data, moov_body, moov_end, b"trak"):
        (_, _, mdia_body, mdia_end), = find(data, trak_body, trak_end, b"mdia")
        (_, _, hdlr_body, _), = find(data, mdia_body, mdia_end, b"hdlr")
        if data[hdlr_body + 8:hdlr_body + 12] != b"vide":
            continue
        (_, _, tkhd_body, _), = find(data, trak_body, trak_end, b"tkhd")
        version = data[tkhd_body]
        # version/flags, times, track id, reserved, duration, reserved[2], layer, group, volume, reserved
        matrix_at = tkhd_body + (4 + 8 + 8 + 4 + 4 + 8 if version == 1 else 4 + 4 + 4 + 4 + 4 + 4) + 8 + 8
        fx = lambda v: int(round(v * 65536))
        values = [fx(a), fx(b), 0, fx(c), fx(d), 0, fx(tx), fx(ty), 1 << 30]
        data[matrix_at:matrix_at + 36] = struct.pack(">9i", *values)
        open(path, "wb").write(data)
        return
    raise SystemExit("no video track")


if __name__ == "__main__":
    main()
