/// What may happen to a file (or directory) already at an output's path. The rule (docs/convert.md, "An existing
/// output"): nothing is replaced unasked; `-y` replaces only what sdrify itself wrote (its mark, `OutputMark`);
/// anything else, an original above all, only with the longer `--overwrite-original`.
package enum OverwritePolicy: Sendable, Equatable {
    /// An existing output stops the run.
    case keep
    /// `-y`: an existing output sdrify made is replaced; any other stops the run.
    case sdrifyOutputs
    /// `--overwrite-original`: whatever is there is replaced (a directory only if it holds nothing but files).
    case anything

    package init(overwrite: Bool, overwriteOriginal: Bool) {
        self = overwriteOriginal ? .anything : overwrite ? .sdrifyOutputs : .keep
    }

    /// Whether an existing output may be replaced at all (the placement's mode: link, or rename over).
    package var replaces: Bool { self != .keep }
}
