import Foundation
import SDRifyAudio
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// What every clip of a render is opened with.
package struct ClipOpening {
    package var canvas: Canvas
    package var toneMap: ToneMapping
    package var settings: DecodeSettings
    package var decodeThreads: Int
    package var warn: WarningHandler

    package init(canvas: Canvas, toneMap: ToneMapping, settings: DecodeSettings, decodeThreads: Int, warn: @escaping WarningHandler) {
        self.canvas = canvas; self.toneMap = toneMap; self.settings = settings; self.decodeThreads = decodeThreads; self.warn = warn
    }
}

/// A clip as a report names it (`compose --json`'s `clips`).
package struct ClipReport: Sendable {
    var source: String  // the file, or color:#RRGGBB
    var kind: String  // video, image, color
    package var hdr: HDRKind
    var orientationExif: Int
    var from: Double?  // range of the clip's own clock used (videos)
    var to: Double?
    var start: Double  // seconds into the output
    var duration: Double  // seconds shown (transitions included)
    var transition: Transition  // into the next clip
    var cells: [ClipReport] = []  // a split screen's
    var pip: [(file: String, start: Double, duration: Double)] = []  // its pictures in the picture, on the output

    package var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("file", kind == "color" || kind == "split" ? .null : .string(source)), ("source", .string(source)), ("kind", .string(kind)),
            ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])),
            ("from", from.map { .double($0) } ?? .null), ("to", to.map { .double($0) } ?? .null),
            ("start", .double(start)), ("duration", .double(duration)),
            ("transition", .object([("type", .string(transition.kind.rawValue)), ("duration", .double(transition.duration.seconds))]))
        ]
        if !cells.isEmpty { fields.append(("cells", .array(cells.map(\.cellJSON)))) }
        if !pip.isEmpty {
            fields.append(
                ("pip", .array(pip.map { .object([("file", .string($0.file)), ("start", .double($0.start)), ("duration", .double($0.duration))]) })))
        }
        return .object(fields)
    }

    /// A split screen's cell: what it shows.
    private var cellJSON: JSONValue {
        .object([
            ("source", .string(source)), ("kind", .string(kind)), ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])), ("from", from.map { .double($0) } ?? .null),
            ("to", to.map { .double($0) } ?? .null)
        ])
    }
}

/// What differs between the kinds of clip: how each is planned (its headers read, its length), how it opens, what
/// sound it has, and how a report names it. A new kind of clip is a case of `RenderPlan.Content` and its answers
/// here, beside its value in the timeline (`ClipMedia`).
extension RenderPlan.Clip {
    /// A timeline clip planned: its headers read (a video's, a photo's) and checked against its description, and how
    /// long it shows. Also its upright shape, which sizes the canvas (nil for a colour; `shapeKnown`: an earlier clip
    /// set the output's shape already), and a video's nominal rate.
    static func plan(
        _ spec: TimelineClip, index i: Int, label: String, output out: OutputSpec, shapeKnown: Bool, warn: WarningHandler
    ) throws -> (clip: RenderPlan.Clip, shape: (width: Int, height: Int)?, rate: FrameRate?) {
        var planned = try planPicture(spec, index: i, label: label, output: out, shapeKnown: shapeKnown, warn: warn)
        // Its pictures in the picture: each video planned as a clip of its own part.
        planned.clip.pips = try spec.pip.enumerated().map { k, pip in
            var video = TimelineClip(source: .video(pip.file))
            (video.from, video.to) = (pip.from, pip.to)
            let placed = try plan(video, index: i, label: "\(label), pip \(k + 1)", output: out, shapeKnown: true, warn: warn)
            guard case .video = placed.clip.content, let shape = placed.shape else {
                throw SDRifyError.usage("\(label), pip \(k + 1): \(pip.file) is a still picture: a picture in a picture is a video")
            }
            return RenderPlan.PlacedPictureInPicture(clip: placed.clip, spec: pip, shape: shape)
        }
        return planned
    }

