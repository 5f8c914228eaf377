import Foundation
import SDRifyValues

/// What a phone's slow-motion recording says about itself. Samsung writes the capture rate and the count of SVC
/// temporal layers in an `smta` box (moov/udta) and the slowed parts in an SEF trailer at the end of the file
/// (`SlowMotion_Data`: "start:end:mode" in milliseconds of file time, `*` between segments, mode m slowing by
/// 2^(m−1)); other Android phones tag only `com.android.capture.fps`. The file itself plays at 30 pictures per
/// second of file time, so a plain player shows the whole capture slowed. Samsung "super slow motion" is stored
/// already slowed: it has no segments to flatten.
package struct SlowMotion: Sendable, Equatable {
    package struct Segment: Sendable, Equatable {
        package let start: MediaTime, end: MediaTime  // file time
        package let divisor: Int  // slowed this many times
    }

    /// Pictures per second of the capture (nil: not stated).
    package var captureRate: Int?
    /// SVC temporal layers of the video (smta; nil: not stated).
    package var temporalLayers: Int?
    /// The parts slowed down, in file order (empty: none stated).
    package var segments: [Segment] = []
    /// The SEF trailer holds Samsung super-slow-motion data (already slowed: kept as it is).
    var superSlowMotion = false
    /// Why the slow-motion data could not be read (a damaged trailer or box), or nil.
    package var damage: String? = nil

    /// The rate the file plays its pictures at: the capture is spread over this many pictures per second.
    package static let fileRate: Int64 = 30
    /// The largest slowing a segment's mode may ask for (mode 7: 64×).
    static let maxDivisor = 64

    /// Whether there is anything slow-motion to say: slowed segments, super slow motion, or a capture rate of a
    /// slow-motion mode (phones tag ordinary 60 fps recordings with their rate too: that is not slow motion).
    var isSlowMotion: Bool { (captureRate ?? 0) >= SlowMotion.slowCaptureRate || !segments.isEmpty || superSlowMotion }

    /// The lowest capture rate phones' slow-motion modes use.
    package static let slowCaptureRate = 120

    /// Whether it can be played as the phone's gallery plays it: segments, and a capture rate that is a multiple
    /// of the file's 30.
    var canFlatten: Bool {
        guard damage == nil, !segments.isEmpty, let c = captureRate else { return false }
        return c > 0 && Int64(c) % SlowMotion.fileRate == 0
    }

    /// The gallery's timing (androidx media3's SefSlowMotionFlattener): a picture at file time t lands at
    /// (t + Σ finished segments' length × (divisor − 1) + the current segment's elapsed part × (divisor − 1)) ×
    /// 30 / capture rate, i.e. real time outside the segments and slowed by each divisor inside. nil when
    /// `canFlatten` is false.
    package var flattening: TimeMap? {
        guard canFlatten, let c = captureRate else { return nil }
        let real = (num: SlowMotion.fileRate, den: Int64(c))
        var pieces = [TimeMap.Piece(source: .zero, num: real.num, den: real.den)]
        var reached = MediaTime.zero
        for s in segments where s.end > max(s.start, reached) {
            let start = max(s.start, reached)
            pieces.append(TimeMap.Piece(source: start, num: real.num * Int64(s.divisor), den: real.den))
            pieces.append(TimeMap.Piece(source: s.end, num: real.num, den: real.den))
            reached = s.end
        }
        return TimeMap(pieces: pieces.filter { $0.source > .zero || $0 == pieces[0] }.reducingRepeats())
    }

    /// Reads what `path` says: its smta box, its SEF trailer, and the capture-rate tag of its container
    /// (`captureTag`). nil when none of it is there.
    package static func read(path: String, captureTag: String?) -> SlowMotion? {
        var sm = SlowMotion()
        if let tag = captureTag, let fps = Double(tag.trimmingCharacters(in: .whitespaces)), fps.isFinite, fps >= 1, fps < 100_000 {
            sm.captureRate = Int(fps.rounded())
        }
        if let top = TopLevelBoxes(path: path) {
            if let moov = top.boxes.first(where: { $0.type == "moov" }), let data = top.payload(of: moov, path: path, limit: 64 << 20),
                let smta = SlowMotion.smta(inMovie: data)
            {
                sm.captureRate = smta.captureRate
                sm.temporalLayers = smta.layers
            }
        }
        do {
            if let sef = try SEFTrailer(path: path) {
                sm.segments = sef.segments
                sm.superSlowMotion = sef.superSlowMotion
            }
        } catch let e as SDRifyError {
            sm.damage = e.message
        } catch {
            sm.damage = "damaged SEF trailer"
        }
        return sm.isSlowMotion || sm.damage != nil ? sm : nil
    }

    /// The capture rate and temporal-layer count of the movie's `udta/smta/saut` box: after the author (4 bytes)
    /// and a reserved byte, the recording mode (12: 240 pictures/s, 13: 120), a reserved byte, the layer count.
    static func smta(inMovie moov: Data) -> (captureRate: Int, layers: Int)? {
        // Any of the movie's user-data boxes may hold it (a file edited by other tools can have two).
        guard
            let saut = Boxes.children("udta", in: moov).lazy.compactMap({ udta in
                Boxes.child("smta", in: udta).flatMap { Boxes.child("saut", in: $0, skip: 4) }
            }).first,
            saut.count >= 8
        else { return nil }
        let b = [UInt8](saut)
        let rate: Int
        switch b[5] {
        case 12: rate = 240
        case 13: rate = 120
        default: return nil
        }
        return (rate, Int(b[7]))
    }
}

