import Foundation
import SDRifyCaptions
import SDRifyMedia
import SDRifyValues

/// Captions to burn in: a file (SRT, WebVTT or ASS) and the style for SRT/WebVTT.
package struct CaptionTrack: Equatable, Sendable {
    var file: String
    var style = CaptionStyle()
    package var offset = 0.0  // seconds added to every caption time
    /// The input's clock when the output is retimed (convert with a speed or slow motion): times are mapped by it
    /// after the offset (nil: the offset alone).
    package var clock: CueClock? = nil

    /// `input:N` names subtitle track N of the input instead of a file.
    package var inputTrack: Int? {
        guard file.hasPrefix("input:"), let n = Int(file.dropFirst(6)), n >= 0 else { return nil }
        return n
    }

    package init(file: String, style: CaptionStyle = CaptionStyle()) { self.file = file; self.style = style }
}

extension Parser {
    /// The style keys of a caption entry (shared by every key set that carries them).
    static let captionStyleKeys: Set<String> = Parser.textLookKeys.union(["offset", "position", "margin"])

    func captionStyle(_ o: [String: Any], at path: String) throws -> CaptionStyle {
        var s = CaptionStyle()
        s.look = try textLook(o, at: path, over: s.look)
        if let p = try string(o["position"], at: "\(path).position") {
            guard let position = CaptionStyle.Position(rawValue: p) else {
                throw fail("\(path).position", unknownChoice("position", p, CaptionStyle.Position.allCases.map(\.rawValue)))
            }
            s.position = position
        }
        if let m = try length(o["margin"], at: "\(path).margin") {
            guard m.resolve(against: 100) >= 0 else { throw fail("\(path).margin", "must be 0 or more") }
            s.margin = m
        }
        return s
    }

    func captionTrack(_ o: [String: Any], file: String, at path: String) throws -> CaptionTrack {
        var t = CaptionTrack(file: file, style: try captionStyle(o, at: path))
        t.offset = try number(o["offset"], at: "\(path).offset") ?? 0
        return t
    }
}

extension CaptionFile {
    /// The cues of subtitle track `track` of a media file (`--captions input:N`, the input's own subtitles kept).
    package static func cues(ofTrack track: Int, in path: String) throws -> [Cue] {
        let demuxer = try Demuxer(path: path)
        guard let info = demuxer.subtitleTracks.first(where: { $0.index == track }) else {
            throw SDRifyError.usage("\(path): track \(track) is not a subtitle track")
        }
        guard info.isText else { throw SDRifyError.unsupported("\(path): subtitle track \(track) (\(info.codec)) is pictures, not text") }
        return cues(ofEvents: try demuxer.subtitleEvents(track: track))
    }
}
