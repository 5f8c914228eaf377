/// How a clip's source clock maps to the clock it plays on once retimed: a `--speed` factor, a slow-motion
/// recording flattened as the phone's gallery plays it, or both. Monotone and piecewise linear: each piece starts
/// at a source time and runs at a rational rate (output seconds per source second). Exact (MediaTime), so the
/// pictures, the sound and every caption or chapter moved by it agree. The identity map changes nothing.
package struct TimeMap: Equatable, Sendable {
    package struct Piece: Equatable, Sendable {
        package let source: MediaTime  // where the piece starts on the source clock
        package let num: Int64, den: Int64  // its rate: output seconds per source second, num/den > 0
        var rate: Double { Double(num) / Double(den) }

        package init(source: MediaTime, num: Int64, den: Int64) { self.source = source; self.num = num; self.den = den }
    }

    /// In source order; the first piece also covers everything before its start.
    let pieces: [Piece]
    /// The output time of each piece's start (absolute: the first piece's start maps to itself scaled).
    private let outputs: [MediaTime]

    package init(pieces: [Piece]) {
        precondition(!pieces.isEmpty && pieces.allSatisfy { $0.num > 0 && $0.den > 0 }, "a time map has pieces of positive rate")
        self.pieces = pieces
        var outputs = [pieces[0].source.scaled(pieces[0].num, pieces[0].den)]
        for i in pieces.indices.dropFirst() {
            let p = pieces[i - 1]
            outputs.append(outputs[i - 1] + (pieces[i].source - p.source).scaled(p.num, p.den))
        }
        self.outputs = outputs
    }

    package static let identity = TimeMap(pieces: [Piece(source: .zero, num: 1, den: 1)])
    package var isIdentity: Bool { self == .identity }

    /// Played `speed` times as fast (a rational speed: 2 is twice as fast, 1/4 a quarter).
    package static func speed(_ speed: Speed) -> TimeMap {
        TimeMap(pieces: [Piece(source: .zero, num: speed.den, den: speed.num)])
    }

    /// This map, then played `speed` times as fast.
    package func then(_ speed: Speed) -> TimeMap {
        TimeMap(pieces: pieces.map { Piece(source: $0.source, num: $0.num * speed.den, den: $0.den * speed.num) })
    }

    private func piece(at t: MediaTime) -> Int {
        var lo = 0, hi = pieces.count - 1  // the last piece starting at or before t (the first one before all)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if pieces[mid].source <= t { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// Where source time `t` lands on the output clock (absolute: differences are what callers use).
    package func output(_ t: MediaTime) -> MediaTime {
        let i = piece(at: t)
        return outputs[i] + (t - pieces[i].source).scaled(pieces[i].num, pieces[i].den)
    }

    /// The source time that lands at output time `o` (the map's inverse; before the first piece, its rate).
    package func source(ofOutput o: MediaTime) -> MediaTime {
        var i = 0
        while i + 1 < pieces.count, outputs[i + 1] <= o { i += 1 }
        return pieces[i].source + (o - outputs[i]).scaled(pieces[i].den, pieces[i].num)
    }

    /// The rate (output seconds per source second) at source time `t`.
    package func rate(at t: MediaTime) -> Double { pieces[piece(at: t)].rate }

    /// Where the piece that holds `t` ends on the source clock (nil: it runs to the end).
    package func pieceEnd(after t: MediaTime) -> MediaTime? {
        let i = piece(at: t)
        return i + 1 < pieces.count ? pieces[i + 1].source : nil
    }
}

/// A playback speed as an exact fraction (2 = twice as fast), from the command line's decimal (thousandths).
package struct Speed: Equatable, Sendable, CustomStringConvertible {
    package let num: Int64, den: Int64
    /// What `--speed` and a clip's `"speed"` accept.
    package static let valid: ClosedRange<Double> = 0.25...4

    package init(num: Int64, den: Int64) {
        precondition(num > 0 && den > 0, "a speed is positive")
        var a = num, b = den
        while b != 0 { (a, b) = (b, a % b) }
        self.num = num / a; self.den = den / a
    }

    /// nil outside `valid` (or not a finite number).
    package init?(_ value: Double) {
        guard value.isFinite, Speed.valid.contains(value) else { return nil }
        self.init(num: Int64((value * 1000).rounded()), den: 1000)
    }

    package static let normal = Speed(num: 1, den: 1)
    package var value: Double { Double(num) / Double(den) }
    package var description: String { String(format: "%g", value) }
}
