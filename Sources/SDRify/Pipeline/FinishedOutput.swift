import Foundation

/// Whether a file at an output path is one a finished run left (for `--skip-existing`). sdrify's outputs appear
/// only once complete (see AtomicOutput), but the path may hold something else: a copy cut short, another tool's
/// partial file. A finished MP4/MOV is a chain of top-level boxes that ends exactly at the end of the file, starts
/// with `ftyp` and holds both `moov` and `mdat`. Read by walking box headers only: nothing in the file is decoded.
public enum FinishedOutput {
    public static func isComplete(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 16 else { return false }
        var offset: UInt64 = 0
        var kinds: [String] = []
        while offset < size {
            guard (try? handle.seek(toOffset: offset)) != nil,
                  let head = try? handle.read(upToCount: 16), head.count >= 8 else { return false }
            let bytes = [UInt8](head)
            var length = bytes[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let kind = String(decoding: bytes[4..<8], as: UTF8.self)
            if length == 1 {  // a 64-bit size follows the type
                guard bytes.count == 16 else { return false }
                length = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            } else if length == 0 {
                length = size - offset  // "to the end of the file"
            }
            guard length >= 8, length <= size - offset else { return false }
            kinds.append(kind)
            offset += length
        }
        return kinds.first == "ftyp" && kinds.contains("moov") && kinds.contains("mdat")
    }
}
