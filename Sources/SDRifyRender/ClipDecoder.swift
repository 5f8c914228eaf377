import Foundation
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyValues

/// The first link of a clip's chain: demux and decode one input's video, select the pictures of a source range,
/// give them timestamps on the range's clock (ClipClock), and apply the damage policy (refuse, or count under
/// tolerate-errors). Pictures are pulled one at a time (`next`), so the same decoder runs on its own thread or
/// inline (`--threads 1`).
final class ClipDecoder {
    let label: String  // the input, in messages
    let tolerateErrors: Bool
    let video: VideoInfo
    let demuxer: Demuxer
    let decoder: Decoder
    /// Our own check of what the decoder conceals silently (H.264 and HEVC slice data); nil for other codecs.
    let bitstreamCheck: BitstreamCheck?
    let orientation: Orientation
    package let clock: ClipClock
    /// A slow-motion capture being flattened: which pictures to decode, by their temporal layer (nil: all).
    private let thinning: (rule: SlowMotionThinning, layers: TemporalLayers)?
    let warn: WarningHandler
    let tb: TimeBase
    let frameTicks: Int64
    /// The container's per-picture durations contradict the pictures' own steps (`PictureTiming`): not asked.
    private let durationsDisagree: Bool
    private let halfFrame: MediaTime
    private let videoStart: MediaTime
    private let packet: Packet

    private(set) var decodeErrors = 0
    private(set) var firstPTS: Int64? = nil
    private(set) var lastPTS: Int64? = nil
    /// The duration of the last picture selected (ticks).
    private(set) var lastDuration: Int64 = 1
    /// The same on the source's clock (before a time map), for what the container promised.
    private var firstSourcePTS: Int64? = nil, lastSourcePTS: Int64? = nil, lastSourceDuration: Int64 = 1

    package init(
        label: String, settings: DecodeSettings, video: VideoInfo, demuxer: Demuxer, decoder: Decoder,
        orientation: Orientation, clock: ClipClock, thinning: SlowMotionThinning? = nil, warn: @escaping WarningHandler
    ) throws {
        self.label = label; tolerateErrors = settings.tolerateErrors; self.video = video; self.demuxer = demuxer
        self.decoder = decoder; self.orientation = orientation; self.clock = clock; self.warn = warn
        self.thinning = thinning.flatMap { rule in demuxer.videoTemporalLayers().map { (rule, $0) } }
        bitstreamCheck = settings.checkBitstream ? demuxer.videoBitstreamCheck() : nil
        tb = demuxer.videoTimeBase
        let rate = demuxer.videoFrameRate
        frameTicks = max(1, Int64((1 / rate.fps / tb.seconds).rounded()))
        durationsDisagree = demuxer.pictureTiming?.durationsDisagree ?? false
        order = PictureOrder(frameTicks: frameTicks)
        halfFrame = rate.halfFrame
        videoStart = demuxer.videoStart
        packet = try Packet()
    }

    private var ready: [Frame] = []  // selected pictures not yet handed out
    private var thinnedOut: Set<Int64> = []  // decoded only as references: left out of a flattened slow motion
    private var layered: Set<Int64> = []  // pictures whose temporal layer the thinning rule decided
    private var ended = false  // the range's end or the input's end reached
    private var videoPackets = 0
    private var samplesBeforeSeek: Int? = nil  // the index's samples before the first one read after a seek

    /// The next selected picture, with its timestamp on the clip's output clock; nil once the range or the input
    /// has ended.
    func next() throws -> Frame? {
        while ready.isEmpty && !ended { try step() }
        return ready.isEmpty ? nil : ready.removeFirst()
    }

