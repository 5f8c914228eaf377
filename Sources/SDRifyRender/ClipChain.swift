import SDRifyLayers
import SDRifyMedia
import SDRifyProbe
import SDRifyToneMap
import SDRifyValues

/// The per-picture links of a clip's chain after decoding: repack (RGB, palette, packed, semi-planar layouts →
/// planar Y'CbCr) → deinterlace → colour (scale, tone map from the clip's own HDR kind and metadata) → orient.
/// Gives upright pictures of `size` (8-bit 4:2:0 BT.709; of `range` HDR, 10-bit BT.2020), from a ring of `ringSize`.
final class ClipChain {
    let label: String
    let video: VideoInfo
    let orientation: Orientation
    package let size: (width: Int, height: Int)  // upright output
    let framing: Framing  // the turn is in `orientation` already; its crop is read by the colour stage
    let coded: (width: Int, height: Int)  // the colour stage's output, before orienting
    let toneMap: ToneMapping
    let range: HDRKind  // what the render's pictures carry
    let ringSize: Int
    let warn: WarningHandler
    let tb: TimeBase  // of the pictures' timestamps, for messages

    /// The scenes `auto` follows (kept across converters made again mid-stream).
    package let scenes: SceneTracker
    /// The colour the first picture was converted from (frame tags over stream tags).
    private(set) var sourceColor: ColorDescription? = nil
    /// Whether any picture was tone mapped (an HDR source in an SDR render).
    private(set) var toneMapped = false

    private var converter: FrameConverter? = nil
    private var converterInput: (width: Int, height: Int, format: PlanarFormat)? = nil
    private var letterbox: Letterbox? = nil  // when the source's size changed mid-stream
    private var curve: ToneCurve? = nil
    private var repacker: PlanarRepacker?? = nil  // nil: not needed yet; .some(nil): swscale cannot read the layout
    private var orienter: (turn: FrameOrienter, input: (Int, Int))? = nil  // for the coded pictures' size
    private var deinterlacer: Deinterlacer? = nil

    package let background: Background  // behind a picture that shrinks mid-stream

    package init(
        label: String, video: VideoInfo, orientation: Orientation, size: (Int, Int), framing: Framing = Framing(), toneMap: ToneMapping,
        ringSize: Int, timeBase: TimeBase, background: Background, range: HDRKind = .sdr, warn: @escaping WarningHandler
    ) {
        self.label = label; self.video = video; self.orientation = orientation; self.size = size; self.framing = framing
        self.background = background; self.range = range
        coded = orientation.swapsDimensions ? (size.1, size.0) : (size.0, size.1)
        self.toneMap = toneMap; self.ringSize = ringSize; tb = timeBase; self.warn = warn
        scenes = SceneTracker(timeBase: timeBase)
    }

    /// One decoded picture, upright and SDR at `size`, with the decoded picture's timestamp and duration.
    func picture(from decoded: Frame) throws -> Frame {
        let (frame, fmt) = try planarProgressive(decoded)
        var picture = try converter(for: frame, format: fmt).convert(frame, format: fmt)
        if orientation != .up {
            if orienter == nil || orienter!.input != (picture.width, picture.height) {
                orienter = (
                    try FrameOrienter(
                        orientation, width: picture.width, height: picture.height, format: .output(range),
                        ringSize: letterbox == nil ? ringSize : 1),
                    (picture.width, picture.height)
                )
            }
            picture = try orienter!.turn.apply(picture)
        }
        // Upright, so an image background stays upright too.
        if let letterbox { picture = try letterbox.place(picture) }
        picture.pts = decoded.pts  // the decoder's (a deinterlaced or repacked copy may not carry them)
        picture.duration = decoded.duration
        return picture
    }

    /// The decoded picture as planar Y'CbCr and progressive.
    private func planarProgressive(_ decoded: Frame) throws -> (Frame, PlanarFormat) {
        var frame = decoded
        if frame.format == nil {
            if repacker == nil || repacker??.accepts(frame) == false { repacker = .some(try PlanarRepacker(like: frame)) }
            if let repacker = repacker ?? nil { frame = try repacker.repack(frame) }
        }
        guard let fmt = frame.format else {
            throw SDRifyError.unsupported("\(label): decoded pixel format \(frame.pixelFormatName) is not planar Y'CbCr")
        }
        if frame.isInterlaced {
            if deinterlacer == nil { warn("interlaced video: deinterlaced (each frame's second field interpolated where it combs)") }
            if deinterlacer?.accepts(frame, format: fmt) != true {
                deinterlacer = try Deinterlacer(width: frame.width, height: frame.height, format: fmt)
            }
            frame = try deinterlacer!.apply(frame)
        }
        return (frame, fmt)
    }

