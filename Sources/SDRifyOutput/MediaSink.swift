import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyValues

/// What a render hands its sinks: pictures of `width`×`height` (8-bit 4:2:0 BT.709, upright, layers drawn), each
/// with its timestamp and duration in ticks of `timeBase`, at the nominal `rate`; and, with `sound`, the mixed
/// sound (48 kHz stereo float, in blocks of the sink's `audioBlock` samples, the last one shorter).
package struct RenderFormat: Sendable {
    package let width: Int
    package let height: Int
    let timeBase: TimeBase
    let rate: FrameRate
    let sound: Bool

    package init(width: Int, height: Int, timeBase: TimeBase, rate: FrameRate, sound: Bool) {
        self.width = width
        self.height = height
        self.timeBase = timeBase
        self.rate = rate
        self.sound = sound
    }
}

/// Where a render goes. One render feeds one or more sinks, each given every picture in order: the encoding sink
/// writes the file, the poster sink keeps one picture as an image, the checksum sink lets tests run the whole
/// path without an encoder.
package protocol MediaSink: AnyObject {
    /// Called once, before anything is written.
    func begin(_ format: RenderFormat) throws
    func write(picture: Frame) throws
    func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws
    /// After the last picture and samples: everything is flushed and the output is complete, not yet in place.
    func finish() throws
    /// Puts the finished output in place (after every sink of the render has finished).
    func commit() throws
    var audioBlock: Int { get }
    /// Damage concealed in what the sink itself read (a conversion's copied sound), under --tolerate-errors.
    var errorsConcealed: Int { get }
}

extension MediaSink {
    package var errorsConcealed: Int { 0 }
    package func commit() throws {}
    package func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, count: Int) throws {}
}

/// Finishes every sink, then puts every output in place: one that cannot be placed takes the others back out, so a
/// run leaves all its outputs or none.
package func finishAll(_ sinks: [MediaSink]) throws {
    for sink in sinks { try sink.finish() }
    do {
        for sink in sinks { try sink.commit() }
    } catch {
        SignalCleanup.revokeOutput()
        throw error
    }
}
