import Foundation
import SDRifyMedia
import SDRifyOutput
import SDRifyPresets
import SDRifyValues

/// What `hls` is asked to do: a conversion (its input, part, frame rate, tone mapping, encoder settings) whose
/// output is a directory of renditions.
package struct HLSOptions: Sendable {
    package var conversion: ConvertOptions
    package var ladder = Ladder.standard
    package var segmentLength: MediaTime = 4
    /// `--max-bitrate`: one cap for every rendition, or one per rung in the ladder's order as given.
    package var maxBitRates: [BitRate] = []

    package static let segmentLengths: ClosedRange<Double> = 1...30

    package init(input: String, directory: String, preset: ExportPreset) {
        conversion = ConvertOptions(input: input, output: directory, preset: preset)
    }

    /// The cap for a rung: the one given for all, or the one at its place in the ladder as given.
    func cap(forRung rung: Int) -> BitRate? {
        if maxBitRates.count == 1 { return maxBitRates[0] }
        guard !maxBitRates.isEmpty else { return nil }
        // A source smaller than every rung makes one rendition of its own size: it takes the smallest rung's cap.
        let given = ladder.given
        let i = given.firstIndex(of: rung) ?? given.indices.min(by: { given[$0] < given[$1] })!
        return i < maxBitRates.count ? maxBitRates[i] : nil
    }
}

/// What `hls --json` reports.
package struct HLSResult: Sendable {
    package var conversion: ConversionResult
    package var renditions: [HLSRenditionResult]
    var segmentLength: Double

    /// Convert's report, its `preset` (not one here) giving way to the segment length and the renditions.
    package var json: JSONValue {
        guard case .object(var fields) = conversion.json else { return conversion.json }
        fields.removeAll { $0.0 == "preset" }
        fields.insert(contentsOf: [("segment_seconds", .double(segmentLength)), ("renditions", .array(renditions.map(\.json)))], at: 2)
        return .object(fields)
    }
}

/// `hls IN OUTDIR`: one render (decoded, oriented, tone mapped once) into an HLS ladder (HLSSink).
package enum HLSPackager {
    package static func run(
        _ options: HLSOptions, warn: @escaping WarningHandler = { _ in }, progress: @escaping ProgressHandler = { _ in }
    ) throws -> HLSResult {
        if options.maxBitRates.count > 1, options.maxBitRates.count != options.ladder.given.count {
            throw SDRifyError.usage(
                "--max-bitrate: give one rate for every rendition or one per rung (\(options.ladder.given.count)), not \(options.maxBitRates.count)")
        }
        var convert = options.conversion
        convert.size = .ladder(options.ladder)
        convert.writesVideoFile = false
        convert.poster = nil
        var sink: HLSSink? = nil
        let result = try Transcoder.render(convert, pictures: true, warn: warn, progress: progress) { plan, encodeThreads, carryOver in
            let directory = try AtomicDirectory.open(finalPath: convert.output, inputPaths: convert.filesRead, overwrite: convert.overwrite)
            let requests = plan.renditions.map { r in
                var output = plan.timeline.output
                output.maxBitRate = options.cap(forRung: r.rung)
                return HLSRenditionRequest(rendition: r, settings: output.encoderSettings(threads: encodeThreads))
            }
            let made = try HLSSink(directory: directory, renditions: requests, segmentLength: options.segmentLength, carryOver: carryOver)
            sink = made
            return [made]
        }
        return HLSResult(conversion: result, renditions: sink?.results ?? [], segmentLength: options.segmentLength.seconds)
    }
}
