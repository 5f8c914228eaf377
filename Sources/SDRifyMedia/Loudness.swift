import CEbur128
import Foundation
import SDRifyValues

/// Loudness as EBU R128 / ITU-R BS.1770 states it (`--json`): integrated loudness (LUFS), loudness range (LU) and
/// true peak (dBTP); nil where the sound is too short or silent to say.
package struct LoudnessReport: Equatable, Sendable {
    package var integrated: Double?
    var range: Double?
    package var truePeak: Double?

    package var json: JSONValue {
        func value(_ v: Double?) -> JSONValue { v.map { .double(($0 * 100).rounded() / 100) } ?? .null }
        return .object([("integrated_lufs", value(integrated)), ("range_lu", value(range)), ("true_peak_dbtp", value(truePeak))])
    }

}

/// What `--loudness` did (`--json`: "loudness"): the target, the gain, the sound before and after (the output's
/// true peak as its AAC decodes).
package struct LoudnessOutcome: Sendable {
    var target: Double
    var gainDB: Double
    package var input: LoudnessReport
    var output: LoudnessReport

    package var json: JSONValue {
        .object([
            ("target_lufs", .double(target)), ("gain_db", .double((gainDB * 100).rounded() / 100)), ("input", input.json),
            ("output", output.json)
        ])
    }

    package init(target: Double, gainDB: Double, input: LoudnessReport, output: LoudnessReport) {
        self.target = target
        self.gainDB = gainDB
        self.input = input
        self.output = output
    }
}

/// A loudness meter (libebur128: integrated loudness, loudness range and true peak) over planar float samples.
final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    private let channels: Int
    private var interleaved: [Float] = []

    package init(channels: Int, rate: Int) throws {
        self.channels = channels
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        guard let s = ebur128_init(UInt32(channels), UInt(rate), mode) else { throw SDRifyError.conversion("libebur128 could not start") }
        state = s
    }

    deinit { ebur128_destroy(&state) }

    func add(_ planes: [UnsafePointer<Float>], count: Int) {
        guard count > 0 else { return }
        if interleaved.count < count * channels { interleaved = [Float](repeating: 0, count: count * channels) }
        for c in 0..<channels { for i in 0..<count { interleaved[i * channels + c] = planes[c][i] } }
        _ = interleaved.withUnsafeBufferPointer { ebur128_add_frames_float(state, $0.baseAddress, count) }
    }

    /// The true peak of what was added last (linear), for the limiter.
    var lastTruePeak: Double {
        var peak = 0.0
        for c in 0..<channels {
            var p = 0.0
            if ebur128_prev_true_peak(state, UInt32(c), &p) == 0 { peak = max(peak, p) }
        }
        return peak
    }

    var report: LoudnessReport {
        var integrated = 0.0, range = 0.0, peak = 0.0
        var r = LoudnessReport()
        if ebur128_loudness_global(state, &integrated) == 0, integrated.isFinite { r.integrated = integrated }
        if ebur128_loudness_range(state, &range) == 0, range.isFinite, r.integrated != nil { r.range = range }
        for c in 0..<channels {
            var p = 0.0
            if ebur128_true_peak(state, UInt32(c), &p) == 0 { peak = max(peak, p) }
        }
        if peak > 0 { r.truePeak = 20 * log10(peak) }
        return r
    }
}

