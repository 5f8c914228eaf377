import Foundation
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyValues

/// `--metadata keep`'s timed-metadata tracks (GoPro GPMF `gpmd`, QuickTime `mebx` with its keys, `camm`, `mett`,
/// `metx`): FFmpeg's muxer cannot write them, so they are added to the finished output here, box by box: each track's
/// own sample description (so `mebx` keeps its key table) and its samples, retimed by the conversion's clock (the
/// cut, a speed, slow motion) and cut to the output's length.
struct DataTrack {
    var sampleEntry: Data  // the input's stsd entry, whole (size, format, contents)
    var format: String
    var handler: String  // hdlr handler type ('meta')
    var handlerName: String
    var timescale: UInt32
    package var language: UInt16  // mdhd's packed ISO 639-2 (0x55C4: und)
    var samples: [(start: Int64, duration: Int64, bytes: Data)]  // in timescale ticks, on the output's clock

    /// The kinds of data track carried over.
    static let formats: Set<String> = ["gpmd", "mebx", "camm", "mett", "metx"]

    /// The input's timed-metadata tracks, retimed by `clock` (source → output) and cut to `length` (nil: no cut).
    static func read(from path: String, demuxer: Demuxer, clock: ClipClock, length: MediaTime?) throws -> [DataTrack] {
        let tracks = (0..<demuxer.trackCount).filter { demuxer.isDataTrack($0) && DataTrack.formats.contains(demuxer.track($0).codecTag ?? "") }
        guard !tracks.isEmpty, let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return [] }
        let samples = try demuxer.dataSamples()
        var out: [DataTrack] = []
        for index in tracks {
            guard var track = DataTrack.described(trackID: demuxer.containerTrackID(index), in: moov) else { continue }
            guard track.timescale <= UInt32(Int32.max) else { continue }
            let ticks = TimeBase(num: 1, den: Int32(track.timescale))
            for s in samples where s.track == index {
                let start = s.time, end = s.time + s.duration
                if clock.isCut, end <= clock.start { continue }
                if let cutEnd = clock.end, start >= cutEnd { continue }
                let from = max(clock.output(max(start, clock.start)), .zero)
                var to = clock.output(end)
                if let length { to = min(to, length) }
                guard to > from else { continue }
                let a = from.ticks(ticks), b = to.ticks(ticks)
                track.samples.append((a, max(1, b - a), s.bytes))
            }
            if !track.samples.isEmpty { out.append(track) }
        }
        return out
    }

    /// A track's description from the input's movie box: its first sample entry, media time scale, language and
    /// handler.
    static func described(trackID: Int, in moov: Data) -> DataTrack? {
        for trak in Boxes.children("trak", in: moov) {
            guard let tkhd = Boxes.child("tkhd", in: trak), tkhd.count >= 24 else { continue }
            let id = Int(QuickTimeMetadata.u32(tkhd, tkhd[tkhd.startIndex] == 1 ? 20 : 12))
            guard id == trackID, let mdia = Boxes.child("mdia", in: trak), let mdhd = Boxes.child("mdhd", in: mdia),
                let hdlr = Boxes.child("hdlr", in: mdia), hdlr.count >= 24,
                let stbl = Boxes.child("minf", in: mdia).flatMap({ Boxes.child("stbl", in: $0) }),
                let stsd = Boxes.child("stsd", in: stbl), stsd.count >= 16
            else { continue }
            let v1 = mdhd[mdhd.startIndex] == 1
            guard mdhd.count >= (v1 ? 34 : 22) else { continue }
            let timescale = QuickTimeMetadata.u32(mdhd, v1 ? 20 : 12)
            let language = UInt16(QuickTimeMetadata.u32(mdhd, v1 ? 32 : 20) >> 16)
            let entrySize = Int(QuickTimeMetadata.u32(stsd, 8))
            guard timescale > 0, entrySize >= 16, 8 + entrySize <= stsd.count else { continue }
            let entry = Data(stsd[(stsd.startIndex + 8)..<(stsd.startIndex + 8 + entrySize)])
            let name = String(decoding: hdlr.dropFirst(24).prefix { $0 != 0 }, as: UTF8.self)
            return DataTrack(
                sampleEntry: entry, format: Boxes.fourcc(entry, 4), handler: Boxes.fourcc(hdlr, 8), handlerName: name, timescale: timescale,
                language: language, samples: [])
        }
        return nil
    }
}

