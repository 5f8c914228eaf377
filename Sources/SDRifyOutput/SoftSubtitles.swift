import Foundation
import SDRifyCaptions
import SDRifyMedia

/// Text subtitle tracks kept or added in an MP4/MOV, written as mov_text: each one's cues (already on the output's
/// clock) with its language, in the captions' default style.
package struct SoftSubtitles {
    private let tracks: [(track: SubtitleTrack, events: [(start: Double, end: Double, text: String)])]

    /// Adds a stream per track to `muxer` (before its header is written).
    package init(_ subtitles: [(cues: [Cue], language: String?)], muxer: Muxer) throws {
        let header = ASSScript.head(width: 384, height: 288, style: CaptionStyle().assStyle(width: 384, height: 288))
        tracks = try subtitles.map { entry in
            let events = entry.cues.map { cue in (cue.start.seconds, cue.end.seconds, cue.lines.map(SubtitleParser.assText).joined(separator: "\\N"))
            }
            return (try SubtitleTrack(muxer: muxer, language: entry.language, header: header), events)
        }
    }

    /// Writes every cue (after the muxer's header).
    package func write(to muxer: Muxer) throws {
        for (track, events) in tracks { try track.write(events, to: muxer) }
    }
}
