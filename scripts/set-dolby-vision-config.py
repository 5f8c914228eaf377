#!/usr/bin/env python3
"""Insert a Dolby Vision decoder configuration record (dvcC, or dvvC for profiles above 7) into the video
sample entry of an MP4/MOV whose moov follows its mdat, writing a new file. Only the container record is
added (no RPU in the bitstream): enough to exercise how a reader treats each profile.

    set-dolby-vision-config.py IN OUT PROFILE LEVEL COMPATIBILITY_ID
"""
import os
import struct
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isobmff import boxes  # noqa: E402  (beside this script)


def find(data, start, end, kind):
    for k, pos, size in boxes(data, start, end):
        if k == kind:
            return pos, size
    raise SystemExit(f"no {kind.decode()} box")


def main():
    if len(sys.argv) != 6:
        raise SystemExit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    profile, level, compat = (int(v) for v in sys.argv[3:])
    data = bytearray(open(src, "rb").read())
    moov, _ = find(data, 0, len(data), b"moov")
    mdat, _ = find(data, 0, len(data), b"mdat")
    if moov < mdat:
        raise SystemExit("moov before mdat: chunk offsets would move; use a file with moov at the end")
    path = [moov]
    pos, size = moov, struct.unpack(">I", data[moov:moov + 4])[0]
    for kind in (b"trak", b"mdia", b"minf", b"stbl", b"stsd"):
        pos, size = find(data, pos + 8, pos + size, kind)
        path.append(pos)
    entry = pos + 16  # stsd: header 8, version/flags 4, entry count 4
    entry_size = struct.unpack(">I", data[entry:entry + 4])[0]
    path.append(entry)
    bits = (profile & 0x7F) << 9 | (level & 0x3F) << 3 | 1 << 2 | 0 << 1 | 1  # RPU and base layer present
    payload = bytes([1, 0]) + struct.pack(">H", bits) + bytes([(compat & 0x0F) << 4]) + bytes(19)
    kind = b"dvvC" if profile > 7 else b"dvcC"
    record = struct.pack(">I4s", 8 + len(payload), kind) + payload
    insert_at = entry + entry_size
    data[insert_at:insert_at] = record
    for p in path:  # every enclosing box grows by the record's size
        size = struct.unpack(">I", data[p:p + 4])[0]
        data[p:p + 4] = struct.pack(">I", size + len(record))
    open(dst, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