    /// Reads one packet and decodes it if it is the video's; at the end of the input, drains the decoder and
    /// checks that what the container promised arrived.
    private func step() throws {
        guard try read(into: packet) else {
            if !sawKeyframe, demuxer.seeked, demuxer.mayStartMidGOP { return try readFromTheStart() }  // no keyframe after the seek
            ended = true
            if let problem = bitstreamCheck?.problemAtEnd() { try tolerate("\(label): damaged video at the end: \(problem)") }
            if try decode(nil) {
                releaseLast(until: rangeEndTicks)
            } else {
                try emitStartCandidateAtInputEnd()
                releaseLastAtInputEnd()
            }
            decoder.finish()  // every decoding thread idle: all it logged is counted
            try checkLoggedDamage(at: nil)
            try checkComplete(videoPackets: videoPackets)
            warnOfDiscontinuities()
            return
        }
        guard packet.streamIndex == demuxer.videoStreamIndex else { return }
        if videoPackets == 0, demuxer.seeked { samplesBeforeSeek = demuxer.videoIndexOrdinal(ofSampleAt: packet.position) }
        videoPackets += 1
        if let (rule, layers) = thinning, let pts = packet.pts {
            let picture = layers.picture(of: packet)
            if let layer = picture.layer {
                layered.insert(pts)
                if !rule.keeps(layer: layer, at: MediaTime(ticks: pts, tb)) {
                    // Above the layers this part plays: left out before decoding when nothing kept can refer to it (its
                    // layer is trusted, or its slice says nothing refers to it), else decoded and left out after.
                    if picture.disposable || picture.trusted { return }
                    thinnedOut.insert(pts)
                }
            }
        }
        // A stream joined mid-GOP (an MPEG-TS capture, a raw stream cut anywhere) starts with pictures whose
        // references are missing: players start at the first keyframe, and so does this. Containers that list their
        // sync samples (MP4/MOV, Matroska) do not start so: there it is damage the decoder reports.
        if !sawKeyframe {
            // A seek in a stream without an index lands by time, not on the keyframe before it, and one in an index
            // whose decode times the pictures contradict (1 ms steps) lands anywhere: a picture after the range's
            // start reached before (or as) the first keyframe means they need an earlier one. Read from the start.
            if demuxer.seeked, demuxer.mayStartMidGOP || packet.isKeyframe, let pts = packet.pts, MediaTime(ticks: pts, tb) > clock.start + halfFrame
            {
                return try readFromTheStart()
            }
            guard packet.isKeyframe || !demuxer.mayStartMidGOP else { leadingPicturesLeftOut += 1; return }
            sawKeyframe = true
        }
        if try decode(packet) {
            ended = true
            releaseLast(until: rangeEndTicks)
            warnOfDiscontinuities()  // the range ended first: what was re-based before it is still told
        }
    }

    private func readFromTheStart() throws {
        try demuxer.rewind()
        previousTime = nil
        startCandidate = nil
        leadingPicturesLeftOut = 0
        videoPackets = 0
    }

