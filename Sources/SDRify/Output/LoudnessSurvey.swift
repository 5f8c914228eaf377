import Foundation

/// `--loudness LUFS`: the first pass measures each kept track's sound as the output will carry it (the same cut,
/// retiming and channels, through the same decoding path, nothing encoded), then each track gets the gain that
/// brings it to the target and a true-peak limiter (LoudnessNormalizer) for the pass that writes it.
enum LoudnessSurvey {
    /// The highest true peak handed to the AAC encoder: 1 dB under the −1 dBTP asked for, room for the encoder's own
    /// overshoot (measured up to 0.8 dB on clicks at 192 kb/s).
    static let ceiling = -2.0

    /// Each kept track's gain and limiter toward `target` (empty when the output keeps no sound), and each track's
    /// loudness as it was. The gain is the difference to the target. Then trial passes make the output's sound as the
    /// write will (gain, limiter, AAC encoder: all deterministic) and measure it: where the limiter took loudness away
    /// (peaks far above the loudness) the gain is corrected, and where the AAC encoder's own overshoot put the
    /// decoded true peak above −1 dBTP the limiter's ceiling is lowered by as much; at most three corrections.
    /// Also each track's true peak as the last trial's AAC decodes (the write's, when the trials settled).
    static func normalizers(_ carry: InputCarryOver, target: Double, warn: WarningHandler) throws -> (
        normalizers: [LoudnessNormalizer], measured: [LoudnessReport], encodedPeaks: [Double?]
    ) {
        let rate = Int(AACEncoder.sampleRate)
        let surveys = try run(carry, stages: try streams(carry).map { _ in LoudnessSurveyStage(rate: rate) }, encoding: false)
        let measured = surveys.map { $0.stage.report }
        var gains: [Double] = measured.enumerated().map { n, r in
            guard let loudness = r.integrated else {
                warn("audio track \(n + 1) is too short or too quiet to measure its loudness: its level is kept")
                return 0
            }
            if target - loudness > maxGain { warn("audio track \(n + 1) is very quiet (\(Int(loudness)) LUFS): raised by \(Int(maxGain)) dB only") }
            return min(target - loudness, maxGain)
        }
        var ceilings = gains.map { _ in firstCeiling }
        var encodedPeaks: [Double?] = gains.map { _ in nil }
        func make() -> [LoudnessNormalizer] { zip(gains, ceilings).map { LoudnessNormalizer(gainDB: $0, ceiling: $1, rate: rate) } }
        // Trials until nothing needs correcting; the last one only measures, so what it measured is the write's.
        for attempt in 0..<4 {
            var settled = true
            for (n, trial) in try run(carry, stages: make(), encoding: true).enumerated() where measured[n].integrated != nil {
                encodedPeaks[n] = trial.encodedPeak
                guard attempt < 3 else { continue }
                if let reached = trial.stage.outputReport.integrated, abs(target - reached) > 0.2, gains[n] < maxGain {
                    gains[n] = min(gains[n] + target - reached, maxGain)
                    settled = false
                }
                if let peak = trial.encodedPeak, peak > maxTruePeak {
                    ceilings[n] -= peak - maxTruePeak
                    settled = false
                }
            }
            if settled { break }
        }
        return (make(), measured, encodedPeaks)
    }

    /// The true peak of the output's sound, decoded (dBTP), and the limiter's first ceiling (the AAC encoder usually
    /// adds up to a few tenths of a dB; the trials measure it).
    static let maxTruePeak = -1.05
    static let firstCeiling = -1.5
    /// The most a quiet sound is raised (its noise with it).
    static let maxGain = 40.0

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
