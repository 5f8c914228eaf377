import CFFmpeg
import Foundation

/// What a conversion is asked to do.
public struct ConvertOptions: Sendable {
    public var input: String
    public var output: String
    public var preset: ExportPreset
    public var overwrite = false
    public var crf: Int? = nil
    public var x264Preset: String? = nil
    public var threads = 0  // 0 = automatic
    public var toneMap = ToneMapOperator.default
    /// Conceal decode errors and go on (counted in the result) instead of failing with exit 2.
    public var tolerateErrors = false

    public init(input: String, output: String, preset: ExportPreset) {
        self.input = input; self.output = output; self.preset = preset
    }

    public static let outputExtensions = ["mp4", "m4v", "mov"]
}

/// What a finished conversion reports (`convert --json`).
public struct ConversionResult: Sendable {
    public var input: String
    public var output: String
    public var preset: String
    public var width: Int
    public var height: Int
    public var duration: Double   // seconds of video written
    public var frames: Int
    public var hdr: HDRKind
    public var orientationExif: Int
    public var toneMapping: String
    public var decodeErrors: Int  // concealed with --tolerate-errors
    public var elapsed: Double    // seconds

    public var json: JSONValue {
        .object([("input", .string(input)), ("output", .string(output)), ("preset", .string(preset)),
                 ("width", .int(Int64(width))), ("height", .int(Int64(height))), ("duration", .double(duration)),
                 ("frames", .int(Int64(frames))), ("hdr", .string(hdr.rawValue)),
                 ("orientation", .object([("exif", .int(Int64(orientationExif)))])),
                 ("tonemap", .string(toneMapping)), ("decode_errors", .int(Int64(decodeErrors))),
                 ("elapsed_s", .double((elapsed * 1000).rounded() / 1000))])
    }
}

/// Wires the stages: Demuxer → Decoder → FrameConverter (scale + colour) → FrameOrienter → Encoder → Muxer,
/// with AAC audio copied alongside.
public enum Transcoder {
    public typealias Warning = @Sendable (String) -> Void
    public typealias ProgressHandler = @Sendable (ConversionProgress) -> Void

