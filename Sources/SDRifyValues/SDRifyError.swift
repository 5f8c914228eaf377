/// The process exit statuses of the CLI contract (DESIGN §2). The library throws them; the CLI exits with them.
package enum ExitStatus: Int32, Sendable {
    case success = 0
    case conversionFailed = 1
    case invalidInput = 2
    case unsupportedInput = 3
    case outputProblem = 4
    case timedOut = 124  // --timeout, as timeout(1)
    case usage = 64
    case interrupted = 130
    case terminated = 143
}

/// Every failure sdrify reports: one line of text and the exit status it maps to.
package struct SDRifyError: Error, CustomStringConvertible, Sendable {
    package let status: ExitStatus
    package let message: String

    package init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { message }

    package static func invalidInput(_ m: String) -> SDRifyError { SDRifyError(.invalidInput, m) }
    package static func unsupported(_ m: String) -> SDRifyError { SDRifyError(.unsupportedInput, m) }
    package static func conversion(_ m: String) -> SDRifyError { SDRifyError(.conversionFailed, m) }
    package static func output(_ m: String) -> SDRifyError { SDRifyError(.outputProblem, m) }
    package static func usage(_ m: String) -> SDRifyError { SDRifyError(.usage, m) }
}

extension SDRifyError {
    /// A photo given where a video is read (convert, hls, the stills): what to do with it instead.
    package static func photoGivenAsVideo(_ path: String, kind: String) -> SDRifyError {
        let quoted = path.contains(" ") ? "'\(path)'" : path
        return .unsupported(
            "\(path): a photo (\(kind)), not a video: to make a video of it, sdrify compose \(quoted) -o OUT.mp4 [--image-duration SECONDS]")
    }
}

/// Told each warning, as one line without the "sdrify: warning:" prefix (from any thread).
package typealias WarningHandler = @Sendable (String) -> Void

/// A count with its noun in the number it takes ("1 clip", "2 clips"): `plural` where adding an s is wrong.
package func counted(_ n: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(n) \(n == 1 ? singular : plural ?? singular + "s")"
}

/// A list in a message, kept short: the first item and how many more ("a.jpg and 499 more"), so that no line grows
/// with its input.
package func firstAndMore(_ items: [String]) -> String {
    guard let first = items.first else { return "" }
    return items.count == 1 ? first : "\(first) and \(items.count - 1) more"
}

/// Choices in a sentence: "a or b", "a, b or c" (`joiner` "and" for a list of what is taken).
package func spokenList(_ items: [String], _ joiner: String = "or") -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(joiner) \(items.last!)"
}

extension ClosedRange<Double> {
    /// "from 0.25 to 4": the one wording of a range in help and messages, its bounds as people write them.
    package var spoken: String { "from \(lowerBound.spokenBound) to \(upperBound.spokenBound)" }
}

extension ClosedRange<Int> {
    /// "from 1 to 32", as `ClosedRange<Double>.spoken`.
    package var spoken: String { "from \(lowerBound) to \(upperBound)" }
}

extension Double {
    /// 4, 0.25, -70: a bound as people write it.
    package var spokenBound: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}

/// The one wording for a value that is not among the choices: it names the value, the nearest choice where one is
/// close, then what is accepted ("unknown transition 'fdae'; did you mean 'fade'? (one of: none, fade, …)").
package func unknownChoice(_ what: String, _ value: String, _ choices: [String]) -> String {
    let hint = Spelling.nearest(to: value, among: choices).map { "; did you mean '\($0)'?" } ?? ""
    return "unknown \(what) '\(value)'\(hint) (one of: \(choices.joined(separator: ", ")))"
}

/// Misspellings: the one home of "did you mean" for options, commands, choices and JSON keys.
package enum Spelling {
    /// The candidate closest to `typed` (case aside), if it is close enough to be what was meant: at most a third of
    /// its letters apart (one at least).
    package static func nearest(to typed: String, among candidates: [String]) -> String? {
        let t = Array(typed.lowercased())
        guard !t.isEmpty, let best = candidates.map({ ($0, distance(t, Array($0.lowercased()))) }).min(by: { ($0.1, $0.0) < ($1.1, $1.0) }),
            best.1 > 0, best.1 <= max(1, best.0.count / 3)
        else { return nil }
        return best.0
    }

    /// The fewest single-character insertions, deletions, substitutions and swaps of two neighbours from a to b
    /// (a swap is one slip: "form" for "from").
    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
