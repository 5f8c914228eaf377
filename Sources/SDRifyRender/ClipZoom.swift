import CKernels
import SDRifyMedia
import SDRifyTimeline

/// Draws a clip's canvas-sized picture through its Ken Burns window (`Zoom`) at a point of the clip: every plane
/// resampled bilinearly with sub-pixel placement (CKernels), chroma at its own siting (left, between the rows).
enum ClipZoom {
    static func draw(_ zoom: Zoom, progress: Double, from src: Frame, into out: Frame) {
        let view = zoom.view(at: progress)
        let w = Double(src.width), h = Double(src.height)
        let step = 1 / view.scale
        // The window's top-left corner in luma samples, and where the first output sample's centre falls in it.
        let left = view.x * w - w * step / 2, top = view.y * h - h * step / 2
        let lumaX = left + 0.5 * step - 0.5, lumaY = top + 0.5 * step - 0.5
        let layout = out.format ?? .yuv420p
        for p in 0..<3 {
            let (pw, ph) = layout.planeSize(p, width: out.width, height: out.height)
            let (sw, sh) = layout.planeSize(p, width: src.width, height: src.height)
            // Chroma sample i sits on luma column 2i and between luma rows 2j and 2j + 1.
            let ox = p == 0 ? lumaX : (left + 0.5 * step - 0.5) / 2
            let oy = p == 0 ? lumaY : (top + step - 1) / 2
            if layout.bytesPerSample == 2 {
                sdrify_zoom_plane_u16(
                    src.data(p).assumingMemoryBound(to: UInt16.self), src.stride(p), Int32(sw), Int32(sh),
                    out.data(p).assumingMemoryBound(to: UInt16.self), out.stride(p), Int32(pw), Int32(ph), ox, oy, step)
            } else {
                sdrify_zoom_plane(
                    src.data(p).assumingMemoryBound(to: UInt8.self), src.stride(p), Int32(sw), Int32(sh),
                    out.data(p).assumingMemoryBound(to: UInt8.self), out.stride(p), Int32(pw), Int32(ph), ox, oy, step)
            }
        }
    }
}
