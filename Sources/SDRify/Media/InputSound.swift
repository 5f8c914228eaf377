import CFFmpeg

/// A conversion's sound: the input's own audio track (AudioOutput: copied when AAC, otherwise transcoded), read
/// by a demuxer of its own that skips every other track, and written into the output's muxer as the pictures
/// reach each time. The same cut and shift as the pictures (absolute input seconds), so an A/V offset is kept.
final class InputSound {
    private let demuxer: Demuxer
    private let output: AudioOutput
    private let packet: Packet
    private let tolerateErrors: Bool
    private let shift: MediaTime
    private var held: Packet? = nil  // read, but later than what was asked for so far
    private var done = false
    /// Damaged packets dropped under --tolerate-errors.
    private(set) var dropped = 0

    /// nil when the input has no audio to keep. `shift`: the input time that becomes 0; `end`: the input time
    /// where the cut ends; `seek`: where the pictures' demuxer was sent (the same place, so the sound starts where
    /// the pictures do).
    /// `demuxer`: a demuxer of the input of its own (this one reads only the sound from it).
    init?(demuxer: Demuxer, muxer: Muxer, shift: MediaTime, end: MediaTime?, seek: MediaTime?, tolerateErrors: Bool) throws {
        guard let output = try AudioOutput(demuxer: demuxer, muxer: muxer, shift: shift, end: end) else { return nil }
        demuxer.readOnly(stream: demuxer.audioStreamIndex!)
        if let seek { try demuxer.seek(to: seek) }
        self.demuxer = demuxer; self.output = output; self.tolerateErrors = tolerateErrors; self.shift = shift
        packet = try Packet()
    }

    /// Writes the sound up to `time` of the output (nil: all that is left, and the encoder's tail).
    func write(upTo time: MediaTime?, muxer: Muxer) throws {
        while !done {
            if held == nil {
                guard try read() else { done = true; break }
                guard output.owns(packet) else { continue }  // where the container cannot skip the others
                held = try packet.moved()
            }
            let next = held!
            if let time, let start = output.start(of: next), start - shift > time { return }
            held = nil
            switch output.position(of: next) {
            case .before: continue
            case .after: done = true
            case .within:
                do {
                    try output.handle(next, muxer: muxer)
                } catch let e as SDRifyError where e.status == .invalidInput {
                    guard tolerateErrors else { throw SDRifyError.invalidInput("\(demuxer.path): \(e.message)") }
                    dropped += 1
                }
            }
        }
        if time == nil { try output.finish(muxer: muxer) }
    }

    /// The next audio packet; false at the end. A read error (a file cut short) ends the sound under
    /// --tolerate-errors: the pictures' demuxer meets the same damage and counts it.
    private func read() throws -> Bool {
        do {
            return try demuxer.readPacket(into: packet)
        } catch let e as SDRifyError where e.status == .invalidInput && tolerateErrors {
            return false
        }
    }
}
