/// An adaptive-streaming ladder (`hls --ladder 1080,720,480,360`): each rung names the short edge of one
/// rendition, so 1080 is 1920x1080 for a landscape picture and 1080x1920 for a portrait one. Rungs above the
/// source are dropped (never upscaled), and at least one rendition is always made.
package struct Ladder: Equatable, Sendable {
    /// Short edges, largest first, each once.
    package let rungs: [Int]
    /// The rungs as given (`--max-bitrate` per rung follows this order).
    package let given: [Int]

    package static let standard = Ladder(rungs: [1080, 720, 480, 360])!
    /// The short edges a rung may name: from a thumbnail-sized 16 to 8K.
    package static let validRungs = 16...4320

    package init?(rungs: [Int]) {
        guard !rungs.isEmpty, rungs.allSatisfy({ Ladder.validRungs.contains($0) }) else { return nil }
        self.rungs = Array(Set(rungs)).sorted(by: >)
        given = rungs
    }

    /// `1080,720,480`: nil with the entry that is not a rung, for the error message.
    package static func parse(_ argument: String) -> Result<Ladder, LadderError> {
        var rungs: [Int] = []
        for part in argument.split(separator: ",", omittingEmptySubsequences: false) {
            let text = part.trimmingCharacters(in: .whitespaces)
            guard let n = Int(text), Ladder.validRungs.contains(n) else { return .failure(LadderError(entry: String(text))) }
            rungs.append(n)
        }
        return Ladder(rungs: rungs).map { .success($0) } ?? .failure(LadderError(entry: argument))
    }

    package struct LadderError: Error, Equatable, Sendable { package let entry: String }

    /// One rendition of the ladder: the rung it came from and its size (even, the source's aspect).
    package struct Rendition: Equatable, Sendable {
        package let rung: Int
        package let width: Int
        package let height: Int
        /// The rendition's short name, as its files are named (`720p`).
        package var name: String { "\(min(width, height))p" }

        package init(rung: Int, width: Int, height: Int) {
            self.rung = rung
            self.width = width
            self.height = height
        }
    }
}
