import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyValues

/// Makes the output's pictures in order. On a constant clock it asks the clips active at each output frame for
/// their pictures, mixes a transition where two overlap, and draws them on its own ring of canvas-sized pictures;
/// on the source's clock (a conversion) it hands on the one clip's pictures as they come, with their own times.
/// Either way the layers go on top, on the output's clock. Opens each clip when it is first needed (the next one
/// a little early, so its decoder is running by then) and closes it when it is done: never more than two open. A
/// clip's pictures in the picture are drawn on a copy of its picture, each opened while it shows.
package final class Compositor: @unchecked Sendable {  // used by one thread at a time
    let plan: RenderPlan
    private let layers: RenderLayers?
    private let open: (RenderPlan.Clip) throws -> ClipSource
    /// Told of each clip as it closes (what it turned out to be: its HDR kind, damage concealed).
    var closed: (RenderPlan.Clip, ClipSource) -> Void = { _, _ in }
    private var sources: [Int: ClipSource] = [:]
    private var zoomed: [Int: Frame] = [:]  // a zooming clip's picture through its window (one per open clip)
    private let openPip: (RenderPlan.PlacedPictureInPicture, (width: Int, height: Int)) throws -> ClipSource
    private var pips: [PictureInPictureKey: PictureInPictureSource] = [:]  // the pictures in pictures showing now
    private var withPips: [Int: Frame] = [:]  // a clip's picture with its pips drawn on it (one per open clip)
    struct PictureInPictureKey: Hashable { let clip: Int, pip: Int }
    private let ring: FrameRing?
    private var made = 0
    /// Most clips open at once so far (the test of the two-clip rule).
    private(set) var mostOpen = 0

    /// Pictures of the ring: one waiting between the compositor and the sinks, one in the sinks, one being made.
    package static let ringSize = 3

    package init(
        plan: RenderPlan, layers: RenderLayers?, open: @escaping (RenderPlan.Clip) throws -> ClipSource,
        openPip: @escaping (RenderPlan.PlacedPictureInPicture, (width: Int, height: Int)) throws -> ClipSource = { _, _ in
            throw SDRifyError.conversion("no pictures in pictures here")
        }
    ) throws {
        self.plan = plan; self.layers = layers; self.open = open; self.openPip = openPip
        if case .constant = plan.clock {
            ring = try FrameRing(size: Compositor.ringSize, width: plan.canvas.width, height: plan.canvas.height, kind: plan.canvas.range)
        } else {
            ring = nil
        }
    }

    static let maxOpen = 2

    /// The next output picture, nil after the last.
    func next() throws -> Frame? {
        defer { made += 1 }
        switch plan.clock {
        case .constant:
            return made < plan.totalFrames ? try frame(made) : nil
        case .source(let tb):
            let clip = plan.clips[0]
            guard let source = try (sources[0] ?? openSource(clip)) as? VideoClipSource else {
                throw SDRifyError.conversion("timeline: the source's clock needs one video clip")  // the plan makes this impossible
            }
            guard let picture = try source.nextPicture() else { return nil }
            try layers?.draw(on: picture, time: MediaTime(ticks: picture.pts ?? 0, tb))
            return picture
        }
    }

    /// Output frame `n` of a constant clock, with its timestamp `n` (in frames).
    private func frame(_ n: Int) throws -> Frame {
        let active = plan.clips.filter { $0.startFrame <= n && n < $0.endFrame }
        for (index, source) in sources where !active.contains(where: { $0.index == index }) && index < (active.first?.index ?? Int.max) {
            source.close()
            closed(plan.clips[index], source)
            sources[index] = nil
            zoomed[index] = nil
            withPips[index] = nil
            closePips { $0.clip == index }
        }
        let out = try ring!.next()
        switch active.count {
        case 1:
            TransitionMixer.copy(try picture(active[0], n), into: out)
        case 2:
            let (a, b) = (active[0], active[1])
            let k = n - b.startFrame
            let progress = (Double(k) + 0.5) / Double(a.transitionFrames)
            TransitionMixer.draw(
                a.spec.transition.kind, progress: progress, a: try picture(a, n), b: try picture(b, n), into: out, range: plan.canvas.range)
        default:
            throw SDRifyError.conversion("timeline: \(active.count) clips at frame \(n)")  // the plan makes this impossible
        }
        // The next clip starts decoding while this one plays alone.
        if active.count == 1, let next = plan.clips.first(where: { $0.index == active[0].index + 1 }), sources[next.index] == nil {
            try openSource(next)
        }
        try layers?.draw(on: out, time: plan.fps.time(ofFrame: n))
        out.pts = Int64(n)
        out.duration = 1
        return out
    }

    private func picture(_ clip: RenderPlan.Clip, _ n: Int) throws -> Frame {
        let picture = try zoomedPicture(clip, n)
        closePips { $0.clip == clip.index && n >= clip.pips[$0.pip].endFrame }
        let showing = clip.pips.indices.filter { clip.pips[$0].startFrame <= n && n < clip.pips[$0].endFrame }
        guard !showing.isEmpty else { return picture }
        // The clip's picture is its source's own (held for the next picture): the pips go on a copy.
        let out = try withPips[clip.index] ?? Frame(width: plan.canvas.width, height: plan.canvas.height, format: .output(plan.canvas.range))
        withPips[clip.index] = out
        try out.makeWritable()
        out.color = picture.color
        TransitionMixer.copy(picture, into: out)
        for k in showing {
            let key = PictureInPictureKey(clip: clip.index, pip: k), pip = clip.pips[k]
            let source = try pips[key] ?? PictureInPictureSource(pip, canvas: plan.canvas, open: openPip)
            pips[key] = source
            try source.draw(
                over: out, time: plan.fps.time(ofFrame: n - clip.startFrame).seconds, own: plan.fps.time(ofFrame: n - pip.startFrame))
        }
        return out
    }

    /// Closes the pips `which` selects.
    private func closePips(_ which: (PictureInPictureKey) -> Bool) {
        for key in pips.keys where which(key) {
            pips[key]?.close()
            pips[key] = nil
        }
    }

    private func zoomedPicture(_ clip: RenderPlan.Clip, _ n: Int) throws -> Frame {
        let source = try sources[clip.index] ?? openSource(clip)
        let picture = try source.picture(at: plan.fps.time(ofFrame: n - clip.startFrame))
        guard let zoom = clip.spec.zoom else { return picture }
        let out = try zoomed[clip.index] ?? Frame(width: plan.canvas.width, height: plan.canvas.height, format: .output(plan.canvas.range))
        zoomed[clip.index] = out
        out.color = picture.color
        let progress = clip.frames > 1 ? Double(n - clip.startFrame) / Double(clip.frames - 1) : 0
        ClipZoom.draw(zoom, progress: progress, from: picture, into: out)
        return out
    }

    @discardableResult
    private func openSource(_ clip: RenderPlan.Clip) throws -> ClipSource {
        precondition(sources.count < Compositor.maxOpen, "at most two clips are open")
        let source = try open(clip)
        sources[clip.index] = source
        mostOpen = max(mostOpen, sources.count)
        return source
    }

    /// Closes whatever is still open.
    func finish() {
        for (index, s) in sources { s.close(); closed(plan.clips[index], s) }
        sources = [:]
        closePips { _ in true }
    }
}