    /// After reading to the end, what the container promised must have arrived: every sample its index lists (a
    /// damaged sample table, chunk offsets past the end of the file, makes the demuxer skip samples without an
    /// error), and pictures that fill the track's duration (a sample count cut down gives fewer samples, again
    /// without any read failing). Refused as damage, or converted without the rest under --tolerate-errors.
    private func checkComplete(videoPackets: Int) throws {
        var missing: [String] = []
        // After a seek (a start inside the input) the promise is the samples from the keyframe read first; where the
        // index does not say where that one stands, there is no promise to count.
        let skipped = demuxer.seeked ? samplesBeforeSeek : 0
        let promised = skipped.map { max(demuxer.videoIndexEntries, demuxer.videoSamplesDeclared) - $0 } ?? 0
        if videoPackets < promised {
            // A QuickTime reference movie lists samples that live in other files: that is the cause, not damage.
            let elsewhere = demuxer.isMovie ? MovieStructure.externalVideoData(path: demuxer.path) : []
            if !elsewhere.isEmpty {
                throw SDRifyError.unsupported(
                    "\(label): a reference movie: its video samples are in other files (\(firstAndMore(elsewhere))); "
                        + "convert the movie exported self-contained")
            }
            missing.append("only \(videoPackets) of the \(promised) video samples could be read")
        }
        // A spliced MPEG-TS states its length from the first timestamp to the last, splices included, and one
        // joined mid-GOP counts the pictures before its first keyframe: no promise either way. Nor does an MP4 whose
        // every declared sample arrived: its track can only be longer than its pictures by what its last sample
        // says it lasts (a sample count cut down is a count the demuxer logs as wrong, counted as damage).
        let everySampleRead = demuxer.isMovie && promised > 0 && videoPackets >= promised && demuxer.loggedErrors == 0
        if !clock.isCut, !everySampleRead, demuxer.discontinuities == 0, leadingPicturesLeftOut == 0, let track = demuxer.videoDurationTicks,
            let first = firstSourcePTS, let last = lastSourcePTS,
            Double(last + lastSourceDuration - first) < Double(track) * 0.9 - Double(2 * frameTicks)
        {
            let shown = Double(last + lastSourceDuration - first) * tb.seconds, whole = Double(track) * tb.seconds
            missing.append(String(format: "the pictures cover %.3f s of the video track's %.3f s", shown, whole))
        }
        for what in missing {
            // Without a single picture there is nothing converted: the render's one error says so, alone.
            if tolerateErrors, firstPTS != nil { warn("\(label): damaged sample table: \(what): converted without the rest") }
            try tolerate("\(label): damaged sample table: \(what)")
        }
    }

    private var repeatsLeftOut = 0  // pictures of a spliced stream that would be shown a second time
    private var sawKeyframe = false
    private var leadingPicturesLeftOut = 0  // before the first keyframe of a stream joined mid-GOP

    /// One warning for a start mid-GOP, one for the discontinuities of an MPEG-TS/PS input (re-based by the
    /// demuxer, as players do).
    private func warnOfDiscontinuities() {
        if leadingPicturesLeftOut > 0 {
            let n = leadingPicturesLeftOut
            warn("\(label): the stream starts mid-GOP: \(n) picture\(n == 1 ? "" : "s") before its first keyframe left out")
        }
        let n = demuxer.discontinuities
        guard n > 0 || repeatsLeftOut > 0 else { return }
        var message =
            "\(label): \(n) timestamp discontinuit\(n == 1 ? "y" : "ies") (a spliced or restarted stream): the timestamps after each follow on"
        if repeatsLeftOut > 0 { message += ", \(repeatsLeftOut) picture\(repeatsLeftOut == 1 ? "" : "s") that would show twice left out" }
        warn(message)
    }

    /// The next packet; false at the end. With --tolerate-errors a read error (a file cut short) ends the input.
    private func read(into packet: Packet) throws -> Bool {
        do {
            return try demuxer.readPacket(into: packet)
        } catch let e as SDRifyError where e.status == .invalidInput {
            try tolerate(e.message)
            return false
        }
    }

    /// The damage policy: without --tolerate-errors the input is refused with `message` (exit 2); with it the
    /// damage is counted and the caller carries on.
    private func tolerate(_ message: @autoclosure () -> String) throws {
        guard tolerateErrors else { throw SDRifyError.invalidInput(message()) }
        decodeErrors += 1
    }

    private func seconds(_ pts: Int64?) -> String {
        guard let pts else { return "an unknown time" }
        let t = (MediaTime(ticks: pts, tb) - videoStart).seconds
        return String(format: "%.3f s", abs(t) < 0.0005 ? 0 : t)  // no "-0.000"
    }

