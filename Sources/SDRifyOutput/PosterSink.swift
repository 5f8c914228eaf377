import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyProbe
import SDRifyTimeline
import SDRifyToneMap
import SDRifyValues

/// What was written as the poster (`--json`: "poster").
package struct PosterResult: Sendable {
    package var path: String
    var time: Double  // the output time asked for (seconds)
    package var pictureTime: Double  // when the picture shown then starts

    package var json: JSONValue {
        .object([("path", .string(path)), ("time", .double(time)), ("picture_time", .seconds(pictureTime))])
    }
}

/// A render that keeps the HDR, as a still sees it: `toSDR` makes each picture SDR (tone mapped as the video's
/// SDR is), and with `gainMap` the still carries a gain map from the HDR picture (Ultra HDR JPEG).
package struct HDRStill {
    let kind: HDRKind
    let toSDR: (Frame) throws -> Frame
    let gainMap: Bool

    package init(kind: HDRKind, toSDR: @escaping (Frame) throws -> Frame, gainMap: Bool) {
        self.kind = kind; self.toSDR = toSDR; self.gainMap = gainMap
    }

    /// The still's file: the SDR picture as `type`, with the gain map when asked (JPEG only: checked before).
    func encode(sdr: Frame, hdr: Frame?, as type: ImageFileType) throws -> [UInt8] {
        guard gainMap, let hdr else { return try ImageEncoder.encode(sdr, as: type) }
        let rgb = try ImageEncoder.rgb(sdr)
        let map = try GainMapImage(hdr: hdr, kind: kind, sdrRGB: rgb)
        return try GainMapJPEG.assemble(
            primary: try ImageEncoder.jpeg(rgb: rgb, width: sdr.width, height: sdr.height),
            gainMap: try ImageEncoder.jpeg(rgb: map.rgb, width: map.width, height: map.height), metadata: map.metadata)
    }
}

/// A still of the output: the very picture the video shows at `time` (upright, tone mapped, layers drawn, at the
/// output's size), taken from the same render as the video, written as JPEG, PNG or WebP, atomically like it.
/// It keeps a reference to the latest picture that starts at or before the time (no copy: the render's rings
/// copy on write if they come back to it), so a variable frame rate's gaps show what a player shows. From a render
/// that keeps the HDR (`hdr`) every picture up to the time is made SDR, so the scene curve has seen what the
/// video's saw.
package final class PosterSink: MediaSink {
    let request: PosterRequest
    let time: MediaTime
    private let type: ImageFileType
    private let output: AtomicOutput
    private var timeBase = TimeBase(num: 1, den: 1)
    private var held: Frame? = nil
    private var heldHDR: Frame? = nil
    private var heldStart = MediaTime.zero
    private let hdr: HDRStill?
    private var past = false  // a picture after the time has come: the held one is final
    package let audioBlock = 1024
    package private(set) var result: PosterResult? = nil

    /// Opens the file now (an output problem shows before any work). `outputLength`: the output's length as far
    /// as known, for the default time and to refuse a time past the end.
    package init(_ request: PosterRequest, inputs: [String], overwrite: OverwritePolicy, outputLength: MediaTime?, hdr: HDRStill? = nil) throws {
        self.hdr = hdr
        guard let type = ImageFileType(path: request.path) else {
            throw SDRifyError.usage("\(request.path): a poster is a \(ImageFileType.extensions) file")
        }
        time = request.at ?? PosterRequest.defaultTime(outputLength: outputLength)
        if let outputLength, request.at != nil, time >= outputLength {
            throw SDRifyError.usage("the poster time (\(time)) is past the end of the output (\(outputLength))")
        }
        self.request = request; self.type = type
        output = try AtomicOutput.open(finalPath: request.path, inputPaths: inputs, policy: overwrite)
    }

    deinit { output.discard() }

    package func begin(_ format: RenderFormat) throws { timeBase = format.timeBase }

    package func write(picture: Frame) throws {
        guard !past else { return }
        let start = MediaTime(ticks: picture.pts ?? 0, timeBase)
        guard start <= time else { past = true; return }
        if let hdr {
            held = try hdr.toSDR(picture).reference()
            heldHDR = hdr.gainMap ? try picture.reference() : nil
        } else {
            held = try picture.reference()
        }
        heldStart = start
    }

    package func finish() throws {
        guard let held else { throw SDRifyError.conversion("\(request.path): no picture for the poster") }
        try output.write(try hdr?.encode(sdr: held, hdr: heldHDR, as: type) ?? ImageEncoder.encode(held, as: type))
        self.held = nil
        heldHDR = nil
    }

    package func commit() throws {
        try output.commit()
        result = PosterResult(path: request.path, time: time.seconds, pictureTime: heldStart.seconds)
    }
}
