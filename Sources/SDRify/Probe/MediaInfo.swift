/// What `sdrify probe` knows about a file, read from the headers and the first decoded picture.
public struct MediaInfo: Sendable {
    public var path: String
    public var format: FormatInfo
    public var video: VideoInfo
    public var audio: [AudioInfo]
    public var tracks: [TrackInfo] = []  // every track, in the file's order
    public var chapters: [ChapterInfo] = []
    public var tags: [(key: String, value: String)] = []  // the container's
    public var slowMotion: SlowMotion? = nil  // a phone's slow-motion recording (capture rate, slowed segments)
}

/// One track of any kind, as the container describes it.
public struct TrackInfo: Sendable {
    public var index: Int
    public var type: String  // video, audio, subtitle, data, attachment, unknown (ffprobe's codec_type)
    public var codec: String?  // nil when no codec is known (timed metadata)
    public var codecTag: String?  // the sample entry's four characters (mebx, gpmd, tmcd, tx3g …)
    public var handler: String?
    public var language: String?
    public var title: String?
    public var isDefault: Bool  // the container's default disposition
    public var isForced: Bool
    public var isMain = false  // the video or audio track sdrify converts
    public var timecode: String? = nil
    public var metadataKeys: [String] = []  // a QuickTime 'mebx' track's keys, from its sample description

    /// What the track holds, in words, for the data kinds phones and cameras write.
    public var kind: String {
        switch (type, codecTag) {
        case ("data", "mebx"?): "QuickTime timed metadata"
        case ("data", "gpmd"?): "GPMF telemetry"
        case ("data", "tmcd"?), (_, "tmcd"?): "timecode"
        case ("data", "mett"?), ("data", "metx"?): "timed metadata"
        case ("data", "camm"?): "camera motion metadata"
        default: type
        }
    }
}

public struct ChapterInfo: Sendable {
    public var start: Double, end: Double  // seconds
    public var title: String?
}

public struct FormatInfo: Sendable {
    public var name: String
    public var duration: Double?  // seconds
    public var startTime: Double?  // seconds: the earliest timestamp of any stream
    public var size: Int64?  // bytes
    public var bitRate: Int?  // bit/s
}

public struct AudioInfo: Sendable {
    public var codec: String
    public var sampleRate: Int  // Hz
    public var channels: Int
    public var bitRate: Int?  // bit/s
    public var isDefault: Bool
}

public struct VideoInfo: Sendable {
    public var codec: String
    public var profile: String?
    public var width: Int  // coded
    public var height: Int  // coded
    public var sampleAspectRatio: (num: Int, den: Int)
    public var pixelFormat: String
    public var bitDepth: Int
    public var frameRate: Double?  // frames/s (average)
    public var frameCount: Int?
    public var fieldOrder: String?  // ffprobe's names: progressive, tt, bb, tb, bt; nil if unknown
    public var color: ColorDescription
    public var hdrMetadata: HDRMetadata
    public var dolbyVision: DolbyVisionConfig?
    public var containerMatrix: DisplayMatrix?  // tkhd × mvhd, as FFmpeg exposes it
    public var frameMatrix: DisplayMatrix?  // display-orientation SEI on the first picture
    /// Whether this libavcodec has a decoder for the video (probe describes what it cannot decode; convert refuses it).
    public var decodable = true

    public var hdrKind: HDRKind { color.hdrKind }

    /// The container's orientation, which wins over the SEI as in AVFoundation.
    public var orientation: StreamOrientation {
        guard let m = containerMatrix else { return .known(.up) }
        if let o = Orientation(matrix: m) { return .known(o) }
        return .unsupported(m)
    }

    /// The SEI orientation when it disagrees with the container's (nil when absent or in agreement).
    public var conflictingFrameOrientation: StreamOrientation? {
        guard let fm = frameMatrix else { return nil }
        let fromFrame: StreamOrientation = Orientation(matrix: fm).map { .known($0) } ?? .unsupported(fm)
        return fromFrame == orientation ? nil : fromFrame
    }

    /// The upright picture size in square pixels (what the preset box applies to).
    public var displaySize: (width: Int, height: Int) {
        guard case .known(let o) = orientation else {
            return VideoInfo.uprightSize(width: width, height: height, sar: sampleAspectRatio, orientation: .up)
        }
        return VideoInfo.uprightSize(width: width, height: height, sar: sampleAspectRatio, orientation: o)
    }

    /// Coded size swapped for the transposing orientations, with the sample aspect ratio inverted along with
    /// it and then applied to the upright width.
    public static func uprightSize(width: Int, height: Int, sar: (num: Int, den: Int), orientation: Orientation) -> (width: Int, height: Int) {
        var (w, h) = orientation.uprightSize(width: width, height: height)
        var (sn, sd) = sar
        if orientation.swapsDimensions { (sn, sd) = (sd, sn) }
        if sn > 0, sd > 0, sn != sd { w = Int((Double(w) * Double(sn) / Double(sd)).rounded()) }
        return (w, h)
    }
}
