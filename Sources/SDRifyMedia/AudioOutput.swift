import CFFmpeg
import SDRifyValues

/// One audio track of the output: an audio stream of the input, copied when it is AAC, otherwise transcoded to
/// AAC-LC (AudioTranscoder); trimmed and shifted to a cut range. Packets are dropped whole, so a cut is exact
/// to an AAC frame (21 ms at 48 kHz). Retimed sound (a speed, slow motion: a time map) is always transcoded,
/// time-stretched on the way, and so is sound with a stage (`--loudness`).
package final class AudioOutput {
    private let index: Int  // input stream
    private let inTimeBase: AVRational
    private let outStream: Int
    private let transcoder: AudioTranscoder?
    private let shift: MediaTime  // the input time that becomes 0
    private let map: TimeMap
    private let outputShift: MediaTime  // subtracted from every written timestamp (the shift, mapped)
    private let end: MediaTime?  // absolute input time where the cut ends
    let transcoded: Bool
    private var lastCopiedDTS: Int64? = nil  // output time base
    /// Copied AAC is decoded on the side (cheap next to the video) so that its damage is found like the video's.
    private let checker: Decoder?

    /// Input stream `a` as an output track (its language kept; `isDefault`: the track players pick). `shift`:
    /// absolute input time that becomes 0 (0 keeps timestamps).
    package init(
        demuxer: Demuxer, stream a: Int, muxer: Muxer, shift: MediaTime, end: MediaTime?, isDefault: Bool = true, map: TimeMap = .identity,
        stage: SoundStage? = nil
    ) throws {
        index = a
        let stream = demuxer.stream(a)
        inTimeBase = stream.pointee.time_base
        self.shift = shift
        self.end = end
        self.map = map
        outputShift = map.output(shift)
        // ADTS AAC (MPEG-TS, raw .aac: no AudioSpecificConfig in the container) is copied into one file, where movenc
        // converts its headers; a fragmented one (HLS) refuses it ("Malformed AAC bitstream"): transcoded there.
        let par = stream.pointee.codecpar.pointee
        let copiable = par.codec_id == AV_CODEC_ID_AAC && (par.extradata_size > 0 || muxer.segments == nil)
        if copiable, map.isIdentity, stage == nil {
            transcoder = nil
            outStream = try muxer.addCopiedStream(from: stream, isDefault: isDefault)
            checker = try? Decoder(stream: stream, threads: 1, label: "audio")
        } else {
            let t = try AudioTranscoder(
                stream: stream, globalHeader: muxer.needsGlobalHeader, label: "\(demuxer.path): audio", map: map, stage: stage)
            transcoder = t
            outStream = try muxer.addStream(audio: t.encoder, like: stream, isDefault: isDefault)
            checker = nil
        }
        transcoded = transcoder != nil
    }

    package func owns(_ packet: Packet) -> Bool { packet.streamIndex == index }

    package enum Position { case before, within, after }

    /// When a packet starts on the input's clock (nil: no timestamp).
    func start(of packet: Packet) -> MediaTime? { packet.pts.map { MediaTime(ticks: $0, TimeBase(inTimeBase)) } }

    /// Where an input time lands on the output's clock.
    func outputTime(_ t: MediaTime) -> MediaTime { map.output(t) - outputShift }

    /// Where a packet falls relative to the cut (pure: safe to ask from the demuxing thread).
    package func position(of packet: Packet) -> Position {
        let start = self.start(of: packet) ?? shift
        let packetEnd = start + MediaTime(ticks: packet.duration, TimeBase(inTimeBase))
        if let end, start >= end { return .after }
        if shift > .zero, packetEnd <= shift - MediaTime(value: 1, timescale: 1_000_000) { return .before }
        return .within
    }

    /// Writes (or transcodes) a packet that lies within the cut.
    package func handle(_ packet: Packet, muxer: Muxer) throws {
        if let transcoder {
            try transcoder.transcode(packet) { try write($0, muxer: muxer, tb: transcoder.encoder.pointee.time_base) }
        } else {
            try check(packet)
            try write(packet, muxer: muxer, tb: inTimeBase)
        }
    }

    /// Decodes a copied packet and throws (invalid input) if the decoder fails on it, flags its samples or logs
    /// an error about it: the packet is damaged, and the caller refuses the input or drops the packet.
    private func check(_ packet: Packet) throws {
        guard let checker else { return }
        let before = checker.loggedErrors
        let at = packet.pts.map { String(format: "%.3f s", Double($0) * inTimeBase.double) } ?? "an unknown time"
        let damaged = SDRifyError.invalidInput("damaged audio at \(at)")
        do {
            try checker.send(packet)
            while let frame = try checker.receive() { if frame.isCorrupt { throw damaged } }
        } catch let e as SDRifyError where e.status == .invalidInput {
            throw damaged
        }
        if checker.loggedErrors > before { throw damaged }
    }

    package func finish(muxer: Muxer) throws {
        guard let transcoder else { return }
        try transcoder.transcode(nil) { try write($0, muxer: muxer, tb: transcoder.encoder.pointee.time_base) }
    }

    private func write(_ packet: Packet, muxer: Muxer, tb: AVRational) throws {
        if outputShift != .zero { packet.shift(by: outputShift.ticks(TimeBase(tb))) }
        if let pts = packet.pts, pts + packet.duration <= 0, shift > .zero { return }  // resampler lead-in before the cut
        if transcoder == nil { lastCopiedDTS = try checkedCopyDTS(packet, tb: tb, muxer: muxer) }
        try muxer.write(packet, stream: outStream, from: tb)
    }

    /// Copied packets keep the input's timestamps and durations. Damaged ones (no timestamp, going backwards,
    /// jumping an hour where AAC frames are ~21 ms apart, lasting over 10 s) would make the muxer fail as if the
    /// output were at fault: they are the input's damage (dropped under --tolerate-errors). Returns the DTS in the
    /// output time base, where the order is checked: distinct input ticks can round to the same output tick.
    private func checkedCopyDTS(_ packet: Packet, tb: AVRational, muxer: Muxer) throws -> Int64 {
        let dts = packet.av.pointee.dts != ffNoPTS ? packet.av.pointee.dts : packet.av.pointee.pts
        guard dts != ffNoPTS else { throw SDRifyError.invalidInput("damaged audio: a packet without timestamps") }
        let outTB = muxer.timeBase(ofStream: outStream)
        let out = av_rescale_q(dts, tb, outTB)
        if let last = lastCopiedDTS {
            guard out > last else { throw SDRifyError.invalidInput("damaged audio: timestamps out of order") }
            let jump = Double(out - last) * outTB.double
            guard jump <= 3600 else { throw SDRifyError.invalidInput("damaged audio: timestamps jump by \(Int(jump)) s") }
        }
        let length = Double(packet.duration) * tb.double
        guard packet.duration >= 0, length <= 10 else { throw SDRifyError.invalidInput("damaged audio: a packet lasting \(length) s") }
        return out
    }
}