    /// The colour converter for this picture: made on the first, and again (fitting the picture inside the output
    /// size, letterboxed) when the source changes size or layout mid-stream.
    private func converter(for frame: Frame, format fmt: PlanarFormat) throws -> FrameConverter {
        if curve == nil {
            // Container HDR metadata first, SEI on the first picture where the container has none.
            var hdr = video.hdrMetadata
            let sei = frame.hdrMetadata
            if hdr.masteringDisplay == nil { hdr.masteringDisplay = sei.masteringDisplay }
            if hdr.contentLightLevel == nil { hdr.contentLightLevel = sei.contentLightLevel }
            let color = frame.color.filled(from: video.color)  // frame tags win; the stream's fill the gaps
            if color.hdrKind != .sdr { hdr.warnings.forEach { warn("\(label): \($0)") } }
            sourceColor = color
            toneMapped = color.hdrKind != .sdr && range == .sdr
            curve = ToneCurve(toneMap.op, sourcePeak: hdr.sourcePeak(for: color.hdrKind), exposure: toneMap.exposure)
        }
        if let converter, let input = converterInput, input == (frame.width, frame.height, fmt) { return converter }
        var size = coded
        // The crop's part of this picture (the same share of a picture whose size changed mid-stream).
        let region = framing.codedRegion(orientation: orientation, display: video.displaySize, coded: (frame.width, frame.height))
        if let input = converterInput {
            let shown = region.map { (Int($0.width.rounded()), Int($0.height.rounded())) } ?? (frame.width, frame.height)
            size = TargetSize.inside(width: shown.0, height: shown.1, frameWidth: coded.0, frameHeight: coded.1)
            let at = String(format: "%.3f s", Double(frame.pts ?? 0) * tb.seconds)
            warn(
                "the picture changes from \(input.width)x\(input.height) to \(frame.width)x\(frame.height) at \(at) (output time): "
                    + "fitted inside \(coded.0)x\(coded.1)")
        }
        letterbox =
            size == coded
            ? nil
            : try Letterbox(
                width: self.size.width, height: self.size.height, ringSize: ringSize,
                backdrop: try Backdrop(background, width: self.size.width, height: self.size.height, range: range), range: range)
        func make(_ color: ColorDescription) throws -> FrameConverter {
            try FrameConverter(
                sourceFormat: fmt, sourceColor: color, width: frame.width, height: frame.height,
                sourceRegion: region,
                outputWidth: size.0, outputHeight: size.1, toneCurve: curve!,
                ringSize: orientation == .up && letterbox == nil ? ringSize : 1,
                outputSiting: orientation.chromaSitingBeforeOrienting, scenes: scenes, output: range)
        }
        let made: FrameConverter
        do {
            made = try make(sourceColor!)
        } catch {
            // Tags zimg cannot convert from (a damaged VUI, SMPTE 2085, ICtCp on SDR…): the least guessing that
            // works, as players guess from the picture size; the tone curve stays the one the tags chose.
            let tagged = sourceColor!
            var guesses = [tagged, tagged, ColorDescription(range: tagged.range, chromaLocation: tagged.chromaLocation)]
            guesses[0].matrix = .unspecified
            guesses[1].matrix = .unspecified; guesses[1].primaries = .unspecified
            guard let (color, converter) = guesses.lazy.compactMap({ c in (try? make(c)).map { (c, $0) } }).first else {
                throw SDRifyError.unsupported(
                    "\(label): colour tags \(tagged.primaries.name)/\(tagged.transfer.name)/\(tagged.matrix.name) cannot be converted")
            }
            warn(
                "colour tags \(tagged.primaries.name)/\(tagged.transfer.name)/\(tagged.matrix.name) cannot be converted: "
                    + "read as \(color.primaries.name)/\(color.transfer.name)/\(color.matrix.name) (unspecified: guessed from the size)")
            sourceColor = color
            made = converter
        }
        converter = made
        converterInput = (frame.width, frame.height, fmt)
        return made
    }
}
