import Foundation

/// Asks the clips active at each output frame for their pictures, mixes a transition where two overlap, then
/// lays the overlays on top, on the output's clock. Opens each clip when it is first needed (the next one a
/// little early, so its decoder is running by then) and closes it when it is done: never more than two open.
final class Compositor: @unchecked Sendable {  // used by one thread at a time
    let plan: CompositionPlan
    private let overlays: OverlayStage?
    private let open: (CompositionPlan.Clip) throws -> ClipSource
    /// Told of each clip as it closes (what it turned out to be: its HDR kind, damage concealed).
    var closed: (CompositionPlan.Clip, ClipSource) -> Void = { _, _ in }
    private var sources: [Int: ClipSource] = [:]
    private let ring: FrameRing
    /// Most clips open at once so far (the test of the two-clip rule).
    private(set) var mostOpen = 0

    init(plan: CompositionPlan, overlays: OverlayStage?, ringSize: Int, open: @escaping (CompositionPlan.Clip) throws -> ClipSource) throws {
        self.plan = plan; self.overlays = overlays; self.open = open
        ring = try FrameRing(size: ringSize, width: plan.canvas.width, height: plan.canvas.height)
    }

    static let maxOpen = 2

    /// Output frame `n`, with its timestamp `n` (in frames).
    func frame(_ n: Int) throws -> Frame {
        let active = plan.clips.filter { $0.startFrame <= n && n < $0.endFrame }
        for (index, source) in sources where !active.contains(where: { $0.index == index }) && index < (active.first?.index ?? Int.max) {
            source.close()
            closed(plan.clips[index], source)
            sources[index] = nil
        }
        let out = try ring.next()
        switch active.count {
        case 1:
            TransitionMixer.copy(try picture(active[0], n), into: out)
        case 2:
            let (a, b) = (active[0], active[1])
            let k = n - b.startFrame
            let progress = (Double(k) + 0.5) / Double(a.transitionFrames)
            TransitionMixer.draw(a.spec.transition.kind, progress: progress, a: try picture(a, n), b: try picture(b, n), into: out)
        default:
            throw SDRifyError.conversion("timeline: \(active.count) clips at frame \(n)")  // the plan makes this impossible
        }
        // The next clip starts decoding while this one plays alone.
        if active.count == 1, let next = plan.clips.first(where: { $0.index == active[0].index + 1 }), sources[next.index] == nil {
            try openSource(next)
        }
        let time = plan.fps.time(ofFrame: n).seconds
        overlays?.apply(to: out, time: time)
        out.pts = Int64(n)
        out.duration = 1
        return out
    }

    private func picture(_ clip: CompositionPlan.Clip, _ n: Int) throws -> Frame {
        let source = try sources[clip.index] ?? openSource(clip)
        let local = plan.fps.time(ofFrame: n - clip.startFrame).seconds
        return try source.picture(at: local)
    }

    @discardableResult
    private func openSource(_ clip: CompositionPlan.Clip) throws -> ClipSource {
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
    }
}
