import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyValues

/// One rendition's segments as they are written (a `SegmentedOutput` for its muxer): where each starts, how many
/// bytes it took, and the playlist that lists them. Files are `NAME_init.mp4`, `NAME_00001.m4s` … in the output
/// directory.
final class HLSSegments: SegmentedOutput {
    package let name: String
    private let directory: AtomicDirectory
    /// Where a segment may begin: `nil` cuts wherever a keyframe's time is in `cuts` (the video's IDR pictures);
    /// otherwise at the first packet at or after each multiple of `every` (the sound).
    private let every: MediaTime?
    var cuts: Set<MediaTime> = []
    private(set) var segments: [(file: String, start: MediaTime, bytes: Int)] = []
    private(set) var end = MediaTime.zero
    private var current: Int32 = -1
    let initFile: String
    let initFD: Int32

    package init(name: String, directory: AtomicDirectory, every: MediaTime? = nil) throws {
        self.name = name; self.directory = directory; self.every = every
        initFile = "\(name)_init.mp4"
        initFD = try directory.create(initFile)
    }

    /// The rendition's muxer: its header into the init segment, its fragments into the segments, its clock starting
    /// at `start` (Muxer.segmentedStart). It holds these segments weakly: keep them.
    func muxer(startingAt start: MediaTime) throws -> Muxer {
        let muxer = try Muxer(fd: initFD, path: "\(directory.finalPath)/\(initFile)", formatName: "mp4")
        muxer.segments = self
        muxer.segmentedStart = start
        return muxer
    }

    func beginsSegment(at time: MediaTime, keyframe: Bool) -> Bool {
        if let every, let last = segments.last {
            return time >= every.scaled(Int64(segments.count), 1) && time > last.start
        }
        return keyframe && cuts.contains(time)
    }

    func nextSegment(startingAt time: MediaTime) throws -> Int32 {
        try closeCurrent()
        let file = String(format: "%@_%05d.m4s", name, segments.count + 1)
        current = try directory.create(file)
        segments.append((file, time, 0))
        return current
    }

    func wrote(until time: MediaTime) { end = max(end, time) }

    /// After the muxer's last write: the last segment and the init segment are complete.
    package func finish() throws {
        try closeCurrent()
        try directory.finish(initFD)
    }

    private func closeCurrent() throws {
        guard current >= 0, !segments.isEmpty else { return }
        var st = stat()
        if fstat(current, &st) == 0 { segments[segments.count - 1].bytes = Int(st.st_size) }
        try directory.finish(current)
        current = -1
    }

    /// Each segment's length: to the next one's start, the last to the end of what was written.
    var durations: [MediaTime] {
        segments.indices.map { i in (i + 1 < segments.count ? segments[i + 1].start : end) - segments[i].start }
    }

    /// Peak and average bit rate over the segments (bits a second), as BANDWIDTH and AVERAGE-BANDWIDTH count them.
    var bitRates: (peak: Double, average: Double) {
        let lengths = durations
        var peak = 0.0, bytes = 0, total = 0.0
        for (segment, length) in zip(segments, lengths) where length > .zero {
            peak = max(peak, Double(segment.bytes * 8) / length.seconds)
            bytes += segment.bytes
            total += length.seconds
        }
        return (peak, total > 0 ? Double(bytes * 8) / total : 0)
    }

    /// The media playlist (RFC 8216, VOD): every segment with its exact length, the init segment as the map.
    var playlist: String {
        let lengths = durations
        let target = Int((lengths.map(\.seconds).max() ?? 1).rounded(.up))
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(target, 1))", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"\(initFile)\""
        ]
        for (segment, length) in zip(segments, lengths) {
            lines.append(String(format: "#EXTINF:%.6f,", length.seconds))
            lines.append(segment.file)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}
