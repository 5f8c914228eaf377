import Foundation

/// The re-encoding path as three stages on three threads (one, inline, with --threads 1), joined by small bounded
/// queues:
///   1. demux + decode, cut selection, output timestamps      (this thread feeds `decoded`)
///   2. colour (scale, tone map) + orientation + overlays     (`decoded` → `converted`)
///   3. encode + mux, audio copy or transcode, progress       (the calling thread)
/// Audio packets travel the same queues, so the muxer sees them in order and stays single-threaded. Memory
/// is bounded by the queues (constant in the clip's length). The first error in any stage closes every queue,
/// stops the others, and is rethrown.
/// The re-encoding path as three stages on three threads (one, inline, with --threads 1), joined by small bounded
/// queues:
///   1. demux + decode, range selection, output timestamps   (ClipDecoder; this thread feeds `decoded`)
///   2. colour (scale, tone map) + orientation + overlays     (ClipChain; `decoded` → `converted`)
///   3. encode + mux, audio copy or transcode, progress       (the calling thread)
/// Audio packets travel the same queues, so the muxer sees them in order and stays single-threaded. Memory
/// is bounded by the queues (constant in the clip's length). The first error in any stage closes every queue,
/// stops the others, and is rethrown.
final class StreamingConversion: @unchecked Sendable {
    let clip: ClipDecoder
    let chain: ClipChain
    let tolerateErrors: Bool
    let threads: Int
    let encoder: VideoEncoder
    let muxer: Muxer
    let outVideo: Int
    let overlays: OverlayStage?
    let report: (_ frames: Int, _ pts: Int64, _ firstPTS: Int64) -> Void

    // One picture waits between stages: decoded ones are source-sized (25 MB for 10-bit 4K), and deeper
    // queues measured no faster (1080p and 4K), only larger.
    static let decodedCapacity = 1
    static let convertedCapacity = 1
    private let decoded = BoundedQueue<MediaItem>(capacity: StreamingConversion.decodedCapacity)
    private let converted = BoundedQueue<MediaItem>(capacity: StreamingConversion.convertedCapacity)
    private let failure = FirstError()

    /// Everything --tolerate-errors concealed: decode errors (stage 1) and damaged audio packets dropped (stage 3).
    var errorsConcealed: Int { clip.decodeErrors + droppedAudio }
    private(set) var frames = 0
    private var droppedAudio = 0

    /// Pictures a ring must hold: one waiting in `converted`, one in the encoder, one being made.
    static let pictureRing = StreamingConversion.convertedCapacity + 2

    init(clip: ClipDecoder, chain: ClipChain, tolerateErrors: Bool, threads: Int, encoder: VideoEncoder, muxer: Muxer,
         outVideo: Int, overlays: OverlayStage?, report: @escaping (Int, Int64, Int64) -> Void) {
        self.clip = clip; self.chain = chain; self.tolerateErrors = tolerateErrors; self.threads = threads
        self.encoder = encoder; self.muxer = muxer; self.outVideo = outVideo; self.overlays = overlays; self.report = report
    }

    /// Thrown inside a stage when another stage has failed and closed the queues.
    struct Stopped: Error {}

    func run() throws {
        let stopped: @Sendable () -> Bool = { [failure] in failure.error != nil }
        // --threads 1 caps the whole conversion at one thread: the stages run inline, one picture at a time.
        if threads == 1 {
            try clip.run(stopped: stopped) { [self] in try encode(try colour($0)) }
            try finishEncoding()
            return
        }
        let producer: @Sendable () throws -> Void = { [self] in
            try clip.run(stopped: stopped) { [self] in guard decoded.push($0) else { throw Stopped() } }
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

    // MARK: stage 2 — colour, orientation, overlays

    /// Colour, orientation and overlays for one picture; audio passes through.
    private func colour(_ item: MediaItem) throws -> MediaItem {
        guard case .video(let decoded) = item else { return item }
        let picture = try chain.picture(from: decoded)
        // Overlays go on the upright SDR picture, at its output time.
        overlays?.apply(to: picture, time: Double(picture.pts ?? 0) * clip.tb.seconds)
        return .video(picture)
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
    private func encode(_ item: MediaItem) throws {
        switch item {
        case .audio(let packet):
            do {
                try clip.audio?.handle(packet, muxer: muxer)
            } catch let e as SDRifyError where e.status == .invalidInput {
                guard tolerateErrors else { throw SDRifyError.invalidInput("\(clip.label): \(e.message)") }
                droppedAudio += 1
            }
        case .video(let picture):
            if let pts = picture.pts { durations[pts] = picture.duration ?? clip.frameTicks }
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
        try clip.audio?.finish(muxer: muxer)
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