/// Adds tracks to a finished MP4/MOV through its descriptor: the movie box grows by the new tracks (what follows it
/// moves down by as much, copied in place from the end, as FFmpeg's fast start does; every chunk offset past the
/// movie box moves with it) and the samples go in a media data box at the end.
enum MovieAppender {
    static func add(_ tracks: [DataTrack], fd: Int32, path: String) throws {
        func fail(_ what: String) -> SDRifyError { .conversion("\(path): adding the timed-metadata tracks: \(what)") }
        func read(_ at: Int64, _ n: Int) throws -> Data {
            var d = Data(count: n)
            let got = d.withUnsafeMutableBytes { pread(fd, $0.baseAddress, n, off_t(at)) }
            guard got == n else { throw fail("cannot read the output back") }
            return d
        }
        func write(_ d: Data, at: Int64) throws {
            let done = d.withUnsafeBytes { pwrite(fd, $0.baseAddress, d.count, off_t(at)) }
            guard done == d.count else { throw SDRifyError(.outputProblem, "\(path): cannot write (\(String(cString: strerror(errno))))") }
        }
        let size = Int64(lseek(fd, 0, SEEK_END))
        // The top-level boxes.
        var at: Int64 = 0, moov: (offset: Int64, size: Int64)? = nil
        while at + 8 <= size {
            let head = try read(at, 16 <= size - at ? 16 : 8)
            var boxSize = Int64(QuickTimeMetadata.u32(head, 0))
            if boxSize == 1, head.count == 16 { boxSize = Int64(QuickTimeMetadata.u64(head, 8)) }
            if boxSize == 0 { boxSize = size - at }
            guard boxSize >= 8, boxSize <= size - at else { throw fail("its boxes do not hold together") }
            if Boxes.fourcc(head, 4) == "moov" { moov = (at, boxSize) }
            at += boxSize
        }
        guard let moov else { throw fail("no movie box") }
        let old = try read(moov.offset + 8, Int(moov.size - 8))
        var children = try Boxes.all(old, in: "'moov'", damage: fail)
        guard let mvhd = children.first(where: { $0.type == "mvhd" })?.payload, mvhd.count >= 32 else { throw fail("no movie header") }
        let v1 = mvhd[mvhd.startIndex] == 1
        let movieScale = QuickTimeMetadata.u32(mvhd, v1 ? 20 : 12)
        let nextIDAt = v1 ? 108 : 96
        guard mvhd.count >= nextIDAt + 4, movieScale > 0 else { throw fail("a movie header too short") }
        let firstID = QuickTimeMetadata.u32(mvhd, nextIDAt)
        let videoID =
            children.first { $0.type == "trak" }.flatMap { Boxes.child("tkhd", in: $0.payload) }.map {
                QuickTimeMetadata.u32($0, $0[$0.startIndex] == 1 ? 20 : 12)
            } ?? 1

        // New tracks first with placeholder offsets (their size does not depend on them), to know how far the
        // rest moves.
        func traks(mdatData: Int64) -> [Data] {
            var offset = mdatData
            return tracks.enumerated().map { n, t in
                let offsets = t.samples.map { s -> Int64 in
                    defer { offset += Int64(s.bytes.count) }; return offset
                }
                return trak(t, id: firstID + UInt32(n), movieScale: movieScale, offsets: offsets, describes: t.format == "mebx" ? videoID : nil)
            }
        }
        let grow = Int64(traks(mdatData: 0).reduce(0) { $0 + $1.count })
        let moovEnd = moov.offset + moov.size
        // Existing chunk offsets past the movie box move with what follows it.
        for i in children.indices where children[i].type == "trak" {
            children[i] = Boxes.Box(type: "trak", payload: try shiftChunkOffsets(children[i].payload, after: moovEnd, by: grow, fail: fail))
        }
        if let i = children.firstIndex(where: { $0.type == "mvhd" }) {
            var header = children[i].payload
            header.replaceSubrange((header.startIndex + nextIDAt)..<(header.startIndex + nextIDAt + 4), with: be32(firstID + UInt32(tracks.count)))
            children[i] = Boxes.Box(type: "mvhd", payload: header)
        }
        let newSize = size + grow
        let added = traks(mdatData: newSize + 16)  // after the new media data box's 16-byte header
        var body = Data()
        for c in children { body += box(c.type, c.payload) }
        for t in added { body += t }
        let newMoov = box("moov", body)
        guard Int64(newMoov.count) == moov.size + grow else { throw fail("a movie box of an unexpected size") }
        // Move what follows the movie box down, from the end, in blocks.
        let block: Int64 = 8 << 20
        var end = size
        while end > moovEnd {
            let start = max(moovEnd, end - block)
            try write(try read(start, Int(end - start)), at: start + grow)
            end = start
        }
        try write(newMoov, at: moov.offset)
        // The samples, in a 64-bit media data box.
        var mdat = Data()
        mdat += be32(1) + Data("mdat".utf8)
        let payload = tracks.reduce(0) { $0 + $1.samples.reduce(0) { $0 + $1.bytes.count } }
        mdat += be64(UInt64(16 + payload))
        for t in tracks { for s in t.samples { mdat += s.bytes } }
        try write(mdat, at: newSize)
    }

