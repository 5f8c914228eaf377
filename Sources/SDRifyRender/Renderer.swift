import Foundation
import SDRifyAudio
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRifyValues

/// What one video clip turned out to be once decoded, recorded as it closes.
package struct ClipOutcome {
    package var photo: PhotoOrigin? = nil  // a photo clip's own orientation and HDR kind
    package var sourceColor: ColorDescription?
    var toneMapped: Bool
    package var toneDetail: JSONValue?
    package var slicesChecked: (checked: Int, unchecked: Int)?
    var errorsConcealed: Int
}

/// What a finished render made.
package struct RenderReport {
    package var frames: Int
    package var duration: MediaTime  // of the pictures written
    package var errorsConcealed: Int  // in the pictures, the mixed sound and the sinks' own reading
    package var clips: [Int: ClipOutcome]  // video clips, by index
    package var mostClipsOpen: Int
}

/// The one render path of every command: a plan's clips (decoded on their own threads) → the compositor (colour,
/// orientation, fitting, transitions, layers; a thread of its own) → every sink, with the sound mixed up to each
/// picture (on the calling thread). With `--threads 1` all of it runs on the calling thread, one picture at a time.
/// Memory is bounded by the queues, whatever the length. The first error in any stage stops the others and is
/// rethrown; the sinks are finished only when every picture was made.
package enum Renderer {
    /// Decoder and encoder thread counts for `plan` (the sinks that encode are made with the second).
    package static func threads(_ plan: RenderPlan, settings: DecodeSettings) -> (decode: Int, encode: Int) {
        let largestSource =
            plan.clips.flatMap(\.videos).map { $0.video.width * $0.video.height }.max() ?? 0
        return ThreadBudget.split(
            settings.threads, sourcePixels: largestSource, outputPixels: plan.canvas.width * plan.canvas.height,
            encoder: plan.timeline.output.preset.codec)
    }

    package static func run(
        _ plan: RenderPlan, layers: RenderLayers?, mixer: AudioMixer?, sinks: [MediaSink], opening: ClipOpening,
        progress: @escaping ProgressHandler, started: Date
    ) throws -> RenderReport {
        let inline = opening.settings.threads == 1
        let timeBase: TimeBase
        switch plan.clock {
        case .constant(let rate): timeBase = TimeBase(num: Int32(clamping: rate.den), den: Int32(clamping: rate.num))
        case .source(let tb): timeBase = tb
        }
        let hasSound = mixer?.hasSound ?? false
        let format = RenderFormat(width: plan.canvas.width, height: plan.canvas.height, timeBase: timeBase, rate: plan.fps, sound: hasSound)
        for sink in sinks { try sink.begin(format) }

        let outcomes = ClipOutcomes()
        let compositor = try Compositor(
            plan: plan, layers: layers, open: { clip in try clip.open(opening, clock: plan.clock, inline: inline) },
            openPip: { pip, size in try RenderPlan.Clip.openPip(pip, size: size, opening, clock: plan.clock, inline: inline) })
        compositor.closed = { clip, source in outcomes.record(clip.index, source) }

        // The compositor on its own thread (or inline), the sinks here.
        let failure = FirstError()
        let pictures = BoundedQueue<Frame>(capacity: 1)
        let done = DispatchSemaphore(value: 0)
        if !inline {
            let thread = Thread {
                do {
                    while failure.error == nil, let picture = try compositor.next() {
                        guard pictures.push(picture) else { break }
                    }
                } catch { failure.record(error) }
                compositor.finish()
                pictures.close()
                done.signal()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        func nextPicture() throws -> Frame? { inline ? try compositor.next() : pictures.pop() }

        var frames = 0
        var first: Int64? = nil, end: Int64 = 0  // the pictures' span, in ticks of `timeBase`
        var lastReport = Date.distantPast  // the first picture reports at once, later ones every 0.25 s
        let total = plan.expectedLength?.seconds
        func mixSound(upTo sample: Int) throws {
            guard let mixer, hasSound else { return }
            try mixer.mix(upTo: sample, block: sinks[0].audioBlock) { l, r, n in for s in sinks { try s.write(left: l, right: r, count: n) } }
        }
        do {
            while let picture = try nextPicture() {
                for sink in sinks { try sink.write(picture: picture) }
                frames += 1
                let pts = picture.pts ?? end
                if first == nil { first = pts }
                end = max(end, pts + (picture.duration ?? 1))
                if hasSound { try mixSound(upTo: Int(MediaTime(ticks: end, timeBase).ticks(TimeBase(num: 1, den: Int32(AudioMixer.rate))))) }
                let now = Date()
                if now.timeIntervalSince(lastReport) >= 0.25 {
                    lastReport = now
                    progress(
                        ConversionProgress(
                            frames: frames, outTime: MediaTime(ticks: pts - first!, timeBase).seconds, totalTime: total,
                            elapsed: now.timeIntervalSince(started), finished: false))
                }
            }
        } catch {
            failure.record(error)
            pictures.close()
        }
        if inline { compositor.finish() } else { done.wait() }
        if let error = failure.error { throw error }
        if let mixer { try mixSound(upTo: mixer.totalSamples) }
        try finishAll(sinks)

        let duration = MediaTime(ticks: end - (first ?? 0), timeBase)
        progress(
            ConversionProgress(
                frames: frames, outTime: duration.seconds, totalTime: total, elapsed: Date().timeIntervalSince(started),
                finished: true))
        let concealed =
            outcomes.all.values.reduce(0) { $0 + $1.errorsConcealed } + (mixer?.errorsConcealed ?? 0)
            + sinks.reduce(0) { $0 + $1.errorsConcealed }
        return RenderReport(
            frames: frames, duration: duration, errorsConcealed: concealed, clips: outcomes.all,
            mostClipsOpen: compositor.mostOpen)
    }
}

/// What each video clip turned out to be, recorded as it closes (on the compositor's thread).
final class ClipOutcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [Int: ClipOutcome] = [:]
    var all: [Int: ClipOutcome] { lock.lock(); defer { lock.unlock() }; return outcomes }

    func record(_ index: Int, _ source: ClipSource) {
        if let still = source as? StillClipSource, let photo = still.photo {
            let outcome = ClipOutcome(photo: photo, sourceColor: nil, toneMapped: photo.hdr != .sdr, errorsConcealed: 0)
            lock.lock(); outcomes[index] = outcome; lock.unlock()
        }
        if let split = source as? SplitClipSource {
            let videos = split.cells.compactMap { $0 as? VideoClipSource }
            let outcome = ClipOutcome(
                sourceColor: nil, toneMapped: videos.contains { $0.chain.toneMapped }, errorsConcealed: videos.reduce(0) { $0 + $1.errorsConcealed })
            lock.lock(); outcomes[index] = outcome; lock.unlock()
            return
        }
        guard let video = source as? VideoClipSource else { return }
        let chain = video.chain
        let outcome = ClipOutcome(
            sourceColor: chain.sourceColor, toneMapped: chain.toneMapped,
            toneDetail: chain.toneMapped && chain.toneMap.op == .auto ? chain.scenes.report : nil,
            slicesChecked: video.decoder.bitstreamCheck?.counts, errorsConcealed: video.errorsConcealed)
        lock.lock(); outcomes[index] = outcome; lock.unlock()
    }
}
