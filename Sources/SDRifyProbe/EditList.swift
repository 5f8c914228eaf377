import Foundation

/// How many segments of media a track's edit list presents (ISO-BMFF `elst` entries other than empty edits), read
/// from the file's movie box: FFmpeg 5.1 applies the edit list but does not say what it was.
package enum EditList {
    /// The count for the track with ID `trackID`; 1 when the track has no edit list, nil when the file is not
    /// ISO-BMFF or the track is not found.
    package static func segments(path: String, trackID: Int) -> Int? {
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return nil }
        typealias Q = QuickTimeMetadata
        for trak in Q.children(moov, type: "trak") {
            guard let tkhd = Q.children(trak, type: "tkhd").first, tkhd.count >= 16,
                Int(Q.u32(tkhd, tkhd[tkhd.startIndex] == 1 ? 20 : 12)) == trackID
            else { continue }
            return mediaTimes(trak).map { times in times.filter { $0 != -1 }.count } ?? 1
        }
        return nil
    }

    /// A movie box's edit lists that point before their media: a media time below −1 (−1 alone marks an empty
    /// edit). The demuxer reads such a list without a word and loses pictures or shifts the sound.
    static func problem(inMovie moov: Data) -> String? {
        typealias Q = QuickTimeMetadata
        for (n, trak) in Q.children(moov, type: "trak").enumerated() {
            if let bad = mediaTimes(trak)?.first(where: { $0 < -1 }) {
                return "damaged edit list: track \(n + 1) starts its media at \(bad), before its first sample"
            }
        }
        return nil
    }

    /// The media time of every entry of a track's edit list (signed; −1 is an empty edit), nil without one.
    private static func mediaTimes(_ trak: Data) -> [Int64]? {
        typealias Q = QuickTimeMetadata
        guard let elst = Q.children(trak, type: "edts").flatMap({ Q.children($0, type: "elst") }).first, elst.count >= 8 else {
            return nil
        }
        let long = elst[elst.startIndex] == 1  // version 1: 64-bit duration and media time
        let entry = long ? 20 : 12, count = Int(Q.u32(elst, 4))
        return (0..<min(count, (elst.count - 8) / entry)).map { i in
            let at = 8 + i * entry + (long ? 8 : 4)  // media time, after the segment duration
            return long ? Int64(bitPattern: Q.u64(elst, at)) : Int64(Int32(bitPattern: Q.u32(elst, at)))
        }
    }
}