extension [TimeMap.Piece] {
    /// Pieces that start where the one before started are dropped (the later wins); equal rates merge.
    fileprivate func reducingRepeats() -> [TimeMap.Piece] {
        var out: [TimeMap.Piece] = []
        for p in self {
            if let last = out.last, last.source == p.source { out[out.count - 1] = p; continue }
            if let last = out.last, last.num * p.den == p.num * last.den { continue }
            out.append(p)
        }
        return out
    }
}

/// Samsung's SEF trailer: the file ends with the trailer's length (little-endian, 4 bytes) and "SEFT"; the trailer
/// starts with "SEFH", a version and a count of directory entries (12 bytes each: flags, type, the distance back
/// from the trailer to the data, its size); each datum starts with its type, its name's length and its name.
struct SEFTrailer {
    var segments: [SlowMotion.Segment] = []
    var superSlowMotion = false

    /// One datum of the trailer: its name and where its bytes (after the name) lie in the file.
    struct Entry { let name: String, offset: UInt64, length: UInt64 }

    /// nil when the file has no trailer; throws (invalid input) when it has a damaged one.
    package init?(path: String) throws {
        guard let entries = try SEFTrailer.entries(path: path) else { return nil }
        for entry in entries {
            switch entry.name {
            case "SlowMotion_Data": segments = try SEFTrailer.segments(try SEFTrailer.text(of: entry, path: path))
            case let n where n.hasPrefix("Super_SlowMotion"): superSlowMotion = true
            default: continue
            }
        }
    }

    /// The entry called `name`, if the file has a trailer with one.
    static func entry(_ name: String, path: String) throws -> Entry? { try entries(path: path)?.first { $0.name == name } }

    package static func text(of entry: Entry, path: String) throws -> String {
        guard entry.length <= 1 << 20, let h = FileHandle(forReadingAtPath: path) else { throw damaged("entry \(entry.name) is too large") }
        defer { try? h.close() }
        guard (try? h.seek(toOffset: entry.offset)) != nil, let d = try? h.read(upToCount: Int(entry.length)), d.count == Int(entry.length) else {
            throw damaged("cut short")
        }
        return String(decoding: d, as: UTF8.self)
    }

    /// Every entry of the trailer (nil: none); each checked to lie inside the file.
    static func entries(path: String) throws -> [Entry]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 8 else { return nil }
        func read(_ offset: UInt64, _ count: Int) throws -> Data {
            guard (try? handle.seek(toOffset: offset)) != nil, let d = try? handle.read(upToCount: count), d.count == count else {
                throw SEFTrailer.damaged("cut short")
            }
            return d
        }
        let foot = try read(size - 8, 8)
        guard foot.suffix(4) == Data("SEFT".utf8) else { return nil }
        let tail = UInt64(SEFTrailer.le32(foot, 0)) + 8  // the trailer with its footer
        guard tail >= 20, tail <= size, tail <= 1 << 20 else { throw SEFTrailer.damaged("its length \(tail) does not fit the file") }
        let trailer = try read(size - tail, Int(tail))
        guard trailer.prefix(4) == Data("SEFH".utf8) else { throw SEFTrailer.damaged("no SEFH header where its length points") }
        let count = Int(SEFTrailer.le32(trailer, 8))
        guard count >= 0, 12 + count * 12 + 8 <= trailer.count else { throw SEFTrailer.damaged("\(count) entries do not fit") }
        var entries: [Entry] = []
        for i in 0..<count {
            let at = 12 + i * 12
            // The distance is counted back from where the trailer starts; a movie's datum may be large.
            let back = UInt64(SEFTrailer.le32(trailer, at + 4)), length = UInt64(SEFTrailer.le32(trailer, at + 8))
            guard back <= size - tail, length >= 8, length <= back else { throw SEFTrailer.damaged("entry \(i + 1) points outside the file") }
            let start = size - tail - back
            let head = try read(start, 8)
            let nameLength = UInt64(SEFTrailer.le32(head, 4))
            guard nameLength <= 256, 8 + nameLength <= length else { throw SEFTrailer.damaged("entry \(i + 1)'s name runs past its data") }
            let name = String(decoding: try read(start + 8, Int(nameLength)), as: UTF8.self)
            entries.append(Entry(name: name, offset: start + 8 + nameLength, length: length - 8 - nameLength))
        }
        return entries
    }

    /// "start:end:mode" in milliseconds, `*` between segments; mode m slows by 2^(m−1).
    static func segments(_ text: String) throws -> [SlowMotion.Segment] {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "\0").union(.whitespacesAndNewlines))
        guard !trimmed.isEmpty else { return [] }
        let segments = try trimmed.split(separator: "*", omittingEmptySubsequences: false).map { part in
            let v = part.split(separator: ":", omittingEmptySubsequences: false).map { Int64($0) }
            guard v.count == 3, let start = v[0], let end = v[1], let mode = v[2], start >= 0, end > start, end < 1 << 40,
                mode >= 1, mode <= Int64(SlowMotion.maxDivisor.trailingZeroBitCount) + 1  // slowed 2^(mode−1), at most maxDivisor
            else { throw damaged("the slow-motion segment \"\(part.prefix(40))\" is not start:end:mode") }
            return SlowMotion.Segment(
                start: MediaTime(value: start, timescale: 1000), end: MediaTime(value: end, timescale: 1000), divisor: 1 << (mode - 1))
        }
        return segments.sorted { $0.start < $1.start }
    }

    static func damaged(_ what: String) -> SDRifyError { .invalidInput("damaged SEF trailer (Samsung slow-motion data): \(what)") }

    static func le32(_ d: Data, _ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(d[d.startIndex + at + $1]) << (8 * UInt32($1)) }
    }
}