    /// Feeds one packet (nil drains); returns true once the range's end is reached.
    private func decode(_ packet: Packet?) throws -> Bool {
        if let packet, let problem = bitstreamCheck?.problem(in: packet) {
            try tolerate("\(label): damaged video at \(seconds(packet.pts)): \(problem)")
        }
        // Pictures a one-segment edit list leaves out come back from the decoder (in display order, so their order
        // can be checked like every other's) and are left out in `select`. With several segments the demuxer
        // remaps the timestamps of the media between them onto the next segment's: the decoder drops those.
        if let packet, packet.isOutsideEdit, let pts = packet.pts, singleEdit {
            order.leaveOut(pts)
            packet.keepOutsideEdit()
        }
        do {
            try decoder.send(packet)
        } catch let e as SDRifyError where e.status == .invalidInput {
            try tolerate("\(e.message) at \(seconds(packet?.pts))")
        }
        while true {
            let frame: Frame?
            do {
                frame = try decoder.receive()
            } catch let e as SDRifyError where e.status == .invalidInput {
                try tolerate(e.message)
                break  // the decoder has said all it will about this packet
            }
            guard let frame else { try checkLoggedDamage(at: packet?.pts); return false }
            try checkLoggedDamage(at: frame.pts)
            if try select(frame) { return true }
        }
        return false
    }

    private var loggedErrorsSeen = 0, demuxerErrorsSeen = 0

    /// Damage the decoder concealed and only logged (a flipped bit in a keyframe can leave every later picture
    /// visibly wrong with no failing call): refused like any damage, or counted under --tolerate-errors. The
    /// count is the decoder's own (every thread's messages), so the outcome does not depend on thread timing.
    /// The same for the demuxer's error messages (damage it recovered from with a guess, e.g. a time scale of 0).
    private func checkLoggedDamage(at pts: Int64?) throws {
        try countLogged(
            demuxer.loggedErrors, seen: &demuxerErrorsSeen,
            "\(label): damaged container (errors the demuxer recovered from with a guess)")
        try countLogged(
            decoder.loggedErrors, seen: &loggedErrorsSeen,
            "\(label): damaged video at \(seconds(pts)) (errors the decoder concealed)")
    }

    /// Messages logged since the last look are damage: refused with `message`, or counted under --tolerate-errors.
    private func countLogged(_ logged: Int, seen: inout Int, _ message: @autoclosure () -> String) throws {
        guard logged > seen else { return }
        let new = logged - seen
        seen = logged
        guard tolerateErrors else { throw SDRifyError.invalidInput(message()) }
        decodeErrors += new
    }

    private var order: PictureOrder
    /// Source ticks that become the output clock's 0.
    private lazy var shiftTicks = clock.origin.ticks(tb)
    /// The video track's edit list presents one segment of media (read when a packet is first marked outside it).
    private lazy var singleEdit = (EditList.segments(path: demuxer.path, trackID: demuxer.videoTrackID) ?? 1) <= 1
    private var sawFirstPicture = false
    /// The range's end on the output clock (ticks), when the range has one.
    private var rangeEndTicks: Int64? { clock.end.map { clock.map.isIdentity ? $0.ticks(tb) - shiftTicks : clock.output($0).ticks(tb) } }
    /// Some picture was decoded (whether or not the range selected it).
    var decodedAny: Bool { sawFirstPicture }
    private var nextUntimedPTS: Int64 = 0  // where a picture without a timestamp goes

