import Foundation
import SDRifyProbe

/// Whether a file at an output path is one a finished run left (for `--skip-existing`). sdrify's outputs appear
/// only once complete (see AtomicOutput), but the path may hold something else: a copy cut short, another tool's
/// partial file. A finished MP4/MOV is a chain of top-level boxes that ends exactly at the end of the file, starts
/// with `ftyp` and holds both `moov` and `mdat`. Read by walking box headers only: nothing in the file is decoded.
package enum FinishedOutput {
    package static func isComplete(path: String) -> Bool {
        guard let top = TopLevelBoxes(path: path), top.complete else { return false }
        let kinds = top.boxes.map(\.type)
        return kinds.first == "ftyp" && kinds.contains("moov") && kinds.contains("mdat")
    }
}
