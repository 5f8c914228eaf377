import CFFmpeg
import SDRifyValues

/// Makes smaller copies of the render's output pictures (8-bit 4:2:0 BT.709, or the HDR kept's 10-bit 4:2:0) for
/// the lower renditions of a ladder:
/// the picture is decoded, oriented and tone mapped once, then only resized (swscale, bicubic, which is what a
/// downscale by up to 3× needs: sharp, no ringing worth naming). Each result keeps the picture's time and tags.
package final class PictureScaler {
    private let sws: OpaquePointer
    private let ring: FrameRing
    package let width: Int
    package let height: Int

    package init(fromWidth: Int, fromHeight: Int, toWidth: Int, toHeight: Int, ringSize: Int = 2, kind: HDRKind = .sdr) throws {
        let layout = PlanarFormat.output(kind).avPixelFormat!
        guard
            let s = sws_getContext(
                Int32(fromWidth), Int32(fromHeight), layout, Int32(toWidth), Int32(toHeight), layout, SWS_BICUBIC, nil, nil, nil)
        else {
            throw SDRifyError.conversion("cannot scale \(fromWidth)x\(fromHeight) to \(toWidth)x\(toHeight)")
        }
        sws = s
        ring = try FrameRing(size: ringSize, width: toWidth, height: toHeight, kind: kind)
        width = toWidth; height = toHeight
    }

    deinit { sws_freeContext(sws) }

    package func scale(_ picture: Frame) throws -> Frame {
        let out = try ring.next()
        let src = planeArrays(picture.av), dst = planeArrays(out.av)
        let rows = sws_scale(sws, src.data.map { UnsafePointer($0) }, src.linesize, 0, Int32(picture.height), dst.data, dst.linesize)
        guard rows == Int32(height) else { throw SDRifyError.conversion("scaling a picture to \(width)x\(height) failed") }
        out.pts = picture.pts
        out.duration = picture.duration
        out.color = picture.color
        return out
    }
}
