import ArgumentParser
import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyOutput
import SDRify
import SDRifyTimeline
import SDRifyValues

/// `COLSxROWS` or `WxH`: two whole numbers from 1 up, or nil.
func pair(_ text: String) -> (Int, Int)? {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a > 0, b > 0 else { return nil }
    return (a, b)
}

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one picture of the video (upright, tone mapped) as JPEG, PNG or WebP.",
        usage: "sdrify thumbnail IN OUT\(ImageFileType.usageForm) [--at TIME | --best] [--size WxH] [options]",
        discussion: """
            The picture is the one the converted MP4 shows at that time. --best picks the most representative picture of \
            the first part of the video (the first 40 %, 1 to 20 s): not black or washed out, not flat (a fade), not \
            blurred, and of those the one nearest the part's average light (see docs/publishing.md).
            """)

    @Argument(help: "The input video.") var input: String
    @Argument(help: ArgumentHelp("The image to write.", valueName: "OUT")) var output: String
    @Option(name: CommandOptions.at.long, parsing: .unconditional, help: CommandOptions.at.argumentHelp) var at: TimeArgument?
    @Flag(help: "Choose the most representative picture of the first part of the video.") var best = false
    @Flag(name: .customLong("gain-map"), help: ArgumentHelp(CommandOptions.gainMapHelp)) var gainMap = false
    @Option(help: ArgumentHelp("Fit inside this box (never enlarged); without it, 1920x1080 either way round, as convert.", valueName: "WxH"))
    var size: String?
    @OptionGroup var render: RenderFlags
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        if at != nil, best { throw ValidationError("give --at TIME or --best, not both") }
        _ = try CommandOptions.at.checked(at?.seconds)
        if let size, pair(size).map({ $0.0 >= 2 && $0.1 >= 2 && $0.0 <= 16384 && $0.1 <= 16384 }) != true {
            throw ValidationError("--size: expected WxH in pixels (2 to 16384 each), not '\(size)'")
        }
        if ImageFileType(path: output) == nil { throw ValidationError("\(output): a thumbnail is a \(ImageFileType.extensions) file") }
        if gainMap, let problem = ImageFileType.gainMapProblem(output) { throw ValidationError("--gain-map: " + problem) }
    }

    func run() throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(output))]
        service.apply()
        var conversion = render.conversion(input: try StreamInput.readable(input), output: output)
        if let size, let (w, h) = pair(size) { conversion.output.size = .box(width: w, height: h) }
        conversion.output.gainMap = gainMap
        let request = ExportRequest(conversion, into: .thumbnail(at: try CommandOptions.at.value(ifGiven: at?.seconds), best: best))
        try Job(render, output: output, overwrite: render.replacing.policy, reads: request.filesRead).run { warn, report in
            let result = try Export.run(request, warn: warn, progress: report)
            return (result.json, result.decodeErrors, "sdrify: wrote \(output) (\(result.width)x\(result.height))")
        }
    }
}

struct Sheet: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a contact sheet: pictures at even times, each labelled with its time, as one JPEG or PNG.",
        usage: "sdrify sheet IN OUT\(ContactSheetSink.usageForm) [--grid COLSxROWS] [--width PIXELS] [options]")

    @Argument(help: "The input video.") var input: String
    @Argument(help: ArgumentHelp("The image to write.", valueName: "OUT")) var output: String
    @Option(help: ArgumentHelp("Columns and rows of pictures.", valueName: "COLSxROWS")) var grid: String = "4x4"
    @Option(parsing: .unconditional, help: ArgumentHelp("The sheet's width.", valueName: "PIXELS")) var width: Int = 1920
    @Flag(name: .customLong("gain-map"), help: ArgumentHelp(CommandOptions.gainMapHelp)) var gainMap = false
    @OptionGroup var render: RenderFlags
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        guard let (c, r) = pair(grid) else { throw ValidationError("--grid: expected COLSxROWS, not '\(grid)'") }
        if let problem = Destination.sheet(columns: c, rows: r, width: width).problem {
            throw ValidationError("--\(problem.setting): \(problem.message)")
        }
        guard ContactSheetSink.fileType(output) != nil else { throw ValidationError(ContactSheetSink.pathProblem(output)) }
        if gainMap, let problem = ImageFileType.gainMapProblem(output) { throw ValidationError("--gain-map: " + problem) }
    }

    func run() throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(output))]
        service.apply()
        let (columns, rows) = pair(grid)!
        var conversion = render.conversion(input: try StreamInput.readable(input), output: output)
        conversion.output.gainMap = gainMap
        let request = ExportRequest(conversion, into: .sheet(columns: columns, rows: rows, width: width))
        try Job(render, output: output, overwrite: render.replacing.policy, reads: request.filesRead).run { warn, report in
            let result = try Export.run(request, warn: warn, progress: report)
            return (result.json, result.decodeErrors, "sdrify: wrote \(output) (\(columns)x\(rows) pictures)")
        }
    }
}

struct Sprites: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write seek-preview sprites (tiles every few seconds) and thumbnails.vtt into a new directory.",
        usage: "sdrify sprites IN OUTDIR [--every SECONDS] [--tile COLSxROWS] [--size WxH] [options]",
        discussion: """
            OUTDIR gets sprite-1.jpg, sprite-2.jpg … (COLSxROWS tiles each, row by row) and thumbnails.vtt, whose cues cover \
            the whole video, each naming its tile as sprite-N.jpg#xywh=X,Y,W,H. The directory appears when complete.
            """)

    @Argument(help: "The input video.") var input: String
    @Argument(help: ArgumentHelp("The directory to make.", valueName: "OUTDIR")) var directory: String
    @Option(parsing: .unconditional, help: ArgumentHelp("One tile every this many seconds.", valueName: "SECONDS"))
    var every: Double = 5
    @Option(help: ArgumentHelp("Tiles per sprite image, columns and rows.", valueName: "COLSxROWS")) var tile: String = "5x5"
    @Option(help: ArgumentHelp("Each tile fits inside this box.", valueName: "WxH")) var size: String = "160x90"
    @OptionGroup var render: RenderFlags
    @OptionGroup var service: ServiceFlags

    func validate() throws {
        guard every.isFinite else { throw ValidationError("--every: must be a number of seconds, not \(every)") }
        guard let (c, r) = pair(tile) else { throw ValidationError("--tile: expected COLSxROWS, not '\(tile)'") }
        guard let (w, h) = pair(size) else { throw ValidationError("--size: expected WxH in pixels, not '\(size)'") }
        if let problem = destination(columns: c, rows: r, width: w, height: h).problem {
            throw ValidationError("--\(problem.setting): \(problem.message)")
        }
    }

    private func destination(columns: Int, rows: Int, width: Int, height: Int) -> Destination {
        .sprites(every: MediaTime(seconds: every), columns: columns, rows: rows, tileBox: .init(width: width, height: height))
    }

    func run() throws {
        FailureReport.identity = [("input", .string(input)), ("output", .string(directory))]
        service.apply()
        let (columns, rows) = pair(tile)!
        let (w, h) = pair(size)!
        let request = ExportRequest(
            render.conversion(input: try StreamInput.readable(input), output: directory),
            into: destination(columns: columns, rows: rows, width: w, height: h))
        try Job(render, output: directory, overwrite: render.replacing.policy, directory: true, reads: request.filesRead).run { warn, report in
            let result = try Export.run(request, warn: warn, progress: report)
            return (result.json, result.decodeErrors, "sdrify: wrote \(directory)")
        }
    }
}
