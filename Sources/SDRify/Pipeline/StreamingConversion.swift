import Foundation

/// The re-encoding path as three stages on three threads (one, inline, with --threads 1), joined by small bounded
/// queues:
///   1. demux + decode, cut selection, output timestamps      (this thread feeds `decoded`)
///   2. colour (scale, tone map) + orientation + overlays     (`decoded` → `converted`)
///   3. encode + mux, audio copy or transcode, progress       (the calling thread)
/// Audio packets travel the same queues, so the muxer sees them in order and stays single-threaded. Memory
/// is bounded by the queues (constant in the clip's length). The first error in any stage closes every queue,
/// stops the others, and is rethrown.
final class StreamingConversion: @unchecked Sendable {
    enum Item { case video(Frame), audio(Packet) }

    struct Cut {
        var active: Bool
        var start: Double       // absolute input seconds that become 0
        var end: Double?        // absolute input seconds
        var shiftTicks: Int64   // video ticks subtracted from every timestamp
    }

    // Fixed for the run.
    let options: ConvertOptions
    let video: VideoInfo
    let demuxer: Demuxer
    let decoder: Decoder
    let encoder: VideoEncoder
    let muxer: Muxer
    let outVideo: Int
    let audio: AudioOutput?
    let orientation: Orientation
    let coded: (Int, Int)
    let overlays: OverlayStage?
    let warn: Transcoder.Warning
    let tb: TimeBase
    let frameTicks: Int64
    let halfFrame: Double
    let videoStart: Double
    let cut: Cut
    let report: (_ frames: Int, _ pts: Int64, _ firstPTS: Int64) -> Void

    // One picture waits between stages: decoded ones are source-sized (25 MB for 10-bit 4K), and deeper
    // queues measured no faster (1080p and 4K), only larger.
    static let decodedCapacity = 1
    static let convertedCapacity = 1
    private let decoded = BoundedQueue<Item>(capacity: StreamingConversion.decodedCapacity)
    private let converted = BoundedQueue<Item>(capacity: StreamingConversion.convertedCapacity)
    private let failure = FirstError()

    // Stage 1 state.
    private(set) var decodeErrors = 0
    /// Everything --tolerate-errors concealed: decode errors (stage 1) and damaged audio packets dropped (stage 3).
    var errorsConcealed: Int { decodeErrors + droppedAudio }
    private(set) var firstPTS: Int64? = nil
    private(set) var lastPTS: Int64? = nil
    /// The duration of the last picture selected (ticks).
    private(set) var lastDuration: Int64 = 1
    // Stage 2 state: the colour the first picture was converted from (frame tags over stream tags).
    private(set) var sourceColor: ColorDescription? = nil
    // Stage 3 state.
    private(set) var frames = 0
    private var droppedAudio = 0

    init(options: ConvertOptions, video: VideoInfo, demuxer: Demuxer, decoder: Decoder, encoder: VideoEncoder, muxer: Muxer,
         outVideo: Int, audio: AudioOutput?, orientation: Orientation, coded: (Int, Int), overlays: OverlayStage?, warn: @escaping Transcoder.Warning, cut: Cut,
         report: @escaping (Int, Int64, Int64) -> Void) {
        self.options = options; self.video = video; self.demuxer = demuxer; self.decoder = decoder
        self.encoder = encoder; self.muxer = muxer; self.outVideo = outVideo; self.audio = audio
        self.orientation = orientation; self.coded = coded; self.overlays = overlays; self.warn = warn; self.cut = cut; self.report = report
        tb = demuxer.videoTimeBase
        let rate = demuxer.videoFrameRate
        frameTicks = rate.num > 0 ? max(1, Int64((1 / rate.seconds / tb.seconds).rounded())) : 1
        halfFrame = 0.5 / max(rate.seconds, 1)
        videoStart = Double(demuxer.videoStartTicks) * tb.seconds
    }

    /// Thrown inside a stage when another stage has failed and closed the queues.
    struct Stopped: Error {}

