import CRubberBand
import SDRifyValues

/// Sound on a clip's source clock → sound on its output clock (a TimeMap): each piece of the map time-stretched by
/// its rate with the pitch kept, by Rubber Band (a phase vocoder with transient handling), in its real-time mode so
/// the rate can change where a slow-motion segment starts or ends. Planar float samples in, planar float out, at
/// one sample rate. How far the stretched sound has come is checked against the map after every block and the
/// stretcher's rate nudged (at most 2 %) toward it, so a long clip's sound stays on its pictures.
final class SoundRetimer {
    private let state: RubberBandState
    private let channels: Int
    private let rate: Int
    private let map: TimeMap
    private let first: MediaTime  // source time of the first sample fed
    private var fed: Int64 = 0  // samples fed (after the start pad)
    private var emitted: Int64 = 0  // samples handed out
    private var delayLeft: Int  // output samples of the stretcher's start delay still to drop
    private let output: UnsafeMutablePointer<Float>  // `capacity` samples per channel, one channel after another
    private static let capacity = block * 8
    private var pieceEnd: Int64? = nil  // the fed sample where the current piece of the map ends
    private var pieceRate = 1.0
    private var limit: Int64? = nil  // at the end: how many samples the map gives in all
    static let block = 1024

    /// `first`: the source time of the first sample that will be fed.
    package init(channels: Int, rate: Int, map: TimeMap, first: MediaTime) {
        self.channels = channels; self.rate = rate; self.map = map; self.first = first
        let options =
            RubberBandOptionProcessRealTime.rawValue | RubberBandOptionThreadingNever.rawValue | RubberBandOptionEngineFaster.rawValue
            | RubberBandOptionPitchHighConsistency.rawValue
        state = rubberband_new(UInt32(rate), UInt32(channels), RubberBandOptions(Int32(options)), map.rate(at: first), 1.0)
        rubberband_set_max_process_size(state, UInt32(SoundRetimer.block))
        output = .allocate(capacity: SoundRetimer.capacity * channels)
        delayLeft = Int(rubberband_get_start_delay(state))
        // The stretcher wants some silence before the first sample; its delay above accounts for it.
        let pad = Int(rubberband_get_preferred_start_pad(state))
        if pad > 0 {
            let zeros = [Float](repeating: 0, count: pad)
            zeros.withUnsafeBufferPointer { z in
                var planes = [UnsafePointer<Float>?](repeating: z.baseAddress, count: channels)
                var at = 0
                while at < pad {
                    let n = min(SoundRetimer.block, pad - at)
                    planes.withUnsafeMutableBufferPointer { rubberband_process(state, $0.baseAddress, UInt32(n), 0) }
                    at += n
                }
            }
        }
        startPiece()
    }

    deinit {
        rubberband_delete(state)
        output.deallocate()
    }

    private func time(ofSample n: Int64) -> MediaTime { first + MediaTime(value: n, timescale: Int64(rate)) }

    /// The rate of the piece the next sample falls in, and where that piece ends.
    private func startPiece() {
        let t = time(ofSample: fed)
        pieceRate = map.rate(at: t)
        pieceEnd = map.pieceEnd(after: t).map { end in
            let samples = (end - first).scaled(Int64(rate), 1)
            return max(fed + 1, Int64((samples.seconds).rounded(.up)))
        }
        steer()
    }

    /// The stretcher's ratio: the piece's rate, nudged toward where the map says the output should be by now.
    private func steer() {
        let due = (map.output(time(ofSample: fed)) - map.output(first)).seconds * Double(rate)
        let behind = due - Double(emitted + Int64(rubberband_available(state).clamped(to: 0...Int32.max)) - Int64(delayLeft))
        let nudge = min(max(behind / Double(rate), -0.02), 0.02)  // a second's worth off is corrected by 2 %
        rubberband_set_time_ratio(state, pieceRate * (1 + nudge))
    }

    /// Feeds `count` samples (one pointer per channel) and hands out what the stretcher has ready.
    func process(_ planes: [UnsafePointer<Float>], count: Int, emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        var at = 0
        while at < count {
            var n = min(SoundRetimer.block, count - at)
            if let end = pieceEnd { n = min(n, Int(end - fed)) }
            var p: [UnsafePointer<Float>?] = planes.map { $0 + at }
            p.withUnsafeMutableBufferPointer { rubberband_process(state, $0.baseAddress, UInt32(n), 0) }
            fed += Int64(n)
            at += n
            try retrieve(emit)
            if let end = pieceEnd, fed >= end { startPiece() } else { steer() }
        }
    }

    /// The end of the sound: what the stretcher still holds, up to where the map puts the end of what was fed (its
    /// tail beyond that is the stretcher's own ring-out).
    package func finish(emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        limit = Int64(((map.output(time(ofSample: fed)) - map.output(first)).seconds * Double(rate)).rounded())
        var none: [UnsafePointer<Float>?] = Array(repeating: nil, count: channels)
        let silence = [Float](repeating: 0, count: 1)
        silence.withUnsafeBufferPointer { s in
            for c in 0..<channels { none[c] = s.baseAddress }
            none.withUnsafeMutableBufferPointer { rubberband_process(state, $0.baseAddress, 0, 1) }
        }
        try retrieve(emit)
    }

    private func retrieve(_ emit: ([UnsafePointer<Float>], Int) throws -> Void) throws {
        while true {
            let available = Int(rubberband_available(state))
            guard available > 0 else { return }
            let n = min(available, SoundRetimer.capacity)
            var planes: [UnsafeMutablePointer<Float>?] = (0..<channels).map { output + $0 * SoundRetimer.capacity }
            let got = Int(planes.withUnsafeMutableBufferPointer { rubberband_retrieve(state, $0.baseAddress, UInt32(n)) })
            guard got > 0 else { return }
            let skip = min(delayLeft, got)
            delayLeft -= skip
            var kept = got - skip
            if let limit { kept = min(kept, Int(max(0, limit - emitted))) }
            guard kept > 0 else { continue }
            try emit(planes.map { UnsafePointer($0! + skip) }, kept)
            emitted += Int64(kept)
        }
    }
}

extension Comparable {
    fileprivate func clamped(to r: ClosedRange<Self>) -> Self { min(max(self, r.lowerBound), r.upperBound) }
}
