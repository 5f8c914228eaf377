import Foundation
import SDRifyMedia
import SDRifyOutput
import SDRifyTimeline
import SDRifyValues

/// What `thumbnail`, `sheet` and `sprites` report (`--json`): the conversion's fields plus their own.
package struct StillsResult: Sendable {
    package var conversion: ConversionResult
    var fields: [(String, JSONValue)]

    /// Convert's report with these fields after `input` and `output` (and no `preset`: the size is the still's).
    package var json: JSONValue {
        guard case .object(var all) = conversion.json else { return conversion.json }
        all.removeAll { entry in entry.0 == "preset" || fields.contains { $0.0 == entry.0 } }  // a field here says it instead
        all.insert(contentsOf: fields, at: 2)
        return .object(all)
    }
}

/// Stills of the video, each the very picture the MP4 shows then (upright, tone mapped, rendered by the same path
/// from the start of the video, so scene-adaptive tone mapping has seen what it sees in the MP4), scaled to the
/// size asked for: a thumbnail (`thumbnail`), a contact sheet (`sheet`), seek-preview sprites (`sprites`).
package enum Stills {
    /// How much of the video `--best` looks at: the first 40 %, at least 1 s and at most 20 s.
    static func bestWindow(length: MediaTime) -> MediaTime { min(MediaTime(20), max(MediaTime(1), length.scaled(2, 5))) }

    /// `thumbnail IN OUT`: the picture at `at` (default: 1 s in, or the middle of a video under 2 s), or with
    /// `best` the most representative of the first part (BestPictureSink).
    package static func thumbnail(
        _ options: ConvertOptions, at: MediaTime?, best: Bool, warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in }
    ) throws -> StillsResult {
        var convert = options
        convert.writesVideoFile = false
        guard ImageFileType(path: options.output) != nil else {
            throw SDRifyError.usage("\(options.output): a thumbnail is a \(ImageFileType.extensions) file")
        }
        // Rendered from the start to just past the picture needed: its length is read from the headers first. Times are
        // the video's as it plays (a slow-motion capture flattened is shorter than its file): the render is cut in the
        // file's own time.
        let opened = try Prober.open(path: options.input, allowTruncated: options.tolerateErrors)
        let retiming = try Retiming.decide(
            opened.info, flatten: options.flattenSlowMotion, speed: options.speed, tolerateErrors: options.tolerateErrors,
            label: options.input, warn: { _ in })  // (the render says what it says again)
        let origin = opened.demuxer.videoStart, map = retiming.map
        let length = opened.info.format.duration.map { map.output(origin + $0) - map.output(origin) }
        let window = best ? bestWindow(length: length ?? 20) : nil
        let time = at ?? PosterRequest.defaultTime(outputLength: length)
        if let length, !best, time >= length {
            throw SDRifyError.usage("the thumbnail time (\(time)) is past the end of the video (\(length))")
        }
        let end = (window ?? time) + MediaTime(1).half
        convert.duration = map.source(ofOutput: map.output(origin) + end) - origin
        var chosen: MediaTime? = nil
        var bestSink: BestPictureSink? = nil, atSink: PosterSink? = nil
        let result = try Transcoder.render(convert, pictures: true, warn: warn, progress: progress) { plan, _, _ in
            if let window {
                let sink = try BestPictureSink(
                    path: options.output, inputs: convert.filesRead, overwrite: options.overwrite, spacing: window.scaled(1, 32))
                bestSink = sink
                return [sink]
            }
            let sink = try PosterSink(
                PosterRequest(path: options.output, at: time), inputs: convert.filesRead, overwrite: options.overwrite,
                outputLength: plan.expectedLength)
            atSink = sink
            return [sink]
        }
        chosen = bestSink?.chosen?.time ?? atSink?.result.map { MediaTime(seconds: $0.pictureTime) }
        var fields: [(String, JSONValue)] = [("time", .seconds(chosen ?? time))]
        if let look = bestSink?.chosen?.look {
            fields.append(("chosen_by", .string("best")))
            fields.append(
                (
                    "look",
                    .object([
                        ("mean", .double((look.mean * 1000).rounded() / 1000)), ("contrast", .double((look.contrast * 1000).rounded() / 1000)),
                        ("sharpness", .double((look.sharpness * 1000).rounded() / 1000))
                    ])
                ))
        }
        return StillsResult(conversion: result, fields: fields)
    }

    /// `sheet IN OUT`: columns × rows pictures at even times, each labelled, tiles `width` wide in all.
    package static func sheet(
        _ options: ConvertOptions, columns: Int, rows: Int, width: Int, warn: @escaping WarningHandler = { _ in },
        progress: @escaping ProgressHandler = { _ in }
    ) throws -> StillsResult {
        var convert = options
        convert.writesVideoFile = false
        let tileWidth = max(2, (width - (columns + 1) * ContactSheetSink.gap) / columns & ~1)
        convert.size = .box(width: tileWidth, height: tileWidth * 4)
        var sheet: ContactSheetSink? = nil
        let result = try Transcoder.render(convert, pictures: true, warn: warn, progress: progress) { plan, _, _ in
            guard let length = plan.expectedLength else { throw SDRifyError.invalidInput("\(options.input): its length is not known") }
            let sink = try ContactSheetSink(
                path: options.output, inputs: convert.filesRead, overwrite: options.overwrite, columns: columns, rows: rows, width: width,
                length: length)
            sheet = sink
            return [sink]
        }
        let times = (sheet?.times ?? []).map { JSONValue.double(($0.seconds * 1000).rounded() / 1000) }
        // The size is the sheet's; a tile's as its own fields.
        let size = sheet?.size ?? (0, 0)
        return StillsResult(
            conversion: result,
            fields: [
                ("grid", .string("\(columns)x\(rows)")), ("times", .array(times)), ("width", .int(Int64(size.width))),
                ("height", .int(Int64(size.height))), ("tile_width", .int(Int64(result.width))), ("tile_height", .int(Int64(result.height)))
            ])
    }

    /// `sprites IN OUTDIR`: a tile every `every`, columns × rows to a sprite image, and thumbnails.vtt.
    package static func sprites(
        _ options: ConvertOptions, every: MediaTime, columns: Int, rows: Int, tileBox: (width: Int, height: Int),
        warn: @escaping WarningHandler = { _ in }, progress: @escaping ProgressHandler = { _ in }
    ) throws -> StillsResult {
        var convert = options
        convert.writesVideoFile = false
        convert.size = .box(width: tileBox.width, height: tileBox.height)
        var sprites: SpriteSink? = nil
        let result = try Transcoder.render(convert, pictures: true, warn: warn, progress: progress) { plan, _, _ in
            guard let length = plan.expectedLength else { throw SDRifyError.invalidInput("\(options.input): its length is not known") }
            let directory = try AtomicDirectory.open(finalPath: options.output, inputPaths: convert.filesRead, overwrite: options.overwrite)
            let sink = SpriteSink(directory: directory, every: every, columns: columns, rows: rows, length: length)
            sprites = sink
            return [sink]
        }
        return StillsResult(
            conversion: result,
            fields: [
                ("tiles", .int(Int64(sprites?.tiles ?? 0))), ("sprites", .int(Int64(sprites?.sprites ?? 0))),
                ("every_s", .double(every.seconds)), ("vtt", .string("thumbnails.vtt"))
            ])
    }
}
