import Foundation

/// How many segments of media a track's edit list presents (ISO-BMFF `elst` entries other than empty edits), read
/// from the file's movie box: FFmpeg 5.1 applies the edit list but does not say what it was.
enum EditList {
    /// The count for the track with ID `trackID`; 1 when the track has no edit list, nil when the file is not
    /// ISO-BMFF or the track is not found.
    static func segments(path: String, trackID: Int) -> Int? {
        guard let top = TopLevelBoxes(path: path), let moovBox = top.boxes.first(where: { $0.type == "moov" }),
            let moov = top.payload(of: moovBox, path: path, limit: 64 << 20)
        else { return nil }
        typealias Q = QuickTimeMetadata
        for trak in Q.children(moov, type: "trak") {
            guard let tkhd = Q.children(trak, type: "tkhd").first, tkhd.count >= 16,
                Int(Q.u32(tkhd, tkhd[tkhd.startIndex] == 1 ? 20 : 12)) == trackID
            else { continue }
            guard let elst = Q.children(trak, type: "edts").flatMap({ Q.children($0, type: "elst") }).first,
                elst.count >= 8
            else { return 1 }
            let long = elst[elst.startIndex] == 1  // version 1: 64-bit duration and media time
            let entry = long ? 20 : 12, count = Int(Q.u32(elst, 4))
            var segments = 0
            for i in 0..<min(count, (elst.count - 8) / entry) {
                let at = 8 + i * entry + (long ? 8 : 4)  // media time, after the segment duration
                let empty = long ? Q.u64(elst, at) == UInt64.max : Q.u32(elst, at) == UInt32.max  // −1: an empty edit
                if !empty { segments += 1 }
            }
            return segments
        }
        return nil
    }
}