    public static func run(_ options: ConvertOptions, warn: Warning = { _ in },
                           progress: ProgressHandler = { _ in }) throws -> ConversionResult {
        let started = Date()
        let ext = URL(fileURLWithPath: options.output).pathExtension.lowercased()
        guard ConvertOptions.outputExtensions.contains(ext) else {
            throw SDRifyError.usage("\(options.output): unsupported output extension '.\(ext)' (use .mp4, .m4v or .mov)")
        }

        // Probe first: it validates the input and gives orientation, colour and size.
        let info = try Prober.probe(path: options.input)
        let video = info.video
        let orientation: Orientation
        switch video.orientation {
        case .known(let o): orientation = o
        case .unsupported(let m):
            throw SDRifyError.unsupported("\(options.input): display matrix \(m.components) is not one of the eight orientations (rotation by a multiple of 90° with or without a mirror)")
        }
        if let other = video.conflictingFrameOrientation {
            let desc: String = switch other { case .known(let o): "EXIF \(o.rawValue)"; case .unsupported: "an unsupported matrix" }
            warn("the bitstream's display-orientation SEI (\(desc)) disagrees with the container (EXIF \(orientation.rawValue)); following the container")
        }
        if let order = video.fieldOrder, order != "progressive" {
            throw SDRifyError.unsupported("\(options.input): interlaced video (field order \(order)); deinterlace it first")
        }
        if let dv = video.dolbyVision, dv.profile == 5 || dv.blCompatibilityID == 0 {
            throw SDRifyError.unsupported("\(options.input): Dolby Vision profile \(dv.profile) has no HDR10/HLG/SDR-compatible base layer; it needs Dolby reshaping, which sdrify does not do")
        }

        let (dw, dh) = video.displaySize
        let target = TargetSize.fit(width: dw, height: dh, into: options.preset.box)
        // The colour stage works in coded orientation: its output is the target turned back.
        let coded = orientation.swapsDimensions ? (target.height, target.width) : (target.width, target.height)

        let output = try AtomicOutput(finalPath: options.output, inputPath: options.input, overwrite: options.overwrite)
        defer { output.discard() }

        let demuxer = try Demuxer(path: options.input)
        let inStream = demuxer.videoStream
        let decoder = try Decoder(stream: inStream, threads: options.threads, label: "\(options.input): video")
        let muxer = try Muxer(path: output.tempPath, formatName: ext == "mov" ? "mov" : "mp4")
        var settings = VideoEncoderSettings(crf: options.crf ?? options.preset.crf,
                                            x264Preset: options.x264Preset ?? options.preset.x264Preset,
                                            threads: options.threads)
        settings.threads = options.threads
        let frameRate = inStream.pointee.avg_frame_rate.num > 0 ? inStream.pointee.avg_frame_rate : inStream.pointee.r_frame_rate
        let encoder = try VideoEncoder(width: target.width, height: target.height, timeBase: inStream.pointee.time_base,
                                       frameRate: frameRate, settings: settings, globalHeader: muxer.needsGlobalHeader)
        let outVideo = try muxer.addStream(from: encoder)

        var outAudio: Int? = nil
        if let a = demuxer.audioStreamIndex {
            let par = demuxer.stream(a).pointee.codecpar.pointee
            if par.codec_id == AV_CODEC_ID_AAC {
                outAudio = try muxer.addCopiedStream(from: demuxer.stream(a))
            } else {
                warn("audio codec '\(String(cString: avcodec_get_name(par.codec_id)))' is not AAC; the output has no audio")
            }
        }
        if let created = av_dict_get(demuxer.ctx.pointee.metadata, "creation_time", nil, 0) {
            muxer.setMetadata("creation_time", String(cString: created.pointee.value))
        }
        try muxer.writeHeader()

        var converter: FrameConverter? = nil
        let curve = ToneCurve(options.toneMap, sourcePeak: video.hdrMetadata.sourcePeak(for: video.hdrKind))
        let orienter = orientation == .up ? nil : try FrameOrienter(orientation, width: coded.0, height: coded.1)
        let packet = try Packet()
        let outPacket = try Packet()
        var frames = 0
        var decodeErrors = 0
        var lastReport = started
        let totalTime = info.format.duration
        var lastPTS: Int64? = nil
        var firstPTS: Int64? = nil
        let tb = inStream.pointee.time_base
        let frameTicks = frameRate.num > 0 ? max(1, Int64((1 / frameRate.double / tb.double).rounded())) : 1

        func drainEncoder() throws {
            while try encoder.receive(into: outPacket) {
                try muxer.write(outPacket, stream: outVideo, from: encoder.ctx.pointee.time_base)
            }
        }

        func handle(_ frame: Frame) throws {
            guard let fmt = frame.format else {
                throw SDRifyError.unsupported("\(options.input): decoded pixel format \(frame.pixelFormatName) is not planar Y'CbCr")
            }
            if frame.isCorrupt {
                guard options.tolerateErrors else {
                    throw SDRifyError.invalidInput("\(options.input): damaged video at \(seconds(frame.pts)) (frame \(frames))")
                }
                decodeErrors += 1
            }
            if converter == nil {
                converter = try FrameConverter(sourceFormat: fmt, sourceColor: mergedColor(frame.color, video.color),
                                               width: frame.width, height: frame.height,
                                               outputWidth: coded.0, outputHeight: coded.1, toneCurve: curve)
            }
            // Strictly increasing timestamps for the encoder; missing ones continue the cadence.
            var pts = frame.pts ?? (lastPTS.map { $0 + frameTicks } ?? 0)
            if let last = lastPTS, pts <= last { pts = last + 1 }
            lastPTS = pts
            if firstPTS == nil { firstPTS = pts }
            var picture = try converter!.convert(frame, format: fmt)
            if let orienter { picture = try orienter.apply(picture) }
            picture.pts = pts
            try encoder.send(picture)
            frames += 1
            try drainEncoder()
            let now = Date()
            if now.timeIntervalSince(lastReport) >= 0.25 {
                lastReport = now
                progress(ConversionProgress(frames: frames, outTime: Double(pts - firstPTS!) * tb.double, totalTime: totalTime,
                                            elapsed: now.timeIntervalSince(started), finished: false))
            }
        }

        func seconds(_ pts: Int64?) -> String {
            guard let pts else { return "an unknown time" }
            return String(format: "%.3f s", Double(pts - (inStream.pointee.start_time == ffNoPTS ? 0 : inStream.pointee.start_time)) * tb.double)
        }

        /// Feeds one packet (nil drains); a decode error fails the conversion unless errors are tolerated.
        func decode(_ packet: Packet?) throws {
            do {
                try decoder.send(packet)
            } catch let e as SDRifyError where e.status == .invalidInput {
                guard options.tolerateErrors else {
                    let at = packet.map { seconds($0.av.pointee.pts == ffNoPTS ? nil : $0.av.pointee.pts) } ?? "the end"
                    throw SDRifyError.invalidInput("\(e.message) at \(at)")
                }
                decodeErrors += 1
            }
            while true {
                let frame: Frame?
                do {
                    frame = try decoder.receive()
                } catch let e as SDRifyError where e.status == .invalidInput && options.tolerateErrors {
                    decodeErrors += 1
                    break  // the decoder has said all it will about this packet
                }
                guard let frame else { break }
                try handle(frame)
            }
        }

        while try demuxer.readPacket(into: packet) {
            if packet.streamIndex == demuxer.videoStreamIndex {
                try decode(packet)
            } else if let outAudio, packet.streamIndex == demuxer.audioStreamIndex {
                try muxer.write(packet, stream: outAudio, from: demuxer.stream(packet.streamIndex).pointee.time_base)
            }
        }
        try decode(nil)
        guard frames > 0 else { throw SDRifyError.invalidInput("\(options.input): no decodable video frames") }
        try encoder.send(nil)
        try drainEncoder()
        try muxer.finish()
        try output.commit()

        let duration = Double((lastPTS ?? 0) - (firstPTS ?? 0) + frameTicks) * tb.double
        progress(ConversionProgress(frames: frames, outTime: duration, totalTime: totalTime,
                                    elapsed: Date().timeIntervalSince(started), finished: true))
        return ConversionResult(input: options.input, output: options.output, preset: options.preset.name,
                                width: target.width, height: target.height, duration: duration, frames: frames,
                                hdr: video.hdrKind, orientationExif: orientation.rawValue,
                                toneMapping: video.hdrKind == .sdr ? "none" : options.toneMap.rawValue,
                                decodeErrors: decodeErrors,
                                elapsed: Date().timeIntervalSince(started))
    }

    /// Frame tags win where present; the stream's (container or VUI) fill the gaps.
    static func mergedColor(_ frame: ColorDescription, _ stream: ColorDescription) -> ColorDescription {
        var c = frame
        if c.primaries == .unspecified { c.primaries = stream.primaries }
        if c.transfer == .unspecified { c.transfer = stream.transfer }
        if c.matrix == .unspecified { c.matrix = stream.matrix }
        if c.range == .unspecified { c.range = stream.range }
        if c.chromaLocation == .unspecified { c.chromaLocation = stream.chromaLocation }
        return c
    }
}
