import Foundation
import SDRifyCaptions
import SDRifyProbe
import SDRifyValues

/// The one rule for a file or directory already at an output's path (`OverwritePolicy`): whether this run may
/// replace it, and when not, the message that says what the safe choices are. Read before the sandbox closes.
package enum ExistingOutput {
    /// Whether sdrify made the file at `path`: its mark (a movie's encoder tag, an image's comment), or for caption
    /// text, which has no place for one, exactly the text sdrify writes for the cues it holds.
    package static func madeBySdrify(file path: String) -> Bool {
        if OutputMark.isMarked(path: path) { return true }
        guard let format = CaptionFormat(path: path), let bytes = FileManager.default.contents(atPath: path), bytes.count < 8 << 20,
            let cues = try? CaptionFile.cues(path), !cues.isEmpty, let written = try? CaptionWriter.text(cues, format: format, fix: false)
        else { return false }
        return Array(written.text.utf8) == [UInt8](bytes)
    }

    /// Whether a directory is an earlier output of sdrify's: nothing but files, at least one with the mark, and
    /// every file of a kind that carries a mark carrying it (playlists, WebVTT and media segments carry none).
    package static func madeBySdrify(directory path: String) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        var marked = false
        for entry in entries {
            let file = "\(path)/\(entry)"
            var st = stat()
            guard lstat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
            if OutputMark.isMarked(path: file) { marked = true; continue }
            let neutral = ["m3u8", "vtt", "m4s"].contains(URL(fileURLWithPath: entry).pathExtension.lowercased())
            guard neutral else { return false }
        }
        return marked
    }

    /// Whether two paths name one file (a link, another spelling).
    package static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Throws when the existing `path` may not be replaced under `policy` (nothing there: nothing to say).
    package static func check(_ path: String, policy: OverwritePolicy, directory: Bool = false) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        if directory {
            guard isDirectory else { throw SDRifyError.output("\(path): exists and is not a directory") }
        } else if isDirectory {
            throw SDRifyError.output("\(path): is a directory")
        }
        guard policy != .anything else { return }
        let ours = directory ? madeBySdrify(directory: path) : madeBySdrify(file: path)
        switch policy {
        case .anything:
            return
        case .keep:
            throw SDRifyError.output(
                ours
                    ? "\(path): already exists (sdrify made it: -y replaces it, or choose another name)"
                    : "\(path): already exists and sdrify did not make it: choose another name (two inputs? use --output-dir DIR); --overwrite-original replaces it"
            )
        case .sdrifyOutputs:
            guard !ours else { return }
            throw SDRifyError.output(
                "\(path): already exists and sdrify did not make it, so -y keeps it: choose another name, or --overwrite-original to replace it"
            )
        }
    }
}
