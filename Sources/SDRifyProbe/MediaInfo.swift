import SDRifyValues

/// What `sdrify probe` knows about a file, read from the headers and the first decoded picture.
package struct MediaInfo: Sendable {
    package var path: String
    package var format: FormatInfo
    package var video: VideoInfo
    package var audio: [AudioInfo]
    package var tracks: [TrackInfo] = []  // every track, in the file's order
    package var chapters: [ChapterInfo] = []
    package var tags: [(key: String, value: String)] = []  // the container's
    package var slowMotion: SlowMotion? = nil  // a phone's slow-motion recording (capture rate, slowed segments)

    package init(
        path: String, format: FormatInfo, video: VideoInfo, audio: [AudioInfo], tracks: [TrackInfo] = [], chapters: [ChapterInfo] = [],
        tags: [(key: String, value: String)] = [], slowMotion: SlowMotion? = nil
    ) {
        self.path = path
        self.format = format
        self.video = video
        self.audio = audio
        self.tracks = tracks
        self.chapters = chapters
        self.tags = tags
        self.slowMotion = slowMotion
    }
}

/// One track of any kind, as the container describes it.
package struct TrackInfo: Sendable {
    package var index: Int
    package var type: String  // video, audio, subtitle, data, attachment, unknown (ffprobe's codec_type)
    var codec: String?  // nil when no codec is known (timed metadata)
    package var codecTag: String?  // the sample entry's four characters (mebx, gpmd, tmcd, tx3g …)
    var handler: String?
    package var language: String?
    var title: String?
    var isDefault: Bool  // the container's default disposition
    var isForced: Bool
    package var isMain = false  // the video or audio track sdrify converts
    package var timecode: String? = nil
    package var metadataKeys: [String] = []  // a QuickTime 'mebx' track's keys, from its sample description

    /// What the track holds, in words, for the data kinds phones and cameras write.
    var kind: String {
        switch (type, codecTag) {
        case ("data", "mebx"?): "QuickTime timed metadata"
        case ("data", "gpmd"?): "GPMF telemetry"
        case ("data", "tmcd"?), (_, "tmcd"?): "timecode"
        case ("data", "mett"?), ("data", "metx"?): "timed metadata"
        case ("data", "camm"?): "camera motion metadata"
        default: type
        }
    }

    package init(
        index: Int, type: String, codec: String? = nil, codecTag: String? = nil, handler: String? = nil, language: String? = nil,
        title: String? = nil, isDefault: Bool, isForced: Bool, timecode: String? = nil, metadataKeys: [String] = []
    ) {
        self.index = index
        self.type = type
        self.codec = codec
        self.codecTag = codecTag
        self.handler = handler
        self.language = language
        self.title = title
        self.isDefault = isDefault
        self.isForced = isForced
        self.timecode = timecode
        self.metadataKeys = metadataKeys
    }
}

package struct ChapterInfo: Sendable {
    var start: Double, end: Double  // seconds
    var title: String?

    package init(start: Double, end: Double, title: String? = nil) {
        self.start = start
        self.end = end
        self.title = title
    }
}

package struct FormatInfo: Sendable {
    package var name: String
    package var duration: MediaTime?
    package var startTime: MediaTime?  // the earliest timestamp of any stream
    package var size: Int64?  // bytes
    var bitRate: Int?  // bit/s

    package init(name: String, duration: MediaTime? = nil, startTime: MediaTime? = nil, size: Int64? = nil, bitRate: Int? = nil) {
        self.name = name
        self.duration = duration
        self.startTime = startTime
        self.size = size
        self.bitRate = bitRate
    }
}

package struct AudioInfo: Sendable {
    var codec: String
    var sampleRate: Int  // Hz
    var channels: Int
    var bitRate: Int?  // bit/s
    var isDefault: Bool

    package init(codec: String, sampleRate: Int, channels: Int, bitRate: Int? = nil, isDefault: Bool) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitRate = bitRate
        self.isDefault = isDefault
    }
}