    /// `stco`/`co64` entries past `after` moved by `by` (a 32-bit offset that would overflow is refused: such a file
    /// needs 64-bit offsets, which is past what this rewrite does).
    static func shiftChunkOffsets(_ trak: Data, after: Int64, by: Int64, fail: (String) -> SDRifyError) throws -> Data {
        let containers: Set<String> = ["mdia", "minf", "stbl"]
        var out = Data()
        for b in try Boxes.all(trak, in: "'trak'", damage: fail) {
            if containers.contains(b.type) {
                out += box(b.type, try shiftChunkOffsets(b.payload, after: after, by: by, fail: fail))
            } else if b.type == "stco" || b.type == "co64", b.payload.count >= 8 {
                var p = b.payload
                let wide = b.type == "co64", n = Int(QuickTimeMetadata.u32(p, 4)), step = wide ? 8 : 4
                guard 8 + n * step <= p.count else { throw fail("a chunk table cut short") }
                for k in 0..<n {
                    let at = 8 + k * step
                    let v = wide ? Int64(QuickTimeMetadata.u64(p, at)) : Int64(QuickTimeMetadata.u32(p, at))
                    guard v >= after else { continue }
                    let moved = v + by
                    if wide {
                        p.replaceSubrange((p.startIndex + at)..<(p.startIndex + at + 8), with: be64(UInt64(moved)))
                    } else {
                        guard moved <= Int64(UInt32.max) else { throw fail("the output passes 4 GB with 32-bit chunk offsets") }
                        p.replaceSubrange((p.startIndex + at)..<(p.startIndex + at + 4), with: be32(UInt32(moved)))
                    }
                }
                out += box(b.type, p)
            } else {
                out += box(b.type, b.payload)
            }
        }
        return out
    }

