import Foundation
import SDRifyMedia
import SDRifyTimeline
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

/// A still of the output: the very picture the video shows at `time` (upright, tone mapped, layers drawn, at the
/// output's size), taken from the same render as the video, written as JPEG, PNG or WebP, atomically like it.
/// It keeps a reference to the latest picture that starts at or before the time (no copy: the render's rings
/// copy on write if they come back to it), so a variable frame rate's gaps show what a player shows.
package final class PosterSink: MediaSink {
    let request: PosterRequest
    let time: MediaTime
    private let type: ImageFileType
    private let output: AtomicOutput
    private var timeBase = TimeBase(num: 1, den: 1)
    private var held: Frame? = nil
    private var heldStart = MediaTime.zero
    private var past = false  // a picture after the time has come: the held one is final
    package let audioBlock = 1024
    package private(set) var result: PosterResult? = nil

    /// Opens the file now (an output problem shows before any work). `outputLength`: the output's length as far
    /// as known, for the default time and to refuse a time past the end.
    package init(_ request: PosterRequest, inputs: [String], overwrite: Bool, outputLength: MediaTime?) throws {
        guard let type = ImageFileType(path: request.path) else {
            throw SDRifyError.usage("\(request.path): a poster is a \(ImageFileType.extensions) file")
        }
        time = request.at ?? PosterRequest.defaultTime(outputLength: outputLength)
        if let outputLength, request.at != nil, time >= outputLength {
            throw SDRifyError.usage("the poster time (\(time)) is past the end of the output (\(outputLength))")
        }
        self.request = request; self.type = type
        output = try AtomicOutput.open(finalPath: request.path, inputPaths: inputs, overwrite: overwrite)
    }

    deinit { output.discard() }

    package func begin(_ format: RenderFormat) throws { timeBase = format.timeBase }

    package func write(picture: Frame) throws {
        guard !past else { return }
        let start = MediaTime(ticks: picture.pts ?? 0, timeBase)
        guard start <= time else { past = true; return }
        held = try picture.reference()
        heldStart = start
    }

    package func finish() throws {
        guard let held else { throw SDRifyError.conversion("\(request.path): no picture for the poster") }
        try output.write(try ImageEncoder.encode(held, as: type))
        self.held = nil
    }

    package func commit() throws {
        try output.commit()
        result = PosterResult(path: request.path, time: time.seconds, pictureTime: heldStart.seconds)
    }
}
