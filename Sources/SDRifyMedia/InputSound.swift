import CFFmpeg
import SDRifyValues

/// Which of the input's audio tracks a conversion keeps (`--audio-track`): FFmpeg's pick of the default one, a
/// track by its index (as `probe` lists it), the track in a language (ISO 639-2, as tagged), or every one.
package enum AudioTrackChoice: Equatable, Sendable {
    case automatic
    case index(Int)
    case language(String)
    case all

    /// `N`, a two- or three-letter language code, or `all`.
    package init?(argument: String) {
        let a = argument.trimmingCharacters(in: .whitespaces)
        if a.lowercased() == "all" {
            self = .all
        } else if let n = Int(a), n >= 0 {
            self = .index(n)
        } else if (2...3).contains(a.count), a.allSatisfy({ $0.isASCII && $0.isLetter }) {
            self = .language(a.lowercased())
        } else {
            return nil
        }
    }
}

/// A conversion's sound: the input's own audio tracks (AudioOutput each: copied when AAC, otherwise transcoded),
/// read by a demuxer of its own that skips every other track, and written into the output's muxer as the pictures
/// reach each time. The same cut and shift as the pictures (absolute input seconds), so an A/V offset is kept.
package final class InputSound {
    private let demuxer: Demuxer
    private let outputs: [AudioOutput]
    private let packet: Packet
    private let tolerateErrors: Bool
    private var held: (packet: Packet, output: AudioOutput)? = nil  // read, but later than what was asked for so far
    private var done = false
    private var pastTheCut: Set<ObjectIdentifier> = []  // tracks whose packets have passed the cut's end
    /// Damaged packets dropped under --tolerate-errors.
    package private(set) var dropped = 0

    /// nil when there is no audio to keep. `streams`: the input's audio tracks to keep (Demuxer.audioStreams), the
    /// first marked default; `shift`: the input time that becomes 0; `map`: how the input is retimed (a speed); `end`: the input time where the cut ends;
    /// `seek`: where the pictures' demuxer was sent (the same place, so the sound starts where the pictures do);
    /// `stages`: what is done to each track's sound before it is encoded (`--loudness`), in the order of `streams`.
    /// `demuxer`: a demuxer of the input of its own (this one reads only the sound from it).
    package init?(
        demuxer: Demuxer, streams: [Int], muxer: Muxer, shift: MediaTime, end: MediaTime?, seek: MediaTime?, tolerateErrors: Bool,
        map: TimeMap = .identity, stages: [SoundStage] = []
    ) throws {
        guard !streams.isEmpty else { return nil }
        outputs = try streams.enumerated().map { n, i in
            try AudioOutput(
                demuxer: demuxer, stream: i, muxer: muxer, shift: shift, end: end, isDefault: n == 0, map: map,
                stage: n < stages.count ? stages[n] : nil)
        }
        demuxer.readOnly(streams: streams)
        if let seek { try demuxer.seek(to: seek) }
        self.demuxer = demuxer; self.tolerateErrors = tolerateErrors
        packet = try Packet()
    }

    /// Writes the sound up to `time` of the output (nil: all that is left, and the encoders' tails).
    package func write(upTo time: MediaTime?, muxer: Muxer) throws {
        while !done {
            if held == nil {
                guard try read() else { done = true; break }
                // Where the container cannot skip the other tracks, their packets are read too.
                guard let output = outputs.first(where: { $0.owns(packet) }) else { continue }
                held = (try packet.moved(), output)
            }
            let (next, output) = held!
            if let time, let start = output.start(of: next), output.outputTime(start) > time { return }
            held = nil
            switch output.position(of: next) {
            case .before: continue
            case .after:
                // One track past the cut does not end the others (their packets interleave); the last one does.
                pastTheCut.insert(ObjectIdentifier(output))
                if pastTheCut.count == outputs.count { done = true }
            case .within:
                do {
                    try output.handle(next, muxer: muxer)
                } catch let e as SDRifyError where e.status == .invalidInput {
                    guard tolerateErrors else { throw SDRifyError.invalidInput("\(demuxer.path): \(e.message)") }
                    dropped += 1
                }
            }
        }
        if time == nil { for output in outputs { try output.finish(muxer: muxer) } }
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