    /// One data track: one sample per chunk, its times as `stts` runs, an edit list when it starts after 0.
    static func trak(_ t: DataTrack, id: UInt32, movieScale: UInt32, offsets: [Int64], describes: UInt32?) -> Data {
        let first = t.samples.first?.start ?? 0
        let last = t.samples.last.map { $0.start + $0.duration } ?? 0
        let mediaDuration = UInt64(max(0, last - first))
        func movieTicks(_ ticks: Int64) -> UInt64 { UInt64(max(0, (Double(ticks) * Double(movieScale) / Double(t.timescale)).rounded())) }
        let trackDuration = movieTicks(last)
        var matrix = Data()
        for v: UInt32 in [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000] { matrix += be32(v) }
        let tkhd = fullBox(
            "tkhd", 1, 1, be64(0) + be64(0) + be32(id) + be32(0) + be64(trackDuration) + Data(count: 8) + Data(count: 8) + matrix + be32(0) + be32(0))
        // The edit list states the track's span (readers otherwise stretch a last sample to the movie's end), after
        // an empty edit when it starts after 0.
        let empty = first > 0 ? be64(movieTicks(first)) + be64(UInt64.max) + be32(0x10000) : Data()  // media time −1: nothing
        let shown = be64(movieTicks(last - first)) + be64(0) + be32(0x10000)
        let edts = box("edts", fullBox("elst", 1, 0, be32(first > 0 ? 2 : 1) + empty + shown))
        // Durations as runs; each sample lasts until the next one starts (the last one its own length).
        var deltas: [Int64] = []
        for (k, s) in t.samples.enumerated() { deltas.append(k + 1 < t.samples.count ? max(1, t.samples[k + 1].start - s.start) : s.duration) }
        var runs: [(count: UInt32, delta: UInt32)] = []
        for d in deltas {
            let d32 = UInt32(clamping: d)
            if let lastRun = runs.last, lastRun.delta == d32 { runs[runs.count - 1].count += 1 } else { runs.append((1, d32)) }
        }
        let stts = fullBox("stts", 0, 0, be32(UInt32(runs.count)) + runs.reduce(Data()) { $0 + be32($1.count) + be32($1.delta) })
        let stsc = fullBox("stsc", 0, 0, be32(1) + be32(1) + be32(1) + be32(1))
        let stsz = fullBox("stsz", 0, 0, be32(0) + be32(UInt32(t.samples.count)) + t.samples.reduce(Data()) { $0 + be32(UInt32($1.bytes.count)) })
        let co64 = fullBox("co64", 0, 0, be32(UInt32(offsets.count)) + offsets.reduce(Data()) { $0 + be64(UInt64($1)) })
        let stsd = fullBox("stsd", 0, 0, be32(1) + t.sampleEntry)
        let stbl = box("stbl", stsd + stts + stsc + stsz + co64)
        let dinf = box("dinf", fullBox("dref", 0, 0, be32(1) + fullBox("url ", 0, 1, Data())))
        let minf = box("minf", fullBox("nmhd", 0, 0, Data()) + dinf + stbl)
        let name = Data(t.handlerName.utf8) + Data([0])
        let hdlr = fullBox("hdlr", 0, 0, be32(0) + Data(t.handler.utf8.prefix(4)) + Data(count: 12) + name)
        let mdhd = fullBox("mdhd", 1, 0, be64(0) + be64(0) + be32(t.timescale) + be64(mediaDuration) + be16(t.language) + be16(0))
        let tref = describes.map { box("tref", box("cdsc", be32($0))) } ?? Data()
        return box("trak", tkhd + tref + edts + box("mdia", mdhd + hdlr + minf))
    }

    package static func box(_ type: String, _ payload: Data) -> Data { be32(UInt32(8 + payload.count)) + Data(type.utf8) + payload }
    static func fullBox(_ type: String, _ version: UInt8, _ flags: UInt32, _ payload: Data) -> Data {
        box(type, be32(UInt32(version) << 24 | flags) + payload)
    }
    static func be16(_ v: UInt16) -> Data { Data([UInt8(v >> 8), UInt8(v & 0xFF)]) }
    static func be32(_ v: UInt32) -> Data { Data([UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]) }
    static func be64(_ v: UInt64) -> Data { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
}
