import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyValues

/// A render's layers (effects, stickers, titles, captions). The compositor draws `stage` on the render's pictures. A
/// render that keeps the HDR also has the same layers for SDR pictures: once an SDR picture is to be made of the
/// render (`sdrLayers()`: the SDR file beside the HDR kept, the SDR rungs, a still's base), the compositor keeps a
/// copy of each picture as it was before its layers (`underLayers(of:)`), and the SDR picture is tone mapped from
/// that copy and gets its layers in SDR. So graphics are SDR white there rather than tone-mapped graphics white, and
/// an effect is done once, in each range's own levels.
package final class RenderLayers: @unchecked Sendable {  // set up before the render; then the compositor's thread and the sinks'
    package let stage: OverlayStage
    private let sdr: OverlayStage?
    private let range: HDRKind, width: Int, height: Int
    private var copies: FrameRing?
    /// The latest pictures' copies from before their layers, and the output times they were drawn for, as many as
    /// the ring of copies holds: written on the compositor's thread, read on the sinks'.
    private var kept: [(picture: Frame, under: Frame, time: MediaTime)] = []
    private let keptLock = NSLock()

    /// Decodes every picture and reads every caption file now (twice for a render that keeps the HDR), so a bad file
    /// fails before any output exists.
    package init(
        spec: OverlaySpec, width: Int, height: Int, range: HDRKind, input: String? = nil, warn: @escaping WarningHandler = { _ in }
    ) throws {
        (self.range, self.width, self.height) = (range, width, height)
        stage = try OverlayStage(spec: spec, frameWidth: width, frameHeight: height, range: range, input: input, warn: warn)
        sdr =
            range == .sdr
            ? nil : try OverlayStage(spec: spec, frameWidth: width, frameHeight: height, range: .sdr, input: input, warn: { _ in })
    }

    /// The layers for SDR pictures made of this HDR render (nil for an SDR render). Asked before the render starts:
    /// from then on the compositor keeps each picture as it was before its layers.
    func sdrLayers() throws -> OverlayStage? {
        guard let sdr else { return nil }
        // As many copies as pictures the compositor can have made and the sinks not yet finished (Compositor.ringSize).
        if copies == nil { copies = try FrameRing(size: Compositor.ringSize, width: width, height: height, kind: range) }
        return sdr
    }

    /// Draws the layers on `picture` for output time `time`, first keeping it as it was when SDR is made of it later.
    func draw(on picture: Frame, time: MediaTime) throws {
        if let copies {
            let copy = try copies.next()
            TransitionMixer.copy(picture, into: copy)
            copy.color = picture.color
            copy.pts = picture.pts
            copy.duration = picture.duration
            keptLock.withLock {
                kept.removeAll { $0.picture === picture || $0.under === copy }
                kept.append((picture, copy, time))
            }
        }
        stage.apply(to: picture, time: time)
    }

    /// `picture` as it was before its layers, and the output time they were drawn for (nil when no copy was kept).
    func underLayers(of picture: Frame) -> (picture: Frame, time: MediaTime)? {
        keptLock.withLock { kept.last { $0.picture === picture }.map { ($0.under, $0.time) } }
    }
}