    /// Applies the range and the damage policy, gives the frame its output timestamp and emits it.
    /// Returns true when the frame lies past the end of the range.
    private func select(_ frame: Frame) throws -> Bool {
        if !sawFirstPicture {  // what only the bitstream says: here rather than in a separate probe decode
            sawFirstPicture = true
            var withSEI = video
            withSEI.frameMatrix = frame.displayMatrix
            if let other = withSEI.conflictingFrameOrientation {
                let desc: String =
                    switch other {
                    case .known(let o): "EXIF \(o.rawValue)";
                    case .unsupported: "an unsupported matrix"
                    }
                warn(
                    "\(label): the bitstream's display-orientation SEI (\(desc)) disagrees with the container (EXIF \(orientation.rawValue)); following the container"
                )
            }
        }
        // A raw bitstream has no timestamps: its pictures follow each other from 0 at the nominal rate (counted
        // for skipped pictures too, so a range's start is reached).
        let sourcePTS = frame.pts ?? nextUntimedPTS
        nextUntimedPTS = sourcePTS + frameTicks
        // Display order, edit list and pre-roll (PictureOrder): damaged timing is refused, or with
        // --tolerate-errors a picture out of order is shown at the nominal frame interval (below).
        let verdict = order.next(sourcePTS)
        if verdict.damaged && demuxer.allowsDiscontinuities {
            repeatsLeftOut += 1  // an MPEG-TS/PS splice: told once at the end
            return false
        }
        if verdict.damaged {
            try tolerate("\(label): damaged timestamps: the picture at \(seconds(frame.pts)) is shown after a later one")
        }
        if verdict.leaveOut { return false }
        if thinnedOut.remove(sourcePTS) != nil {
            layered.remove(sourcePTS)
            return false
        }
        if let gap = verdict.preRollGap {
            try tolerate(
                "\(label): damaged timestamps: a picture is left out before the start "
                    + String(format: "%.3f s before the first one inside the edit", Double(gap) * tb.seconds))
        }
        let time = MediaTime(ticks: sourcePTS, tb)
        // The range, by the pictures' own spacing (a variable rate's are not the nominal interval apart): a picture
        // before the start is the first shown when the start is nearer to it than to the next one (ties to the earlier;
        // decided when the next one comes); one near the end is shown while more than half of it (as long as the
        // step before it, at most the nominal interval: a picture after a pause is no longer for it) lies inside.
        let step = min(previousTime.map { time - $0 } ?? halfFrame + halfFrame, halfFrame + halfFrame)
        previousTime = time
        if clock.isCut, time < clock.start {
            startCandidate = (frame, sourcePTS, verdict.backwards)
            return false
        }
        if let end = clock.end, time + step.half >= end {
            if firstPTS == nil, let c = startCandidate { try emit(c.frame, sourcePTS: c.pts, backwards: c.backwards) }  // the range lies within it
            startCandidate = nil
            return true
        }
        if let c = startCandidate {
            startCandidate = nil
            if clock.start - MediaTime(ticks: c.pts, tb) <= time - clock.start { try emit(c.frame, sourcePTS: c.pts, backwards: c.backwards) }
        }
        try emit(frame, sourcePTS: sourcePTS, backwards: verdict.backwards)
        return false
    }

    private var previousTime: MediaTime? = nil  // the last picture decoded (source time), for the range's rounding
    /// The last picture before the range's start, until the next one says which is nearer the start.
    private var startCandidate: (frame: Frame, pts: Int64, backwards: Bool)? = nil

    /// At the end of the input, a picture before the start still waiting is the first shown if the start is nearer
    /// to it than to the track's end.
    private func emitStartCandidateAtInputEnd() throws {
        guard let c = startCandidate, firstPTS == nil else { return }
        startCandidate = nil
        let trackEnd = demuxer.videoEndTicks.map { MediaTime(ticks: $0, tb) }
        let after = trackEnd ?? (MediaTime(ticks: c.pts, tb) + halfFrame + halfFrame)
        if clock.start - MediaTime(ticks: c.pts, tb) <= after - clock.start { try emit(c.frame, sourcePTS: c.pts, backwards: c.backwards) }
    }

