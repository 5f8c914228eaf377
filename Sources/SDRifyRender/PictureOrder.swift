/// The display-order rules for the pictures of one clip as they come out of the decoder, including those the
/// edit list leaves out (pre-roll before the presentation start, a trimmed tail): the decoder hands pictures out
/// in the bitstream's display order, so their container timestamps must rise, and pre-roll must end just before
/// the first picture inside the edit. A picture whose timing damage moved it outside the edit breaks one of the
/// two (the demuxer would otherwise leave it out without a word). Timestamps in the clip's own ticks.
struct PictureOrder {
    /// What to do with one picture.
    struct Verdict: Equatable {
        /// Its timestamp is below an earlier picture's: damaged timing.
        var damaged = false
        /// …and it is the one out of place: shown (if tolerated) at the nominal interval after the last one.
        var backwards = false
        /// Left outside the edit: not shown.
        var leaveOut = false
        /// The first picture inside the edit, this far (ticks) after the last pre-roll picture: damaged timing.
        var preRollGap: Int64? = nil
    }

    private let frameTicks: Int64
    private var outsideEdit: [Int64: Int] = [:]  // timestamps (and how many) of pictures the edit list leaves out
    private var last: Int64? = nil  // the latest picture out of the decoder, inside the edit or not
    private var lastInside: Int64? = nil  // the latest picture inside the edit
    private var lastPreRoll: Int64? = nil  // the last picture left out before the first one inside the edit
    private var afterOutside = false  // the previous picture was left outside the edit

    package init(frameTicks: Int64) { self.frameTicks = frameTicks }

    /// A packet the demuxer marked to be decoded but not shown.
    mutating func leaveOut(_ pts: Int64) { outsideEdit[pts, default: 0] += 1 }

    /// The next picture out of the decoder.
    mutating func next(_ pts: Int64) -> Verdict {
        var v = Verdict()
        if let last, pts < last {
            v.damaged = true
            // When the later one was a picture left outside the edit, that one was out of place (and is already
            // left out): the order goes on from the last picture inside the edit.
            v.backwards = !afterOutside || (lastInside.map { pts < $0 } ?? false)
        }
        afterOutside = false
        if v.backwards { return v }
        last = pts
        if let n = outsideEdit[pts] {
            outsideEdit[pts] = n > 1 ? n - 1 : nil
            afterOutside = true
            if lastInside == nil { lastPreRoll = pts }
            v.leaveOut = true
            return v
        }
        if lastInside == nil, let preRoll = lastPreRoll, pts - preRoll > 2 * frameTicks { v.preRollGap = pts - preRoll }
        lastInside = pts
        return v
    }
}