    private static func planPicture(
        _ spec: TimelineClip, index i: Int, label: String, output out: OutputSpec, shapeKnown: Bool, warn: WarningHandler
    ) throws -> (clip: RenderPlan.Clip, shape: (width: Int, height: Int)?, rate: FrameRate?) {
        let fit = spec.fit ?? out.fit
        switch spec.source {
        case .split(let cellSpecs, let layout):
            // Each cell planned as a clip (its fit the cell's own, else the split's); the split shows for its duration,
            // else as long as its longest video cell (a shorter one holds its last picture), else as a still does.
            let cells = try cellSpecs.enumerated().map { k, cell in
                var cell = cell
                cell.fit = cell.fit ?? spec.fit
                return try plan(cell, index: i, label: "\(label), cell \(k + 1)", output: out, shapeKnown: true, warn: warn)
            }
            let videoLengths = cells.compactMap { c -> MediaTime? in if case .video = c.clip.content { c.clip.length } else { nil } }
            let clip = RenderPlan.Clip(
                index: i, name: label, spec: spec, content: .split(cells: cells.map(\.clip), layout: layout), fit: fit, from: .zero,
                length: spec.duration ?? videoLengths.max() ?? out.imageDuration)
            return (clip, nil, cells.lazy.compactMap(\.rate).first)
        case .color(let c):
            let clip = RenderPlan.Clip(
                index: i, name: label, spec: spec, content: .color(c), fit: fit, from: .zero, length: spec.duration ?? out.imageDuration)
            return (clip, nil, nil)
        case .video(var path), .image(var path):
            if spec.motion {
                // A motion photo's movie, read in place out of the photo (FFmpeg's subfile protocol).
                guard let movie = try MotionPhoto.find(path: path) else {
                    throw SDRifyError.usage("\(label): \"motion\": true, but the photo holds no movie (not a motion photo)")
                }
                path = movie.movieURL(path)
            }
            switch try Prober.openClip(path: path, allowTruncated: out.tolerateErrors) {
            case .still(let w, let h):
                if spec.from != nil || spec.to != nil {
                    throw SDRifyError.usage("\(label): a still picture takes a duration, not from/to")
                }
                let shape: (width: Int, height: Int)
                if !shapeKnown || spec.framing.crop != nil {
                    // The first clip sets the output's shape: a photo's EXIF orientation counts, and its turn. A
                    // crop is checked against the upright photo.
                    let upright = try StillPicture.decode(path, toneMap: out.toneMap)
                    try spec.framing.check((upright.width, upright.height), label: label)
                    shape = spec.framing.size((upright.width, upright.height))
                } else {
                    shape = spec.framing.size((w, h))
                }
                let clip = RenderPlan.Clip(
                    index: i, name: label, spec: spec, content: .image(path: path), fit: fit, from: .zero,
                    length: spec.duration ?? out.imageDuration)
                return (clip, shape, nil)
            case .video(let info, let demuxer, let truncated):
                if let truncated { warn("\(truncated): composing what it holds") }
                if let codec = demuxer.undecodableAudio {
                    warn(
                        "\(path): the audio (\(codec)) cannot be decoded here: \(demuxer.audioStreamIndex == nil ? "silence instead" : "the next audio track instead")"
                    )
                }
                if case .image = spec.source, !spec.motion { throw SDRifyError.usage("\(label): is a video, not a still picture") }
                let orientation = try info.supportedOrientation().then(spec.framing.turn)
                try spec.framing.check(info.video.displaySize, label: label)
                let length = try RenderPlan.videoLength(info, demuxer)
                let from = spec.from ?? .zero
                guard from < length else {
                    throw SDRifyError.usage(
                        String(format: "\(label): from (%.3f s) is past the end of the video (%.3f s)", from.seconds, length.seconds))
                }
                var to = min(spec.to ?? length, length)
                if let d = spec.duration, spec.to == nil { to = min(from + d, length) }
                // from/to are the file's own times; a retimed clip shows that part for as long as its map makes it.
                let retiming = try Retiming.decide(
                    info, flatten: out.flattenSlowMotion, speed: spec.speed, tolerateErrors: out.tolerateErrors, label: label, warn: warn)
                let start = demuxer.videoStart + from
                let shows = retiming.map.output(start + (to - from)) - retiming.map.output(start)
                let clip = RenderPlan.Clip(
                    index: i, name: label, spec: spec, content: .video(info: info, orientation: orientation), fit: fit,
                    from: from, sourceStart: demuxer.videoStart, length: shows, sourceLength: to - from, retiming: retiming)
                return (clip, spec.framing.size(info.video.displaySize), demuxer.nominalFrameRate)
            }
        }
    }