    /// Gives a picture of the range its output timestamp and duration and hands it on.
    private func emit(_ frame: Frame, sourcePTS: Int64, backwards: Bool) throws {
        let time = MediaTime(ticks: sourcePTS, tb)
        if frame.isCorrupt { try tolerate("\(label): damaged video at \(seconds(frame.pts))") }
        // Strictly increasing timestamps for the encoder (a variable frame rate is kept as it is): a damaged one
        // (above) becomes the nominal frame interval, an equal one (some muxers repeat a timestamp) moves on by
        // one tick.
        var pts = clock.map.isIdentity ? max(0, sourcePTS - shiftTicks) : max(0, clock.output(time).ticks(tb))
        if let last = lastPTS, pts <= last { pts = backwards ? last + frameTicks : last + 1 }
        // Frames an hour apart are damaged timing (a corrupt sample table; screen recorders that send frames only
        // on change leave gaps of minutes, not hours), which the muxer would refuse as the output's fault: the
        // input's damage, or with --tolerate-errors the nominal frame interval instead.
        if let last = lastPTS, Double(pts - last) * tb.seconds > 3600 {
            try tolerate("\(label): damaged timestamps: frames \(Int(Double(pts - last) * tb.seconds)) s apart at \(seconds(frame.pts))")
            pts = last + frameTicks
        }
        // A flattened slow motion's pictures that state no layer keep about 30 a second of output (at most one per
        // 0.9/30 s), as the layers would have.
        if clock.flattened != nil, layered.remove(sourcePTS) == nil, let last = lastPTS,
            Double(pts - last) * tb.seconds < 0.9 / Double(SlowMotion.fileRate)
        {
            return
        }
        lastPTS = pts
        if firstPTS == nil { firstPTS = pts }
        frame.pts = pts
        // Each picture keeps its own duration (the last one's ends the track); a missing or absurd one is the
        // nominal frame interval. Retimed, it lasts as long as the map makes it.
        // (A container whose durations the pictures contradict is not asked at all.)
        if let d = frame.duration, Double(d) * tb.seconds <= 10, !durationsDisagree {
            lastSourceDuration = d
        } else {
            lastSourceDuration = frameTicks
        }
        lastDuration = lastSourceDuration
        if !clock.map.isIdentity {
            lastDuration = max(1, (clock.output(time + MediaTime(ticks: lastSourceDuration, tb)) - clock.output(time)).ticks(tb))
        }
        if firstSourcePTS == nil { firstSourcePTS = sourcePTS }
        if let previous = lastSourcePTS { lastSourceInterval = sourcePTS - previous }
        lastSourcePTS = sourcePTS
        frame.duration = lastDuration
        hold(frame)
    }

    private var held: Frame? = nil  // the last picture selected, until the next one says how long it shows
    private var lastInterval: Int64? = nil  // output ticks between the last two pictures selected
    private var lastSourceInterval: Int64? = nil  // the same in source ticks

    /// A picture shows until the next one does. A packet's own duration is its decoding step, which with B-frames
    /// (and a variable rate) is not how long its picture shows: each picture is held back until the next is known.
    private func hold(_ frame: Frame) {
        if let held, let heldPTS = held.pts, let pts = frame.pts {
            lastInterval = pts - heldPTS
            held.duration = pts - heldPTS
            ready.append(held)
        }
        held = frame
    }

    /// The last picture of the range or of the input: it shows until `end` (output ticks: the range's end, or where
    /// the container says the track ends), or without one for as long as the picture before it.
    private func releaseLast(until end: Int64?) {
        guard let last = held, let pts = last.pts else { return }
        held = nil
        if let end, end > pts {
            last.duration = end - pts
        } else if let lastInterval {
            last.duration = lastInterval
        }
        ready.append(last)
    }

    /// At the end of the input: the track's end as its container states it, for the last picture, where
    /// `PictureTiming.believes` it (missing pictures are damage, told by checkComplete, not hidden behind a long last
    /// one; a container whose durations the pictures contradict is not believed at all).
    private func releaseLastAtInputEnd() {
        guard let trackTicks = demuxer.videoDurationTicks, let trackEnd = demuxer.videoEndTicks, !demuxer.allowsDiscontinuities,
            !durationsDisagree, let lastSource = lastSourcePTS
        else { return releaseLast(until: nil) }
        guard
            PictureTiming.believes(statedEnd: trackEnd, last: lastSource, step: lastSourceInterval ?? frameTicks, track: trackTicks, timeBase: tb)
        else { return releaseLast(until: nil) }
        let end = clock.map.isIdentity ? trackEnd - shiftTicks : clock.output(MediaTime(ticks: trackEnd, tb)).ticks(tb)
        releaseLast(until: end)
    }
}
