import Foundation
import SDRifyFiles
import SDRifyOutput
import SDRifyRender
import SDRifyTimeline
import SDRifyValues

/// A directory of renditions, segments and playlists (`hls`): one ladder per range, from the one render.
final class HLSDestination: OutputDestination {
    private let spec: HLSSpec
    private var sink: HLSSink?

    init(_ spec: HLSSpec) { self.spec = spec }

    var writesVideoFile: Bool { false }
    var keepsHDR: Bool { true }
    var takesGainMap: Bool { false }

    func validate(_ timeline: Timeline) throws {
        if let problem = spec.capProblem { throw SDRifyError.usage(problem) }
    }

    func prepare(_ timeline: inout Timeline) throws {
        timeline.output.size = .ladder(spec.ladder)
        timeline.output.poster = nil
    }

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] {
        let out = render.output, plan = render.plan
        try render.checkEncodable(plan.renditions.map { ($0.width, $0.height) })
        let directory = try AtomicDirectory.open(finalPath: out.path, inputPaths: render.inputs, policy: out.overwrite)
        // SDR rungs from the render's SDR picture (tone mapped once, when the render keeps the HDR), HDR ones from the
        // render's own.
        let requests = spec.ranges.flatMap { range in
            plan.renditions.map { r in
                var output = out
                output.maxBitRate = spec.cap(forRung: r.rung)
                return HLSRenditionRequest(
                    rendition: r, settings: render.encoderSettings(output, range: range),
                    suffix: spec.ranges.count > 1 && range == .hdr ? "-hdr" : "")
            }
        }
        let toSDR =
            plan.canvas.range == .sdr || !spec.ranges.contains(.sdr) ? nil : try plan.sdrPictures(toneMap: out.toneMap, layers: render.layers)
        let sink = try HLSSink(directory: directory, renditions: requests, segmentLength: spec.segmentLength, carryOver: render.carried, toSDR: toSDR)
        self.sink = sink
        return [sink]
    }

    func report(into result: inout ExportResult) {
        let made = sink?.results ?? []
        result.renditions = made
        result.destinationFields = [("segment_seconds", .double(spec.segmentLength.seconds)), ("renditions", .array(made.map(\.json)))]
    }
}