    func run() throws {
        // --threads 1 caps the whole conversion at one thread: the stages run inline, one picture at a time.
        if options.threads == 1 {
            try decodeStage { [self] in try encode(try colour($0)) }
            try finishEncoding()
            return
        }
        let producer: @Sendable () throws -> Void = { [self] in
            try decodeStage { [self] in guard decoded.push($0) else { throw Stopped() } }
            decoded.close()
        }
        let done = DispatchGroup()
        let consumer: @Sendable () throws -> Void = { [self] in try colourStage() }
        for stage in [producer, consumer] {
            done.enter()
            let thread = Thread { [self] in
                do { try stage() } catch { if !(error is Stopped) { failure.record(error) }; stopAll() }
                done.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        do { try encodeStage() } catch { if !(error is Stopped) { failure.record(error) }; stopAll() }
        done.wait()
        if let error = failure.error { throw error }
    }

    private func stopAll() {
        decoded.close()
        converted.close()
    }

    // MARK: stage 1 — demux and decode

    /// Reads and decodes, handing every selected picture and audio packet to `emit`, in order.
    private func decodeStage(emit: @escaping (Item) throws -> Void) throws {
        self.emit = emit
        defer { self.emit = nil }
        let packet = try Packet()
        var videoDone = false, audioDone = audio == nil
        var videoPackets = 0
        while failure.error == nil, try read(into: packet) {
            if packet.streamIndex == demuxer.videoStreamIndex {
                videoPackets += 1
                if !videoDone { videoDone = try decode(packet) }
            } else if let audio, audio.owns(packet), !audioDone {
                switch audio.position(of: packet) {
                case .before: break
                case .after: audioDone = true
                case .within: try emit(.audio(try packet.moved()))
                }
            }
            if videoDone && audioDone { break }
        }
        if !videoDone {
            _ = try decode(nil)
            decoder.finish()  // every decoding thread idle: all it logged is counted
            try checkLoggedDamage(at: nil)
            if failure.error == nil { try checkComplete(videoPackets: videoPackets) }
        }
    }

    /// After reading to the end, what the container promised must have arrived: every sample its index lists (a
    /// damaged sample table, chunk offsets past the end of the file, makes the demuxer skip samples without an
    /// error), and pictures that fill the track's duration (a sample count cut down gives fewer samples, again
    /// without any read failing). Refused as damage, or converted without the rest under --tolerate-errors.
    private func checkComplete(videoPackets: Int) throws {
        var missing: [String] = []
        let promised = demuxer.videoIndexEntries
        if videoPackets < promised { missing.append("only \(videoPackets) of the \(promised) video samples could be read") }
        if !cut.active, let track = demuxer.videoDurationTicks, let first = firstPTS, let last = lastPTS,
           Double(last + lastDuration - first) < Double(track) * 0.9 - Double(2 * frameTicks) {
            let shown = Double(last + lastDuration - first) * tb.seconds, whole = Double(track) * tb.seconds
            missing.append(String(format: "the pictures cover %.3f s of the video track's %.3f s", shown, whole))
        }
        for what in missing {
            if options.tolerateErrors { warn("\(options.input): damaged sample table: \(what): converted without the rest") }
            try tolerate("\(options.input): damaged sample table: \(what)")
        }
    }

    private var emit: ((Item) throws -> Void)? = nil

    /// The next packet; false at the end. With --tolerate-errors a read error (a file cut short) ends the input.
    private func read(into packet: Packet) throws -> Bool {
        do {
            return try demuxer.readPacket(into: packet)
        } catch let e as SDRifyError where e.status == .invalidInput {
            try tolerate(e.message)
            return false
        }
    }

    /// Stage 1's damage policy: without --tolerate-errors the input is refused with `message` (exit 2); with it
    /// the damage is counted and the caller carries on.
    private func tolerate(_ message: @autoclosure () -> String) throws {
        guard options.tolerateErrors else { throw SDRifyError.invalidInput(message()) }
        decodeErrors += 1
    }

    private func seconds(_ pts: Int64?) -> String {
        guard let pts else { return "an unknown time" }
        return String(format: "%.3f s", Double(pts) * tb.seconds - videoStart)
    }

    /// Feeds one packet (nil drains); returns true once the cut's end is reached.
    private func decode(_ packet: Packet?) throws -> Bool {
        do {
            try decoder.send(packet)
        } catch let e as SDRifyError where e.status == .invalidInput {
            try tolerate("\(e.message) at \(seconds(packet?.pts))")
        }
        while true {
            let frame: Frame?
            do {
                frame = try decoder.receive()
            } catch let e as SDRifyError where e.status == .invalidInput {
                try tolerate(e.message)
                break  // the decoder has said all it will about this packet
            }
            guard let frame else { try checkLoggedDamage(at: packet?.pts); return false }
            try checkLoggedDamage(at: frame.pts)
            if try select(frame) { return true }
        }
        return false
    }

    private var loggedErrorsSeen = 0

    /// Damage the decoder concealed and only logged (a flipped bit in a keyframe can leave every later picture
    /// visibly wrong with no failing call): refused like any damage, or counted under --tolerate-errors. The
    /// count is the decoder's own (every thread's messages), so the outcome does not depend on thread timing.
    private func checkLoggedDamage(at pts: Int64?) throws {
        let logged = decoder.loggedErrors
        guard logged > loggedErrorsSeen else { return }
        let new = logged - loggedErrorsSeen
        loggedErrorsSeen = logged
        guard options.tolerateErrors else {
            throw SDRifyError.invalidInput("\(options.input): damaged video at \(seconds(pts)) (errors the decoder concealed)")
        }
        decodeErrors += new
    }

    private var sawFirstPicture = false

    /// Applies the cut and the damage policy, gives the frame its output timestamp and queues it.
    /// Returns true when the frame lies past the end of the cut.
    private func select(_ frame: Frame) throws -> Bool {
        if !sawFirstPicture {  // what only the bitstream says: here rather than in a separate probe decode
            sawFirstPicture = true
            var withSEI = video
            withSEI.frameMatrix = frame.displayMatrix
            if let other = withSEI.conflictingFrameOrientation {
                let desc: String = switch other { case .known(let o): "EXIF \(o.rawValue)"; case .unsupported: "an unsupported matrix" }
                warn("the bitstream's display-orientation SEI (\(desc)) disagrees with the container (EXIF \(orientation.rawValue)); following the container")
            }
        }
        // A raw bitstream has no timestamps: its pictures follow each other from 0 at the nominal rate.
        let sourcePTS = frame.pts ?? (lastPTS.map { $0 + cut.shiftTicks + frameTicks } ?? 0)
        let time = Double(sourcePTS) * tb.seconds
        if cut.active, time < cut.start - halfFrame { return false }
        if let end = cut.end, time >= end - halfFrame { return true }
        if frame.isCorrupt { try tolerate("\(options.input): damaged video at \(seconds(frame.pts))") }
        // Strictly increasing timestamps for the encoder (a variable frame rate is kept as it is).
        var pts = max(0, sourcePTS - cut.shiftTicks)
        if let last = lastPTS, pts <= last { pts = last + 1 }
        // Frames an hour apart are damaged timing (a corrupt sample table; screen recorders that send frames only
        // on change leave gaps of minutes, not hours), which the muxer would refuse as the output's fault: the
        // input's damage, or with --tolerate-errors the nominal frame interval instead.
        if let last = lastPTS, Double(pts - last) * tb.seconds > 3600 {
            try tolerate("\(options.input): damaged timestamps: frames \(Int(Double(pts - last) * tb.seconds)) s apart at \(seconds(frame.pts))")
            pts = last + frameTicks
        }
        lastPTS = pts
        if firstPTS == nil { firstPTS = pts }
        frame.pts = pts
        // Each picture keeps its own duration (the last one's ends the track); a missing or absurd one is the
        // nominal frame interval.
        if let d = frame.duration, Double(d) * tb.seconds <= 10 { lastDuration = d } else { lastDuration = frameTicks }
        frame.duration = lastDuration
        try emit?(.video(frame))
        return false
    }

    // MARK: stage 2 — colour and orientation

    private var converter: FrameConverter? = nil
    private var converterInput: (width: Int, height: Int, format: PlanarFormat)? = nil
    private var letterbox: Letterbox? = nil          // when the source's size changed mid-stream
    private var curve: ToneCurve? = nil
    /// The scenes `--tonemap auto` follows (kept across converters made again mid-stream).
    let scenes = SceneTracker()
    /// Whether any picture was tone mapped (an HDR source).
    private(set) var toneMapped = false
    private var repacker: PlanarRepacker?? = nil   // nil: not needed yet; .some(nil): swscale cannot read the layout
    private var orienter: FrameOrienter?? = nil   // nil: not made yet; .some(nil): upright already
    private var deinterlacer: Deinterlacer? = nil

    /// Colour, orientation and overlays for one picture; audio passes through.
    private func colour(_ item: Item) throws -> Item {
        guard case .video(let decoded) = item else { return item }
        let (frame, fmt) = try planarProgressive(decoded)
        var picture = try converter(for: frame, format: fmt).convert(frame, format: fmt)
        if let letterbox { picture = try letterbox.place(picture) }
        if orienter == nil {
            // Each picture may wait in `converted` and in the encoder while the next ones are made.
            orienter = .some(orientation == .up ? nil
                : try FrameOrienter(orientation, width: coded.0, height: coded.1, ringSize: StreamingConversion.pictureRing))
        }
        if let orienter = orienter ?? nil { picture = try orienter.apply(picture) }
        picture.pts = frame.pts
        picture.duration = frame.duration
        // Overlays go on the upright SDR picture, at its output time.
        overlays?.apply(to: picture, time: Double(frame.pts ?? 0) * tb.seconds)
        return .video(picture)
    }

    /// Pictures a ring must hold: one waiting in `converted`, one in the encoder, one being made.
    static let pictureRing = StreamingConversion.convertedCapacity + 2

    /// The decoded picture as planar Y'CbCr (RGB, palette, packed or semi-planar layouts repacked) and progressive.
    private func planarProgressive(_ decoded: Frame) throws -> (Frame, PlanarFormat) {
        var frame = decoded
        if frame.format == nil {
            if repacker == nil || repacker??.accepts(frame) == false { repacker = .some(try PlanarRepacker(like: frame)) }
            if let repacker = repacker ?? nil { frame = try repacker.repack(frame) }
        }
        guard let fmt = frame.format else {
            throw SDRifyError.unsupported("\(options.input): decoded pixel format \(frame.pixelFormatName) is not planar Y'CbCr")
        }
        if frame.isInterlaced {
            if deinterlacer == nil { warn("interlaced video: deinterlaced (each frame's second field interpolated where it combs)") }
            if deinterlacer?.accepts(frame, format: fmt) != true {
                deinterlacer = try Deinterlacer(width: frame.width, height: frame.height, format: fmt)
            }
            frame = try deinterlacer!.apply(frame)
        }
        return (frame, fmt)
    }

    /// The colour converter for this picture: made on the first, and again (fitting the picture inside the output
    /// size, letterboxed) when the source changes size or layout mid-stream.
    private func converter(for frame: Frame, format fmt: PlanarFormat) throws -> FrameConverter {
        if curve == nil {
            // Container HDR metadata first, SEI on the first picture where the container has none.
            var hdr = video.hdrMetadata
            let sei = frame.hdrMetadata
            if hdr.masteringDisplay == nil { hdr.masteringDisplay = sei.masteringDisplay }
            if hdr.contentLightLevel == nil { hdr.contentLightLevel = sei.contentLightLevel }
            let color = frame.color.filled(from: video.color)  // frame tags win; the stream's fill the gaps
            if color.hdrKind != .sdr { hdr.warnings.forEach { warn("\(options.input): \($0)") } }
            sourceColor = color
            toneMapped = color.hdrKind != .sdr
            curve = ToneCurve(options.toneMap, sourcePeak: hdr.sourcePeak(for: color.hdrKind))
        }
        if let converter, let input = converterInput, input == (frame.width, frame.height, fmt) { return converter }
        var size = coded
        if let input = converterInput {
            size = TargetSize.inside(width: frame.width, height: frame.height, frameWidth: coded.0, frameHeight: coded.1)
            let at = String(format: "%.3f s", Double(frame.pts ?? 0) * tb.seconds)
            warn("the picture changes from \(input.width)x\(input.height) to \(frame.width)x\(frame.height) at \(at) (output time): "
                 + "fitted inside \(coded.0)x\(coded.1)")
        }
        let ring = StreamingConversion.pictureRing
        letterbox = size == coded ? nil : try Letterbox(width: coded.0, height: coded.1, ringSize: orientation == .up ? ring : 1)
        func make(_ color: ColorDescription) throws -> FrameConverter {
            try FrameConverter(sourceFormat: fmt, sourceColor: color, width: frame.width, height: frame.height,
                               outputWidth: size.0, outputHeight: size.1, toneCurve: curve!,
                               ringSize: orientation == .up && letterbox == nil ? ring : 1,
                               outputSiting: orientation.chromaSitingBeforeOrienting, scenes: scenes)
        }
        let made: FrameConverter
        do {
            made = try make(sourceColor!)
        } catch {
            // Tags zimg cannot convert from (a damaged VUI, SMPTE 2085, ICtCp on SDR…): the least guessing that
            // works, as players guess from the picture size; the tone curve stays the one the tags chose.
            let tagged = sourceColor!
            var guesses = [tagged, tagged, ColorDescription(range: tagged.range, chromaLocation: tagged.chromaLocation)]
            guesses[0].matrix = .unspecified
            guesses[1].matrix = .unspecified; guesses[1].primaries = .unspecified
            guard let (color, converter) = guesses.lazy.compactMap({ c in (try? make(c)).map { (c, $0) } }).first else {
                throw SDRifyError.unsupported("\(options.input): colour tags \(tagged.primaries.name)/\(tagged.transfer.name)/\(tagged.matrix.name) cannot be converted")
            }
            warn("colour tags \(tagged.primaries.name)/\(tagged.transfer.name)/\(tagged.matrix.name) cannot be converted: "
                 + "read as \(color.primaries.name)/\(color.transfer.name)/\(color.matrix.name) (unspecified: guessed from the size)")
            sourceColor = color
            made = converter
        }
        converter = made
        converterInput = (frame.width, frame.height, fmt)
        return made
    }

    private func colourStage() throws {
        while let item = decoded.pop() {
            guard converted.push(try colour(item)) else { throw Stopped() }
        }
        converted.close()
    }

    // MARK: stage 3 — encode and mux

    private let outPacket = try? Packet()
    private var firstOut: Int64? = nil

    /// The duration of each picture in the encoder, by timestamp: x264 and x265 do not carry it to their packets,
    /// and the muxer needs the last one's to end the track where the source's ends.
    private var durations: [Int64: Int64] = [:]

    private func drainEncoder() throws {
        guard let outPacket else { throw SDRifyError.conversion("out of memory") }
        while try encoder.receive(into: outPacket) {
            if outPacket.av.pointee.pts != ffNoPTS, let d = durations.removeValue(forKey: outPacket.av.pointee.pts) {
                outPacket.av.pointee.duration = d
            }
            try muxer.write(outPacket, stream: outVideo, from: encoder.timeBase)
        }
    }

    /// Encodes a picture or muxes an audio packet.
    private func encode(_ item: Item) throws {
        switch item {
        case .audio(let packet):
            do {
                try audio?.handle(packet, muxer: muxer)
            } catch let e as SDRifyError where e.status == .invalidInput {
                guard options.tolerateErrors else { throw SDRifyError.invalidInput("\(options.input): \(e.message)") }
                droppedAudio += 1
            }
        case .video(let picture):
            if let pts = picture.pts { durations[pts] = picture.duration ?? frameTicks }
            try encoder.send(picture)
            frames += 1
            try drainEncoder()
            if let pts = picture.pts {
                if firstOut == nil { firstOut = pts }
                report(frames, pts, firstOut!)
            }
        }
    }

    private func finishEncoding() throws {
        try encoder.send(nil)
        try drainEncoder()
        try audio?.finish(muxer: muxer)
    }

    private func encodeStage() throws {
        while let item = converted.pop() { try encode(item) }
        guard failure.error == nil else { return }
        try finishEncoding()
    }
}

/// The first error thrown by any stage.
final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Error?
    var error: Error? { lock.lock(); defer { lock.unlock() }; return first }
    func record(_ e: Error) { lock.lock(); if first == nil { first = e }; lock.unlock() }
}
