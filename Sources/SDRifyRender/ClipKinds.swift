import Foundation
import SDRifyMedia
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// What every clip of a render is opened with.
package struct ClipOpening {
    package var canvas: Canvas
    package var toneMap: ToneMapOperator
    package var settings: DecodeSettings
    package var decodeThreads: Int
    package var warn: WarningHandler

    package init(canvas: Canvas, toneMap: ToneMapOperator, settings: DecodeSettings, decodeThreads: Int, warn: @escaping WarningHandler) {
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

    package var json: JSONValue {
        .object([
            ("file", kind == "color" ? .null : .string(source)), ("source", .string(source)), ("kind", .string(kind)),
            ("hdr", .string(hdr.rawValue)),
            ("orientation", .object([("exif", .int(Int64(orientationExif)))])),
            ("from", from.map { .double($0) } ?? .null), ("to", to.map { .double($0) } ?? .null),
            ("start", .double(start)), ("duration", .double(duration)),
            ("transition", .object([("type", .string(transition.kind.rawValue)), ("duration", .double(transition.duration.seconds))]))
        ])
    }
}

/// What differs between the kinds of clip once planned (RenderPlan.make tells them apart): how each opens, what
/// sound it has, and how a report names it. A new kind of clip is a case of `RenderPlan.Content` and its answers here.
extension RenderPlan.Clip {
    /// The clip opened for the render: its pictures at any time of its own clock, fitted into the canvas. A clip on
    /// the source's own clock hands its chain's pictures straight on, so its ring holds what the sinks may hold.
    func open(_ with: ClipOpening, clock pictureClock: PictureClock, inline: Bool) throws -> ClipSource {
        switch content {
        case .color(let c): return StillClipSource(try StillPicture.color(c, canvas: with.canvas))
        case .image(let path):
            let shown = try StillPicture.image(path, framing: spec.framing, fit: fit, canvas: with.canvas, toneMap: with.toneMap)
            return StillClipSource(shown.frame, photo: shown.origin)
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

    /// The clip's own sound from where it starts showing, retimed as its pictures are; nil for a clip without.
    package func sound(tolerateErrors: Bool) throws -> PCMReader? {
        guard case .video(let info, _) = content else { return nil }
        return try PCMReader(path: info.path, start: sourceStart + from, tolerateErrors: tolerateErrors, map: clock.map)
    }

    /// The clip as the report names it, given what the render found (a video's HDR kind by its SEI, a photo's own).
    package func report(_ outcome: ClipOutcome?, fps: FrameRate) -> ClipReport {
        let start = fps.time(ofFrame: startFrame).seconds, shown = fps.time(ofFrame: frames).seconds
        switch content {
        case .video(let info, let orientation):
            return ClipReport(
                source: info.path, kind: "video", hdr: outcome?.sourceColor?.hdrKind ?? info.video.hdrKind, orientationExif: orientation.rawValue,
                from: from.seconds, to: (from + length).seconds, start: start, duration: shown, transition: spec.transition)
        case .image(let path):
            let photo = outcome?.photo
            return ClipReport(
                source: path, kind: "image", hdr: photo?.hdr ?? .sdr, orientationExif: photo?.orientation.rawValue ?? 1, from: nil, to: nil,
                start: start, duration: shown, transition: spec.transition)
        case .color(let color):
            return ClipReport(
                source: "color:\(color.hex)", kind: "color", hdr: .sdr, orientationExif: 1, from: nil, to: nil, start: start, duration: shown,
                transition: spec.transition)
        }
    }
}
