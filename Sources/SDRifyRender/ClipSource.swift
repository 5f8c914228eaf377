import Foundation
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// One clip of a render while it is open: its picture at any time of its own clock, fitted into the canvas.
package protocol ClipSource: AnyObject {
    /// The canvas-sized picture shown `time` after the clip starts showing. Valid until the next call.
    func picture(at time: MediaTime) throws -> Frame
    /// Stops any work and releases the clip's decoders (at most two clips are open at a time).
    func close()
}

/// A photo or a colour: one picture, made when the clip opens.
package final class StillClipSource: ClipSource {
    private let frame: Frame
    let photo: PhotoOrigin?  // a photo's, for the report (nil: a colour)

    package init(_ frame: Frame, photo: PhotoOrigin? = nil) { self.frame = frame; self.photo = photo }
    package func picture(at time: MediaTime) throws -> Frame { frame }
    package func close() {}
}

/// A video clip: its decoder (ClipDecoder) runs on a thread of its own a picture ahead, or inline when the whole
/// render has one thread. Pictures are taken two ways:
/// - by time (`picture(at:)`, a constant output rate): the one nearest to it, ties to the earlier, so a 60 fps
///   clip drops every other picture into 30 fps and a 24 fps clip repeats some; past the last one it holds;
/// - in turn (`nextPicture()`, the source's own clock): every picture once, with its own timestamp and duration.
/// Only the pictures shown go through colour, orientation and fitting (ClipChain, Canvas).
package final class VideoClipSource: ClipSource, @unchecked Sendable {
    let decoder: ClipDecoder
    let chain: ClipChain
    private let canvas: Canvas
    private let queue: BoundedQueue<Frame>?  // nil: decoded inline
    private let failure = FirstError()
    private let finished = DispatchSemaphore(value: 0)
    private var current: Frame? = nil  // the decoded picture shown now
    private var pending: Frame? = nil  // the next decoded picture, not yet due
    private var ended = false
    private var shown: Frame? = nil  // `current` fitted into the canvas
    private var shownIsCurrent = false

    /// `demuxer` is the clip's input, its headers already read and checked; `size` is the picture's size once
    /// upright (the canvas's, or fitted inside it); `ringSize` how many of the chain's pictures may be in use
    /// downstream at once.
    package init(
        demuxer: Demuxer, info: MediaInfo, orientation: Orientation, clock: ClipClock, size: (width: Int, height: Int),
        framing: Framing = Framing(), canvas: Canvas, toneMap: ToneMapping, settings: DecodeSettings, decodeThreads: Int, inline: Bool,
        ringSize: Int,
        warn: @escaping WarningHandler
    ) throws {
        if let seek = clock.seekTarget(videoStart: demuxer.videoStart) { try demuxer.seek(to: seek) }
        let video = try Decoder(videoOf: demuxer, threads: decodeThreads)
        decoder = try ClipDecoder(
            label: info.path, settings: settings, video: info.video, demuxer: demuxer, decoder: video,
            orientation: orientation, clock: clock, thinning: clock.flattened.flatMap(SlowMotionThinning.init), warn: warn)
        chain = ClipChain(
            label: info.path, video: info.video, orientation: orientation, size: size, framing: framing, toneMap: toneMap,
            ringSize: ringSize, timeBase: demuxer.videoTimeBase, background: canvas.backdrop.background, range: canvas.range, warn: warn)
        self.canvas = canvas
        guard !inline else { queue = nil; return }
        let queue = BoundedQueue<Frame>(capacity: 1)
        self.queue = queue
        let thread = Thread { [self] in
            do {
                while failure.error == nil, let frame = try decoder.next() {
                    guard queue.push(frame) else { break }
                }
            } catch {
                failure.record(error)
            }
            queue.close()
            finished.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// The next decoded picture of the range, nil at its end.
    private func decoded() throws -> Frame? {
        guard let queue else { return try decoder.next() }
        let frame = queue.pop()
        if let error = failure.error { throw error }
        return frame
    }

    package func picture(at time: MediaTime) throws -> Frame {
        while !ended {
            if pending == nil {
                pending = try decoded()
                if pending == nil { ended = true; break }
            }
            // The next picture takes over once it is nearer to this time than the current one.
            if let current, MediaTime(ticks: (current.pts ?? 0) + (pending!.pts ?? 0), decoder.tb).half >= time { break }
            current = pending
            pending = nil
            shownIsCurrent = false
        }
        guard let current else { throw SDRifyError.invalidInput("\(decoder.label): no decodable video frames in the range used") }
        if !shownIsCurrent {
            let picture = try chain.picture(from: current)
            let shown =
                try self.shown
                ?? {
                    let f = try Frame(width: canvas.width, height: canvas.height, format: .output(canvas.range))
                    f.color = .output(canvas.range)
                    return f
                }()
            self.shown = shown
            try shown.makeWritable()
            canvas.place(picture, into: shown)
            shownIsCurrent = true
        }
        return shown!
    }

    /// The next picture on the clip's own clock (upright, SDR, at the source's size for this render, from the
    /// chain's ring), or nil after the last.
    func nextPicture() throws -> Frame? {
        guard let decoded = try decoded() else {
            guard handedOut else {
                // A range between two pictures (after the last one starts) holds none: the request's fault.
                if decoder.clock.isCut, decoder.decodedAny {
                    throw SDRifyError.usage("\(decoder.label): the requested range holds no picture (it starts after the last one)")
                }
                throw SDRifyError.invalidInput(
                    decoder.clock.isCut
                        ? "\(decoder.label): no video frames in the requested range"
                        : "\(decoder.label): no decodable video frames")
            }
            return nil
        }
        handedOut = true
        return try chain.picture(from: decoded)
    }
    private var handedOut = false

    package func close() {
        failure.record(RenderStopped())  // tells the decoding thread to stop
        queue?.close()
        if queue != nil { finished.wait() }
        current = nil; pending = nil
    }

    /// Concealed damage (tolerate-errors), once closed.
    var errorsConcealed: Int { decoder.decodeErrors }
}

/// Recorded by a stage that stops because another one failed or the render ended early (not an error itself).
struct RenderStopped: Error {}

/// The first error thrown by any stage of a render.
final class FirstError: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Error?
    var error: Error? { lock.lock(); defer { lock.unlock() }; return first }
    func record(_ e: Error) { lock.lock(); if first == nil { first = e }; lock.unlock() }
}