    /// The clip opened for the render: its pictures at any time of its own clock, fitted into the canvas. A clip on
    /// the source's own clock hands its chain's pictures straight on, so its ring holds what the sinks may hold.
    func open(_ with: ClipOpening, clock pictureClock: PictureClock, inline: Bool) throws -> ClipSource {
        switch content {
        case .color(let c): return StillClipSource(try StillPicture.color(c, canvas: with.canvas))
        case .image(let path):
            let shown = try StillPicture.image(path, framing: spec.framing, fit: fit, canvas: with.canvas, toneMap: with.toneMap)
            return StillClipSource(shown.frame, photo: shown.origin)
        case .split(let cells, let layout):
            let places = layout.cells(width: with.canvas.width, height: with.canvas.height)
            var opened: [ClipSource] = []
            do {
                for (cell, place) in zip(cells, places) {
                    var inCell = with
                    inCell.canvas = Canvas(
                        width: place.width, height: place.height,
                        backdrop: try Backdrop(with.canvas.backdrop.background, width: place.width, height: place.height, range: with.canvas.range),
                        range: with.canvas.range)
                    opened.append(try cell.open(inCell, clock: pictureClock, inline: inline))
                }
                return try SplitClipSource(cells: opened, places: places, canvas: with.canvas)
            } catch {
                for source in opened { source.close() }
                throw error
            }
        case .video(let info, let orientation):
            let ringSize: Int
            if case .source = pictureClock { ringSize = Compositor.ringSize } else { ringSize = 1 }
            return try VideoClipSource(
                demuxer: try demuxer ?? Demuxer(path: info.path), info: info, orientation: orientation, clock: clock,
                size: with.canvas.fitted(spec.framing.size(info.video.displaySize), fit), framing: spec.framing,
                canvas: with.canvas, toneMap: with.toneMap, settings: with.settings, decodeThreads: with.decodeThreads, inline: inline,
                ringSize: ringSize, warn: with.warn)
        }
    }

    /// A picture in a picture opened: its video at its base size (the placement's, in the picture's own shape).
    static func openPip(
        _ pip: RenderPlan.PlacedPictureInPicture, size: (width: Int, height: Int), _ with: ClipOpening, clock: PictureClock, inline: Bool
    ) throws -> ClipSource {
        var inPlace = with
        inPlace.canvas = Canvas(width: size.width, height: size.height, backdrop: Backdrop.black(size.width, size.height), range: with.canvas.range)
        return try pip.clip.open(inPlace, clock: clock, inline: inline)
    }

    /// The clip's own sound from where it starts showing, retimed as its pictures are; nil for a clip without.
    package func sound(tolerateErrors: Bool) throws -> SoundReader? {
        switch content {
        case .video(let info, _):
            return try PCMReader(path: info.path, start: sourceStart + from, tolerateErrors: tolerateErrors, map: clock.map)
        case .split(let cells, _):
            // The cells' sounds together, each at its own volume (the split's volume is the segment's).
            let parts = try cells.compactMap { cell in try cell.sound(tolerateErrors: tolerateErrors).map { ($0, Float(cell.spec.volume)) } }
            return parts.isEmpty ? nil : SoundMix(parts)
        case .image, .color: return nil
        }
    }

    /// The clip as the report names it, given what the render found (a video's HDR kind by its SEI, a photo's own).
    package func report(_ outcome: ClipOutcome?, fps: FrameRate) -> ClipReport {
        var report = pictureReport(outcome, fps: fps)
        report.pip = pips.map { ($0.spec.file, fps.time(ofFrame: $0.startFrame).seconds, fps.time(ofFrame: $0.endFrame - $0.startFrame).seconds) }
        return report
    }

    private func pictureReport(_ outcome: ClipOutcome?, fps: FrameRate) -> ClipReport {
        let start = fps.time(ofFrame: startFrame).seconds, shown = fps.time(ofFrame: frames).seconds
        switch content {
        case .video(let info, let orientation):
            return ClipReport(
                source: info.path, kind: "video", hdr: outcome?.sourceColor?.hdrKind ?? info.video.hdrKind, orientationExif: orientation.rawValue,
                // from and to on the clip's own clock (a speed or a slow motion changes how long it shows, not them).
                from: from.seconds, to: (from + (sourceLength ?? length)).seconds, start: start, duration: shown, transition: spec.transition)
        case .image(let path):
            let photo = outcome?.photo
            return ClipReport(
                source: path, kind: "image", hdr: photo?.hdr ?? .sdr, orientationExif: photo?.orientation.rawValue ?? 1, from: nil, to: nil,
                start: start, duration: shown, transition: spec.transition)
        case .color(let color):
            return ClipReport(
                source: "color:\(color.hex)", kind: "color", hdr: .sdr, orientationExif: 1, from: nil, to: nil, start: start, duration: shown,
                transition: spec.transition)
        case .split(let cells, let layout):
            var report = ClipReport(
                source: "split:\(layout.rawValue)", kind: "split",
                hdr: cells.lazy.flatMap(\.videos).map(\.video.hdrKind).first { $0 != .sdr } ?? .sdr,
                orientationExif: 1, from: nil, to: nil, start: start, duration: shown, transition: spec.transition)
            report.cells = cells.map { $0.report(nil, fps: fps) }
            return report
        }
    }
}