/// Something done to a track's sound between decoding (resampled to the output's rate and layout, retimed) and the
/// AAC encoder: it takes planar samples and hands on what it makes (later, when it looks ahead).
package protocol SoundStage: AnyObject {
    func process(_ planes: [UnsafePointer<Float>], count: Int, emit: ([UnsafePointer<Float>], Int) throws -> Void) throws
    /// The end of the sound: what is still held is handed on.
    func finish(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws
}

/// A pass that only measures: `inner` (a normalizer, whose output meter measures) sees the sound, nothing is handed on.
package final class MeasuringOnly: SoundStage {
    let inner: SoundStage

    package init(_ inner: SoundStage) { self.inner = inner }
    package func process(_ planes: [UnsafePointer<Float>], count: Int, emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        try inner.process(planes, count: count) { _, _ in }
    }
    package func finish(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws { try inner.finish { _, _ in } }
}

/// The first pass of `--loudness`: measures the sound as the output would carry it and hands nothing on.
package final class LoudnessSurveyStage: SoundStage {
    private var meter: LoudnessMeter? = nil
    private let rate: Int

    package init(rate: Int) { self.rate = rate }

    package func process(_ planes: [UnsafePointer<Float>], count: Int, emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        if meter == nil { meter = try LoudnessMeter(channels: planes.count, rate: rate) }
        meter?.add(planes, count: count)
    }
    package func finish(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {}
    package var report: LoudnessReport { meter?.report ?? LoudnessReport() }
}

/// `--loudness`: the sound brought to a target integrated loudness by one gain (measured over the whole sound by a
/// first pass), its true peak then held at `ceiling` by a look-ahead limiter, not clipped. The limiter works on
/// 1 ms blocks: each block's true peak (libebur128's 4× oversampling) after the gain sets the gain it may have;
/// the gain moves down linearly so that it is there by the block that needs it (5 ms of look-ahead) and comes back
/// over 50 ms. What it hands on is measured again (the output's loudness, range and true peak).
package final class LoudnessNormalizer: SoundStage {
    package let gainDB: Double
    private let gain: Float
    private let ceiling: Double  // linear
    private let rate: Int
    private var channels = 0
    private var peakMeter: LoudnessMeter? = nil
    private(set) var outputMeter: LoudnessMeter? = nil
    static let block = 48  // samples: 1 ms at 48 kHz
    static let lookahead = 5  // blocks
    static let release = 50.0  // blocks
    /// Blocks waiting for the look-ahead: their samples (gain applied) and the largest gain each may have.
    private var pending: [(samples: [[Float]], allowed: Float)] = []
    private var partial: [[Float]] = []  // samples not yet a whole block
    private var applied: Float = 1  // the gain at the end of the last block handed on
    private var handedOn = false

    /// `ceiling`: the highest true peak handed on, in dBTP.
    package init(gainDB: Double, ceiling: Double, rate: Int) {
        self.gainDB = gainDB
        gain = Float(pow(10, gainDB / 20))
        self.ceiling = pow(10, ceiling / 20)
        self.rate = rate
    }

    package func process(_ planes: [UnsafePointer<Float>], count: Int, emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        if peakMeter == nil {
            channels = planes.count
            peakMeter = try LoudnessMeter(channels: channels, rate: rate)
            outputMeter = try LoudnessMeter(channels: channels, rate: rate)
            partial = Array(repeating: [], count: channels)
        }
        for c in 0..<channels { partial[c] += UnsafeBufferPointer(start: planes[c], count: count).map { $0 * gain } }
        while partial[0].count >= LoudnessNormalizer.block {
            let n = LoudnessNormalizer.block
            let blockSamples = partial.map { Array($0.prefix(n)) }
            for c in 0..<channels { partial[c].removeFirst(n) }
            try take(blockSamples, emit: emit)
        }
    }

    private func take(_ samples: [[Float]], emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        let count = samples[0].count
        withPlanes(samples) { peakMeter?.add($0, count: count) }
        let peak = peakMeter?.lastTruePeak ?? 0
        pending.append((samples, peak > ceiling ? Float(ceiling / peak) : 1))
        if pending.count > LoudnessNormalizer.lookahead { try handOn(emit: emit) }
    }

    /// Hands on the oldest pending block with its gain ramped toward what the blocks ahead allow.
    private func handOn(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        let block = pending.removeFirst()
        // The block must be at or below its own and the next block's allowance by its end (a peak at a block's
        // edge); a lower allowance j + 1 blocks ahead takes 1/(j+1) of the way now, so the gain is there in time.
        var target = min(block.allowed, pending.first?.allowed ?? 1)
        for (j, ahead) in pending.enumerated() where ahead.allowed < applied {
            target = min(target, applied + (ahead.allowed - applied) / Float(j + 1))
        }
        if target >= applied { target = min(target, applied + (1 - applied) / Float(LoudnessNormalizer.release)) }
        let count = block.samples[0].count
        let start = handedOn ? applied : target  // the very first block starts at its gain: nothing before it to ramp from
        handedOn = true
        let shaped = block.samples.map { plane in
            plane.enumerated().map { i, s in s * (start + (target - start) * Float(i + 1) / Float(count)) }
        }
        applied = target
        try withPlanesThrowing(shaped) { planes in
            outputMeter?.add(planes, count: count)
            try emit(planes, count)
        }
    }

    package func finish(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        if channels > 0, !partial[0].isEmpty {
            let rest = partial
            partial = Array(repeating: [], count: channels)
            try take(rest, emit: emit)
        }
        while !pending.isEmpty { try handOn(emit: emit) }
    }

    package var outputReport: LoudnessReport { outputMeter?.report ?? LoudnessReport() }

    private func withPlanes(_ planes: [[Float]], _ body: ([UnsafePointer<Float>]) -> Void) {
        try? withPlanesThrowing(planes) { body($0) }
    }

    private func withPlanesThrowing(_ planes: [[Float]], _ body: ([UnsafePointer<Float>]) throws -> Void) throws {
        // Swift arrays' storage, borrowed for the call.
        func nest(_ i: Int, _ acc: [UnsafePointer<Float>]) throws {
            if i == planes.count { try body(acc); return }
            try planes[i].withUnsafeBufferPointer { try nest(i + 1, acc + [$0.baseAddress!]) }
        }
        try nest(0, [])
    }
}

/// The AAC a pass made, decoded again and metered: its true peak as a player's decoder gives it.
package final class EncodedPeak {
    private let decoder: Decoder
    private var meter: LoudnessMeter? = nil

    /// For what `muxer` is given as its stream `stream`.
    package init(_ muxer: Muxer, stream: Int) throws { decoder = try Decoder(stream: muxer.stream(stream), threads: 1, label: "loudness check") }

    package func take(_ packet: Packet?) throws {
        try decoder.send(packet)
        while let frame = try decoder.receive() {
            let channels = Int(frame.av.pointee.ch_layout.nb_channels)
            if meter == nil { meter = try LoudnessMeter(channels: channels, rate: Int(frame.av.pointee.sample_rate)) }
            let planes = (0..<channels).map { UnsafePointer(frame.data($0).assumingMemoryBound(to: Float.self)) }
            meter?.add(planes, count: Int(frame.av.pointee.nb_samples))
        }
    }

    package func truePeak() throws -> Double? {
        try take(nil)
        return meter?.report.truePeak
    }
}
