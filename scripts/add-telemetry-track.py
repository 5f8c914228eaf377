#!/usr/bin/env python3
"""Adds a timed-metadata track to a movie, for tests: GoPro GPMF telemetry ('gpmd': GPS5 positions, 10 a second) or
a QuickTime metadata track ('mebx': an ISO 6709 location and a speed, one a second), as cameras and phones write
them. ffmpeg cannot write either, so this writes the boxes itself, from the published layouts (GPMF's KLV records;
QuickTime's 'mebx' sample entry with its 'keys' table).

The input must keep its movie box last (ffmpeg's default, without +faststart): the new samples go into a second
'mdat' after the first, and the movie box, with one more 'trak', is written after them, so the existing tracks'
chunk offsets stay valid. Also writes SIDECAR.json: every value written, with its time, for the tests to compare.

usage: add-telemetry-track.py IN OUT {gpmf|mebx} SECONDS SIDECAR.json
"""
import json
import struct
import sys


def box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind.encode()) + payload


def full_box(kind, version, flags, payload):
    return box(kind, struct.pack(">I", (version << 24) | flags) + payload)


def top_level(data):
    """(type, start, size) of each top-level box."""
    out, at = [], 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size == 1:
            size = struct.unpack(">Q", data[at + 8:at + 16])[0]
        elif size == 0:
            size = len(data) - at
        out.append((kind.decode("latin-1"), at, size))
        at += size
    return out


def klv(key, type_char, size, count, payload):
    """One GPMF record: key, type, structure size, repeat count, data padded to 4 bytes."""
    record = key.encode() + struct.pack(">cBH", type_char.encode(), size, count) + payload
    return record + b"\0" * (-len(payload) % 4)


def gpmf_sample(first_index, per_second):
    """One second of GPS5 (latitude, longitude, altitude, 2D speed, 3D speed), scaled to 32-bit integers."""
    scale = [10_000_000, 10_000_000, 1000, 1000, 100]
    rows, values = [], []
    for j in range(first_index, first_index + per_second):
        row = [46.0 + 0.0001 * j, 7.0 + 0.0002 * j, 500.0 + j, 0.5 * j, 0.5 * j + 0.25]
        values.append(row)
        rows.append(struct.pack(">5i", *[round(v * s) for v, s in zip(row, scale)]))
    stream = (klv("STNM", "c", 1, 9, b"GPS (Lat.") + klv("SCAL", "l", 4, 5, struct.pack(">5i", *scale))
              + klv("GPS5", "l", 20, per_second, b"".join(rows)))
    device = klv("DVID", "L", 4, 1, struct.pack(">I", 1)) + klv("DVNM", "c", 1, 6, b"sdrify") + klv("STRM", "\0", 1, len(stream), stream)
    return klv("DEVC", "\0", 1, len(device), device), values


def mebx_keys():
    """The 'keys' box of a 'mebx' sample entry: local ID → (namespace, name, well-known type)."""
    entries = [(1, "com.apple.quicktime.location.ISO6709", 1), (2, "com.example.speed", 23)]
    table = b""
    for local_id, name, data_type in entries:
        inner = box("keyd", b"mdta" + name.encode()) + box("dtyp", struct.pack(">II", 0, data_type))
        table += struct.pack(">II", 8 + len(inner), local_id) + inner   # a box whose type is the local ID
    return box("keys", table)


def mebx_sample(second):
    lat, lon, alt, speed = 46.0 + 0.001 * second, 7.0 + 0.002 * second, 500.0 + 10 * second, 2.5 * second
    text = f"{lat:+08.4f}{lon:+09.4f}{alt:+08.3f}/".encode()
    payload = struct.pack(">II", 8 + len(text), 1) + text + struct.pack(">IIf", 12, 2, speed)
    return payload, {"location": [lat, lon, alt], "speed": speed}


def main():
    src, dst, kind, seconds, sidecar = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    data = open(src, "rb").read()
    boxes = top_level(data)
    if boxes[-1][0] != "moov":
        sys.exit(f"{src}: the movie box must be last (write it without +faststart)")
    _, moov_at, moov_size = boxes[-1]
    head, moov = data[:moov_at], data[moov_at + 8:moov_at + moov_size]

    samples, written = [], []
    for s in range(seconds):
        if kind == "gpmf":
            sample, values = gpmf_sample(10 * s, 10)
            written += [{"t": s + k / 10, "gps": v} for k, v in enumerate(values)]
        else:
            sample, values = mebx_sample(s)
            written.append({"t": s, **values})
        samples.append(sample)

    mdat_payload_at = len(head) + 8
    offsets, at = [], mdat_payload_at
    for sample in samples:
        offsets.append(at)
        at += len(sample)
    mdat = box("mdat", b"".join(samples))

    # The movie header's timescale and next track ID.
    children = top_level(moov)
    mvhd_at, mvhd_size = next((a, s) for k, a, s in children if k == "mvhd")
    mvhd = bytearray(moov[mvhd_at:mvhd_at + mvhd_size])
    version = mvhd[8]
    movie_timescale = struct.unpack(">I", mvhd[20:24] if version == 0 else mvhd[28:32])[0]
    next_id_at = len(mvhd) - 4
    track_id = struct.unpack(">I", mvhd[next_id_at:])[0]
    mvhd[next_id_at:] = struct.pack(">I", track_id + 1)

    timescale, duration = 1000, 1000 * seconds
    if kind == "gpmf":
        entry = box("gpmd", b"\0" * 6 + struct.pack(">H", 1) + struct.pack(">I", 0))
    else:
        entry = box("mebx", b"\0" * 6 + struct.pack(">H", 1) + mebx_keys())
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    tkhd = full_box("tkhd", 0, 1, struct.pack(">IIIII", 0, 0, track_id, 0, duration * movie_timescale // timescale)
                    + b"\0" * 8 + struct.pack(">hhhH", 0, 0, 0, 0) + matrix + struct.pack(">II", 0, 0))
    mdhd = full_box("mdhd", 0, 0, struct.pack(">IIIIHH", 0, 0, timescale, duration, 0x55C4, 0))
    hdlr = full_box("hdlr", 0, 0, struct.pack(">I4s", 0, b"meta") + b"\0" * 12 + b"sdrify telemetry\0")
    stbl = box("stbl",
               full_box("stsd", 0, 0, struct.pack(">I", 1) + entry)
               + full_box("stts", 0, 0, struct.pack(">III", 1, len(samples), timescale))
               + full_box("stsc", 0, 0, struct.pack(">IIII", 1, 1, 1, 1))
               + full_box("stsz", 0, 0, struct.pack(">II", 0, len(samples)) + b"".join(struct.pack(">I", len(s)) for s in samples))
               + full_box("stco", 0, 0, struct.pack(">I", len(offsets)) + b"".join(struct.pack(">I", o) for o in offsets)))
    dinf = box("dinf", full_box("dref", 0, 0, struct.pack(">I", 1) + full_box("url ", 0, 1, b"")))
    minf = box("minf", full_box("nmhd", 0, 0, b"") + dinf + stbl)
    trak = box("trak", tkhd + box("mdia", mdhd + hdlr + minf))

    new_moov = moov[:mvhd_at] + bytes(mvhd) + moov[mvhd_at + mvhd_size:] + trak
    with open(dst, "wb") as f:
        f.write(head + mdat + box("moov", new_moov))
    with open(sidecar, "w") as f:
        json.dump({"track_id": track_id, "samples": written}, f)


if __name__ == "__main__":
    main()
