#!/usr/bin/env python3
"""Writes motion photos for the tests, the three ways phones lay them out, from a JPEG, an MP4 and a HEIC:

usage: make-motion-photos.py STILL.jpg MOVIE.mp4 STILL.heic OUTDIR
  google.jpg      Google's format: XMP (GCamera:MotionPhoto, a Container:Directory whose MotionPhoto item gives the
                  movie's length) in an APP1 segment after SOI, the MP4 appended
  microvideo.jpg  the older Google format: GCamera:MicroVideo and MicroVideoOffset (bytes from the end)
  samsung.jpg     Samsung's: the MP4 in an SEF trailer entry named MotionPhoto_Data
  samsung-xmp.jpg as recent Samsung phones write: Google's XMP and the MP4 inside the SEF trailer after it (so the
                  movie does not end where the XMP's length alone would put it)
  samsung.heic    a HEIC with the MP4 in a top-level 'mpvd' box
  plain.jpg       the JPEG alone (no movie)
"""
import os
import struct
import sys

still, movie, heic, out = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
jpeg, mp4, heif = (open(p, "rb").read() for p in (still, movie, heic))
assert jpeg[:2] == b"\xff\xd8"


def with_xmp(xmp):
    body = b"http://ns.adobe.com/xap/1.0/\0" + xmp.encode()
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + jpeg[2:]


google = with_xmp(
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    '<rdf:Description GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="500000"'
    ' xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" xmlns:Container="http://ns.google.com/photos/1.0/container/"'
    ' xmlns:Item="http://ns.google.com/photos/1.0/container/item/"><Container:Directory><rdf:Seq>'
    '<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/></rdf:li>'
    f'<rdf:li rdf:parseType="Resource"><Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="{len(mp4)}"/></rdf:li>'
    '</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>')
open(os.path.join(out, "google.jpg"), "wb").write(google + mp4)

micro = with_xmp(
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
    f'<rdf:Description xmlns:GCamera="http://ns.google.com/photos/1.0/camera/" GCamera:MicroVideo="1" GCamera:MicroVideoVersion="1"'
    f' GCamera:MicroVideoOffset="{len(mp4)}" GCamera:MicroVideoPresentationTimestampUs="0"/></rdf:RDF></x:xmpmeta>')
open(os.path.join(out, "microvideo.jpg"), "wb").write(micro + mp4)

name = b"MotionPhoto_Data"
datum = bytes([0, 0, 0x30, 0x0a]) + struct.pack("<I", len(name)) + name + mp4
trailer = b"SEFH" + struct.pack("<II", 106, 1) + bytes([0, 0, 0x30, 0x0a]) + struct.pack("<II", len(datum), len(datum))
open(os.path.join(out, "samsung.jpg"), "wb").write(jpeg + datum + trailer + struct.pack("<I", len(trailer)) + b"SEFT")
open(os.path.join(out, "samsung-xmp.jpg"), "wb").write(google[:] + datum + trailer + struct.pack("<I", len(trailer)) + b"SEFT")

open(os.path.join(out, "samsung.heic"), "wb").write(heif + struct.pack(">I4s", 8 + len(mp4), b"mpvd") + mp4)
open(os.path.join(out, "plain.jpg"), "wb").write(jpeg)
print(f"wrote google.jpg, microvideo.jpg, samsung.jpg, samsung-xmp.jpg, samsung.heic, plain.jpg in {out}")
