import Foundation

/// One clip of a composition while it is open: its picture at any time of its own clock, fitted into the canvas.
protocol ClipSource: AnyObject {
    /// The canvas-sized picture shown `seconds` after the clip starts showing. Valid until the next call.
    func picture(at seconds: Double) throws -> Frame
    /// Stops any work and releases the clip's decoders (at most two clips are open at a time).
    func close()
}

/// A photo or a colour: one picture, made when the clip opens.
final class StillClipSource: ClipSource {
    private let frame: Frame
    init(_ frame: Frame) { self.frame = frame }
    func picture(at seconds: Double) throws -> Frame { frame }
    func close() {}
}

/// A video clip: its own thread demuxes and decodes the source range (ClipDecoder) a couple of pictures ahead;
/// the caller's thread takes the picture for each output time by timestamp (the one nearest to it, ties to the
/// earlier, so a 60 fps clip drops every other picture into 30 fps and a 24 fps clip repeats some) and runs only the pictures
/// it shows through colour, orientation and fitting (ClipChain, Canvas). Past the clip's last picture the last
/// one holds.
final class VideoClipSource: ClipSource, @unchecked Sendable {
    let decoder: ClipDecoder
    let chain: ClipChain
    private let canvas: Canvas
    private let queue = BoundedQueue<Frame>(capacity: 2)
    private let failure = FirstError()
    private let finished = DispatchSemaphore(value: 0)
    private var current: Frame? = nil        // the decoded picture shown now
    private var pending: Frame? = nil        // the next decoded picture, not yet due
    private var ended = false
    private var shown: Frame                 // `current` fitted into the canvas
    private var shownIsCurrent = false

    init(path: String, info: MediaInfo, orientation: Orientation, from: Double, seconds: Double, fit: Fit, canvas: Canvas,
         toneMap: ToneMapOperator, threads: Int, tolerateErrors: Bool, checkBitstream: Bool = true,
         warn: @escaping Transcoder.Warning) throws {
        let demuxer = try Demuxer(path: path)  // its headers were read and checked when the composition was planned
        let tb = demuxer.videoTimeBase
        let videoStart = Double(demuxer.videoStartTicks) * tb.seconds
        let start = videoStart + from
        if from > 0 { try demuxer.seek(toSeconds: start) }
        let video = try Decoder(videoOf: demuxer, threads: threads)
        decoder = ClipDecoder(label: path, tolerateErrors: tolerateErrors, checkBitstream: checkBitstream, video: info.video,
                              demuxer: demuxer, decoder: video,
                              audio: nil, orientation: orientation,
                              range: .init(active: true, start: start, end: start + seconds, shiftTicks: tb.ticks(start)), warn: warn)
        let size = canvas.fitted(info.video.displaySize, fit)
        chain = ClipChain(label: path, video: info.video, orientation: orientation, size: size, toneMap: toneMap,
                          ringSize: 1, timeBase: tb, background: canvas.backdrop.background, warn: warn)
        self.canvas = canvas
        shown = try Frame(width: canvas.width, height: canvas.height, format: .yuv420p)
        shown.color = .sdrOutput
        let thread = Thread { [self] in
            do {
                try decoder.run(stopped: { [failure] in failure.error != nil }) { [self] item in
                    guard case .video(let frame) = item else { return }
                    guard queue.push(frame) else { throw StreamingConversion.Stopped() }
                }
            } catch {
                if !(error is StreamingConversion.Stopped) { failure.record(error) }
            }
            queue.close()
            finished.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    func picture(at seconds: Double) throws -> Frame {
        while !ended {
            if pending == nil {
                pending = queue.pop()
                if pending == nil { ended = true; break }
            }
            // The next picture takes over once it is nearer to this time than the current one.
            if let current, Double((current.pts ?? 0) + (pending!.pts ?? 0)) / 2 * decoder.tb.seconds >= seconds { break }
            current = pending
            pending = nil
            shownIsCurrent = false
        }
        if let error = failure.error { throw error }
        guard let current else { throw SDRifyError.invalidInput("\(decoder.label): no decodable video frames in the range used") }
        if !shownIsCurrent {
            let picture = try chain.picture(from: current)
            try shown.makeWritable()
            canvas.place(picture, into: shown)
            shownIsCurrent = true
        }
        return shown
    }

    func close() {
        failure.record(StreamingConversion.Stopped())  // tells the decoding thread to stop
        queue.close()
        finished.wait()
        current = nil; pending = nil
    }

    /// Concealed damage (tolerate-errors), once closed.
    var errorsConcealed: Int { decoder.decodeErrors }
}