package struct VideoInfo: Sendable {
    package var codec: String
    package var profile: String?
    package var width: Int  // coded
    package var height: Int  // coded
    var sampleAspectRatio: (num: Int, den: Int)
    package var pixelFormat: String
    package var bitDepth: Int
    var frameRate: Double?  // frames/s (average)
    /// The rate the clip was shot at (`Demuxer.nominalFrameRate`: the median picture step snapped to a standard rate;
    /// a phone's 29.97 fps clip that dropped pictures averages 28): what probe, reports and HLS call its rate.
    package var nominalFrameRate: Double? = nil
    var frameCount: Int?
    package var fieldOrder: String?  // ffprobe's names: progressive, tt, bb, tb, bt; nil if unknown
    package var color: ColorDescription
    package var hdrMetadata: HDRMetadata
    package var dolbyVision: DolbyVisionConfig?
    var containerMatrix: DisplayMatrix?  // tkhd × mvhd, as FFmpeg exposes it
    package var frameMatrix: DisplayMatrix?  // display-orientation SEI on the first picture
    /// Whether this libavcodec has a decoder for the video (probe describes what it cannot decode; convert refuses it).
    package var decodable = true

    package var hdrKind: HDRKind { color.hdrKind }

    /// The container's orientation, which wins over the SEI as in AVFoundation.
    package var orientation: StreamOrientation {
        guard let m = containerMatrix else { return .known(.up) }
        if let o = Orientation(matrix: m) { return .known(o) }
        return .unsupported(m)
    }

    /// The SEI orientation when it disagrees with the container's (nil when absent or in agreement).
    package var conflictingFrameOrientation: StreamOrientation? {
        guard let fm = frameMatrix else { return nil }
        let fromFrame: StreamOrientation = Orientation(matrix: fm).map { .known($0) } ?? .unsupported(fm)
        return fromFrame == orientation ? nil : fromFrame
    }

    /// The upright picture size in square pixels (what the preset box applies to).
    package var displaySize: (width: Int, height: Int) {
        guard case .known(let o) = orientation else {
            return VideoInfo.uprightSize(width: width, height: height, sar: sampleAspectRatio, orientation: .up)
        }
        return VideoInfo.uprightSize(width: width, height: height, sar: sampleAspectRatio, orientation: o)
    }

    /// Coded size swapped for the transposing orientations, with the sample aspect ratio inverted along with
    /// it and then applied to the upright width.
    package static func uprightSize(width: Int, height: Int, sar: (num: Int, den: Int), orientation: Orientation) -> (width: Int, height: Int) {
        var (w, h) = orientation.uprightSize(width: width, height: height)
        var (sn, sd) = sar
        if orientation.swapsDimensions { (sn, sd) = (sd, sn) }
        if sn > 0, sd > 0, sn != sd { w = Int((Double(w) * Double(sn) / Double(sd)).rounded()) }
        return (w, h)
    }

    package init(
        codec: String, profile: String? = nil, width: Int, height: Int, sampleAspectRatio: (num: Int, den: Int), pixelFormat: String, bitDepth: Int,
        frameRate: Double? = nil, frameCount: Int? = nil, fieldOrder: String? = nil, color: ColorDescription, hdrMetadata: HDRMetadata,
        dolbyVision: DolbyVisionConfig? = nil, containerMatrix: DisplayMatrix? = nil, frameMatrix: DisplayMatrix? = nil, decodable: Bool = true
    ) {
        self.codec = codec
        self.profile = profile
        self.width = width
        self.height = height
        self.sampleAspectRatio = sampleAspectRatio
        self.pixelFormat = pixelFormat
        self.bitDepth = bitDepth
        self.frameRate = frameRate
        self.frameCount = frameCount
        self.fieldOrder = fieldOrder
        self.color = color
        self.hdrMetadata = hdrMetadata
        self.dolbyVision = dolbyVision
        self.containerMatrix = containerMatrix
        self.frameMatrix = frameMatrix
        self.decodable = decodable
    }
}
