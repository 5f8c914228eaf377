import Foundation
import SDRifyMedia
import SDRifyValues

/// An input that cannot be opened twice and read at will: `-` (stdin), a FIFO, a socket or a character device. Its
/// bytes are kept in a file of its own that has no name (made and unlinked at once, so nothing is left behind however
/// the run ends), which every reader opens as /proc/self/fd/N. Its first bytes must begin a format libavformat
/// reads: anything else is refused at once, before the rest is read. Messages and reports name it as given.
enum StreamInput {
    /// The names the streams were given, by the path they are read through.
    nonisolated(unsafe) private(set) static var given: [(read: String, given: String)] = []

    static func isStream(_ path: String) -> Bool {
        if path == "-" { return true }
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR
    }

    /// `path` itself for a file; for a stream, the path its kept bytes are read through.
    static func readable(_ path: String) throws -> String {
        guard isStream(path) else { return path }
        let source = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw SDRifyError(.invalidInput, "\(path): cannot read (\(String(cString: strerror(errno))))") }
        defer { if source != 0 { close(source) } }
        let name = path
        var template = Array((NSTemporaryDirectory() + "/sdrify-stream-XXXXXX").utf8CString)
        let kept = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard kept >= 0 else { throw SDRifyError(.outputProblem, "\(name): cannot keep the stream (\(String(cString: strerror(errno))))") }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }  // the kept file has no name: gone when closed
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var head = Data(), checked = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw SDRifyError(.invalidInput, "\(name): cannot read (\(String(cString: strerror(errno))))") }
            if !checked {
                // The format is told from the first 64 KiB (or all there is).
                head.append(contentsOf: buffer[0..<n])
                if n == 0 || head.count >= 64 << 10 {
                    checked = true
                    guard !head.isEmpty else { throw SDRifyError(.invalidInput, "\(name): the stream is empty") }
                    guard StreamHead.format(of: head) != nil else {
                        throw SDRifyError(.invalidInput, "\(name): not a media stream (its first bytes begin no format sdrify reads)")
                    }
                }
            }
            if n == 0 { break }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { write(kept, $0.baseAddress! + done, n - done) }
                if w < 0 && errno == EINTR { continue }
                guard w > 0 else { throw SDRifyError(.outputProblem, "\(name): cannot keep the stream (\(String(cString: strerror(errno))))") }
                done += w
            }
        }
        let readPath = "/proc/self/fd/\(kept)"
        given.append((readPath, path))
        return readPath
    }

    /// `text` with each stream named as it was given.
    static func naming(_ text: String) -> String {
        given.reduce(text) { $0.replacingOccurrences(of: $1.read, with: $1.given) }
    }

    /// The same in serialized JSON: the name as a JSON string's contents.
    static func naming(json text: String) -> String {
        given.reduce(text) { text, stream in
            let quoted = JSONValue.string(stream.given).serialized(pretty: false)
            return text.replacingOccurrences(of: stream.read, with: String(quoted.dropFirst().dropLast()))
        }
    }
}
