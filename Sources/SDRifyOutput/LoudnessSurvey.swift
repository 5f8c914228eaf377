import Foundation
import SDRifyAudio
import SDRifyMedia
import SDRifyValues

/// `--loudness LUFS`: the first pass measures each kept track's sound (or a composition's mix) as the output will
/// carry it (the same cut, retiming and channels, through the same decoding path, nothing encoded), then each gets
/// the gain that brings it to the target and a true-peak limiter (LoudnessNormalizer) for the pass that writes it.
package enum LoudnessSurvey {
    /// Each kept track's gain and limiter toward `target` (empty when the output keeps no sound), each track's
    /// loudness as it was, and its true peak as the write's AAC will decode (see `settle`).
    package static func normalizers(_ carry: InputCarryOver, target: Double, warn: WarningHandler) throws -> (
        normalizers: [LoudnessNormalizer], measured: [LoudnessReport], encodedPeaks: [Double?]
    ) {
        let surveys = try run(carry, stages: try streams(carry).map { _ in LoudnessSurveyStage(rate: rate) }, encoding: false)
        let measured = surveys.map { $0.stage.report }
        let settled = try settle(target: target, measured: measured, warn: warn) { gains, ceilings in
            try run(carry, stages: normalizers(gains, ceilings), encoding: true).map { ($0.stage.outputReport.integrated, $0.encodedPeak) }
        }
        return (normalizers(settled.gains, settled.ceilings), measured, settled.peaks)
    }

    /// The same for a composition's mix (`make` gives a new mixer for each pass: the clips' sound and the music).
    package static func normalizer(mixing make: () throws -> AudioMixer, target: Double, warn: WarningHandler) throws -> (
        normalizer: LoudnessNormalizer, measured: LoudnessReport, encodedPeak: Double?
    ) {
        let survey = LoudnessSurveyStage(rate: rate)
        _ = try run(try make(), through: survey, encoding: false)
        let settled = try settle(target: target, measured: [survey.report], warn: warn) { gains, ceilings in
            let stage = normalizers(gains, ceilings)[0]
            let peak = try run(try make(), through: stage, encoding: true)
            return [(stage.outputReport.integrated, peak)]
        }
        return (normalizers(settled.gains, settled.ceilings)[0], survey.report, settled.peaks[0])
    }

    private static let rate = Int(AACEncoder.sampleRate)

    private static func normalizers(_ gains: [Double], _ ceilings: [Double]) -> [LoudnessNormalizer] {
        zip(gains, ceilings).map { LoudnessNormalizer(gainDB: $0, ceiling: $1, rate: rate) }
    }

    /// Each track's gain (the difference to the target) and limiter ceiling, settled by trial passes that make the
    /// output's sound as the write will (gain, limiter, AAC encoder: all deterministic) and measure it: where the
    /// limiter took loudness away (peaks far above the loudness) the gain is corrected, and where the AAC encoder's
    /// own overshoot put the decoded true peak above −1.1 dBTP the ceiling is lowered by as much and 0.2 dB more; at most three
    /// corrections, then a trial that only measures, so the peaks returned are the write's when the trials settled.
    /// A track too quiet or short to measure keeps its level; a very quiet one is raised by `maxGain` at most.
    private static func settle(
        target: Double, measured: [LoudnessReport], warn: WarningHandler,
        trial: ([Double], [Double]) throws -> [(reached: Double?, peak: Double?)]
    ) throws -> (gains: [Double], ceilings: [Double], peaks: [Double?]) {
        var gains: [Double] = measured.enumerated().map { n, r in
            guard let loudness = r.integrated else {
                warn("audio track \(n + 1) is too short or too quiet to measure its loudness: its level is kept")
                return 0
            }
            if target - loudness > maxGain { warn("audio track \(n + 1) is very quiet (\(Int(loudness)) LUFS): raised by \(Int(maxGain)) dB only") }
            return min(target - loudness, maxGain)
        }
        var ceilings = gains.map { _ in firstCeiling }
        var peaks: [Double?] = gains.map { _ in nil }
        for attempt in 0..<4 {
            var settled = true
            for (n, result) in try trial(gains, ceilings).enumerated() where measured[n].integrated != nil {
                peaks[n] = result.peak
                guard attempt < 3 else { continue }
                if let reached = result.reached, abs(target - reached) > 0.2, gains[n] < maxGain {
                    gains[n] = min(gains[n] + target - reached, maxGain)
                    settled = false
                }
                if let peak = result.peak, peak > maxTruePeak {
                    ceilings[n] -= peak - maxTruePeak + 0.2  // a margin: the gain may rise with it
                    settled = false
                }
            }
            if settled { break }
        }
        return (gains, ceilings, peaks)
    }

    /// The true peak of the output's sound, decoded (dBTP), and the limiter's first ceiling (the AAC encoder usually
    /// adds up to a few tenths of a dB; the trials measure it).
    static let maxTruePeak = -1.1
    static let firstCeiling = -1.5
    /// The most a quiet sound is raised (its noise with it).
    static let maxGain = 40.0

    /// The whole mix through `stage`; with `encoding` the AAC encoder too, decoded again: its true peak.
    private static func run(_ mixer: AudioMixer, through stage: SoundStage, encoding: Bool) throws -> Double? {
        var aac: AACEncoder? = nil, muxer: Muxer? = nil, check: EncodedPeak? = nil
        if encoding {
            let encoder = try AACEncoder(globalHeader: false)
            let m = try Muxer(fd: -1, path: "loudness survey", formatName: "null")
            _ = try m.addStream(audio: encoder)
            let peak = try EncodedPeak(m, stream: 0)
            m.watcher = { packet, _ in try peak.take(packet) }
            try m.writeHeader()
            (aac, muxer, check) = (encoder, m, peak)
        }
        let write: (Packet) throws -> Void = { packet in if let aac { try muxer?.write(packet, stream: 0, from: aac.timeBase) } }
        let hand: ([UnsafePointer<Float>], Int) throws -> Void = { planes, n in try aac?.feed(planes, count: n, write: write) }
        try mixer.mix(upTo: mixer.totalSamples, block: 1024) { l, r, n in try stage.process([l, r], count: n, emit: hand) }
        try stage.finish(emit: hand)
        try aac?.finishFeeding(write: write)
        return try check?.truePeak()
    }

    private static func streams(_ carry: InputCarryOver) throws -> [Int] {
        carry.keepSound ? try Demuxer(path: carry.path).audioStreams(for: carry.audio) : []
    }

    /// One pass over the kept tracks' sound through `stages`; with `encoding`, the AAC encoder too, its packets
    /// decoded again for their true peak (nothing is written anywhere).
    private static func run<Stage: SoundStage>(_ carry: InputCarryOver, stages: [Stage], encoding: Bool) throws -> [(
        stage: Stage, encodedPeak: Double?
    )] {
        guard carry.keepSound, !stages.isEmpty else { return [] }
        let input = try Demuxer(path: carry.path)
        let streams = try input.audioStreams(for: carry.audio)
        let muxer = try Muxer(fd: -1, path: "loudness survey", formatName: "null")
        let clock = carry.clock
        guard
            let sound = try InputSound(
                demuxer: input, streams: streams, muxer: muxer, shift: clock.origin, end: clock.end,
                seek: clock.seekTarget(videoStart: carry.videoStart), tolerateErrors: carry.tolerateErrors, map: clock.map,
                stages: encoding ? stages : stages.map { MeasuringOnly($0) })
        else { return [] }
        var checks: [EncodedPeak] = []
        if encoding {
            checks = try streams.indices.map { try EncodedPeak(muxer, stream: $0) }
            muxer.watcher = { packet, stream in try checks[stream].take(packet) }
        }
        try muxer.writeHeader()
        try sound.write(upTo: nil, muxer: muxer)
        return stages.enumerated().map { n, stage in (stage, encoding ? try? checks[n].truePeak() : nil) }
    }
}
