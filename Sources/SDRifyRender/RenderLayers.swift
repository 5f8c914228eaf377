import SDRifyLayers
import SDRifyMedia
import SDRifyValues

/// A render's layers (effects, stickers, titles, captions). The compositor draws `stage` on the render's pictures. A
/// render that keeps the HDR also has `sdr`, the same layers for SDR pictures: before drawing, the compositor keeps a
/// copy of the picture as it was (`Frame.underLayers`), and an SDR picture made of it (the SDR file beside the HDR
/// kept, the SDR rungs, a still's base) is tone mapped from that copy and gets its layers in SDR. So graphics are SDR
/// white there rather than tone-mapped graphics white, and an effect is done once, in each range's own levels.
package final class RenderLayers: @unchecked Sendable {  // used by the compositor's thread, then the sinks'
    package let stage: OverlayStage
    package let sdr: OverlayStage?
    private let copies: FrameRing?

    /// Decodes every picture and reads every caption file now (twice for a render that keeps the HDR), so a bad file
    /// fails before any output exists.
    package init(
        spec: OverlaySpec, width: Int, height: Int, range: HDRKind, input: String? = nil, warn: @escaping WarningHandler = { _ in }
    ) throws {
        stage = try OverlayStage(spec: spec, frameWidth: width, frameHeight: height, range: range, input: input, warn: warn)
        guard range != .sdr else {
            sdr = nil; copies = nil
            return
        }
        sdr = try OverlayStage(spec: spec, frameWidth: width, frameHeight: height, range: .sdr, input: input, warn: { _ in })
        // As many copies as pictures the compositor can have made and the sinks not yet finished (Compositor.ringSize).
        copies = try FrameRing(size: Compositor.ringSize, width: width, height: height, kind: range)
    }

    /// Draws the layers on `picture` for output time `time`, first keeping it as it was when SDR is made of it later.
    func draw(on picture: Frame, time: MediaTime) throws {
        if let copies {
            let copy = try copies.next()
            TransitionMixer.copy(picture, into: copy)
            copy.color = picture.color
            copy.pts = picture.pts
            copy.duration = picture.duration
            picture.underLayers = (copy, time)
        }
        stage.apply(to: picture, time: time)
    }
}
