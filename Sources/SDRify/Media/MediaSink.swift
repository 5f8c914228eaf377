import Foundation

/// Where a rendered timeline goes: pictures (canvas-sized 8-bit 4:2:0 BT.709, in order, one per output frame) and
/// sound (48 kHz stereo float, in blocks of `audioBlock` samples, the last one shorter). The encoding sink writes
/// the file; the checksum sink lets tests run the whole pipeline without an encoder.
public protocol MediaSink: AnyObject {
    /// Called once, before anything is written.
    func begin(width: Int, height: Int, rate: FrameRate, audio: Bool) throws
    func write(picture: Frame) throws
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws
    /// After the last picture and samples: everything is flushed and the output is complete.
    func finish() throws
    var audioBlock: Int { get }
}

/// H.264/HEVC + AAC in MP4/MOV, written through an AtomicOutput (in place only once finished).
final class EncodingSink: MediaSink {
    private let output: AtomicOutput
    private let muxer: Muxer
    private let settings: VideoEncoderSettings
    private var encoder: VideoEncoder? = nil
    private var aac: AACEncoder? = nil
    private var videoStream = 0, audioStream = 0
    private let packet: Packet
    let audioBlock = 1024

    /// Creates the output file now (so an output problem shows before any work); `inputs` may not be it.
    init(path: String, inputs: [String], overwrite: Bool, settings: VideoEncoderSettings) throws {
        output = try AtomicOutput.open(finalPath: path, inputPaths: inputs, overwrite: overwrite)
        muxer = try Muxer(fd: output.fd, path: path, formatName: try CodecCatalog.muxer(forOutput: path))
        self.settings = settings
        packet = try Packet()
    }

    deinit { output.discard() }

    func begin(width: Int, height: Int, rate: FrameRate, audio: Bool) throws {
        let encoder = try VideoEncoder(width: width, height: height, timeBase: TimeBase(num: Int32(rate.den), den: Int32(rate.num)),
                                       frameRate: TimeBase(num: Int32(rate.num), den: Int32(rate.den)),
                                       settings: settings, globalHeader: muxer.needsGlobalHeader)
        self.encoder = encoder
        videoStream = try muxer.addStream(from: encoder)
        if audio {
            let aac = try AACEncoder(globalHeader: muxer.needsGlobalHeader)
            precondition(aac.frameSize == audioBlock, "AAC frames are 1024 samples")
            self.aac = aac
            audioStream = try muxer.addStream(audio: aac.ctx)
        }
        try muxer.writeHeader()
    }

    private func drainVideo() throws {
        guard let encoder else { return }
        while try encoder.receive(into: packet) {
            packet.av.pointee.duration = 1   // one frame: x264 does not say, and the muxer ends the track by it
            try muxer.write(packet, stream: videoStream, from: encoder.timeBase)
        }
    }

    func write(picture: Frame) throws {
        try encoder?.send(picture)
        try drainVideo()
    }

    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        guard let aac else { return }
        try aac.encode(left: left, right: right, count: count) { [muxer, audioStream] in try muxer.write($0, stream: audioStream, from: aac.timeBase) }
    }

    func finish() throws {
        try encoder?.send(nil)
        try drainVideo()
        if let aac { try aac.finish { [muxer, audioStream] in try muxer.write($0, stream: audioStream, from: aac.timeBase) } }
        try muxer.finish()
        try output.commit()
    }
}

/// Keeps a summary of every picture and of the sound instead of encoding them: for tests of the pipeline.
public final class ChecksumSink: MediaSink {
    public struct Picture: Sendable {
        public var meanY: Double, meanCb: Double, meanCr: Double
        public var checksum: UInt64          // FNV-1a over the visible samples of the three planes
        public var pts: Int64?
        /// Mean luma of a rectangle (fractions of the width and height), for "which clip shows where".
        public var regions: [Double]
    }
    public private(set) var width = 0, height = 0
    public private(set) var rate: FrameRate? = nil
    public private(set) var hasAudio = false
    public private(set) var pictures: [Picture] = []
    /// RMS of the left channel in blocks of `audioBlock` samples, and the total count.
    public private(set) var audioRMS: [Double] = []
    public private(set) var audioSamples = 0
    public private(set) var finished = false
    public let audioBlock = 1024
    /// Regions measured in every picture: (x, y, width, height) as fractions.
    public let regions: [(Double, Double, Double, Double)]

    public init(regions: [(Double, Double, Double, Double)] = []) { self.regions = regions }

    public func begin(width: Int, height: Int, rate: FrameRate, audio: Bool) throws {
        self.width = width; self.height = height; self.rate = rate; hasAudio = audio
    }

    public func write(picture: Frame) throws {
        var sums = [Double](repeating: 0, count: 3)
        var hash: UInt64 = 0xcbf29ce484222325
        for p in 0..<3 {
            let (w, h) = PlanarFormat.yuv420p.planeSize(p, width: picture.width, height: picture.height)
            for y in 0..<h {
                let row = picture.data(p).assumingMemoryBound(to: UInt8.self) + y * picture.stride(p)
                var s = 0
                for x in 0..<w { s += Int(row[x]); hash = (hash ^ UInt64(row[x])) &* 0x100000001b3 }
                sums[p] += Double(s)
            }
            sums[p] /= Double(w * h)
        }
        let means = regions.map { r -> Double in
            let x0 = Int(r.0 * Double(width)), y0 = Int(r.1 * Double(height))
            let x1 = max(x0 + 1, Int((r.0 + r.2) * Double(width))), y1 = max(y0 + 1, Int((r.1 + r.3) * Double(height)))
            var s = 0
            for y in y0..<min(y1, height) {
                let row = picture.data(0).assumingMemoryBound(to: UInt8.self) + y * picture.stride(0)
                for x in x0..<min(x1, width) { s += Int(row[x]) }
            }
            return Double(s) / Double((min(y1, height) - y0) * (min(x1, width) - x0))
        }
        pictures.append(Picture(meanY: sums[0], meanCb: sums[1], meanCr: sums[2], checksum: hash, pts: picture.pts, regions: means))
    }

    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {
        var s = 0.0
        for i in 0..<count { s += Double(left[i]) * Double(left[i]) }
        audioRMS.append((s / Double(max(count, 1))).squareRoot())
        audioSamples += count
    }

    public func finish() throws { finished = true }
}
