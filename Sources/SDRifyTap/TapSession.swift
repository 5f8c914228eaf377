import Foundation
import SDRifyCaptions
import SDRifyFiles
import SDRifyValues

/// What `sdrify tap` works on: the lyric lines to time, the medium they are timed against, and the file the timing
/// is saved to. Saving checks the cues the page sends, writes the file atomically, and replaces an existing one only
/// when the page says the user agreed.
package final class TapSession: @unchecked Sendable {
    package let lines: [String]
    package let media: String  // as the user named it
    package let output: String
    package let format: CaptionFormat
    private let lock = NSLock()

    /// Lines of a plain text file, one lyric per non-empty line (surrounding blanks dropped). No lines is an error.
    package init(lyrics: String, media: String, output: String?) throws {
        guard let data = FileManager.default.contents(atPath: lyrics) else { throw SDRifyError.usage("\(lyrics): cannot read the lyrics") }
        let text = try CaptionFile.decode(data, path: lyrics)
        lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw SDRifyError.usage("\(lyrics): no lines to time (one lyric per line)") }
        self.media = media
        let out = output ?? URL(fileURLWithPath: media).deletingPathExtension().appendingPathExtension("srt").path
        guard let format = CaptionFormat(path: out), format.savesTapTimings else {
            throw SDRifyError.usage("\(out): the timing is saved as \(CaptionFormat.tapTimingExtensions)")
        }
        self.output = out
        self.format = format
    }

    /// One timed line as the page sends it: which line, and when it shows (seconds of the medium).
    package struct Timed: Decodable, Equatable {
        package var line: Int
        package var start: Double
        package var end: Double
    }

    /// `exists`: the file is there, and whether sdrify made it (the page says which before it asks to replace it).
    package enum SaveOutcome: Equatable { case saved(path: String, cues: Int), exists(path: String, madeBySdrify: Bool) }

    /// Writes `timed` (in any order; sorted by start) to the output. An existing file is kept unless `overwrite`: the
    /// person confirmed it on the page, having been told whether sdrify made it (the page's --overwrite-original).
    package func save(_ timed: [Timed], overwrite: Bool) throws -> SaveOutcome {
        lock.lock()
        defer { lock.unlock() }
        for (i, t) in timed.enumerated() {
            guard lines.indices.contains(t.line) else { throw SDRifyError.usage("cue \(i + 1): there is no line \(t.line + 1)") }
            guard t.start.isFinite, t.end.isFinite, t.start >= 0, t.end > t.start else {
                throw SDRifyError.usage("cue \(i + 1): it must end after it starts, at 0 s or later")
            }
        }
        guard !timed.isEmpty else { throw SDRifyError.usage("nothing is timed yet") }
        if !overwrite, FileManager.default.fileExists(atPath: output) {
            return .exists(path: output, madeBySdrify: ExistingOutput.madeBySdrify(file: output))
        }
        let cues = timed.sorted { ($0.start, $0.line) < ($1.start, $1.line) }.map { t in
            Cue(start: MediaTime(seconds: t.start), end: MediaTime(seconds: t.end), lines: [lines[t.line]])
        }
        let (text, _) = try CaptionWriter.text(cues, format: format, fix: false)
        let file = try AtomicOutput.open(finalPath: output, inputPaths: [media], policy: overwrite ? .anything : .keep)
        do {
            try file.write(Array(text.utf8))
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
        return .saved(path: output, cues: cues.count)
    }
}
