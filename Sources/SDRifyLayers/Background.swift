import Foundation
import SDRifyValues

/// How a picture whose shape differs from the output's is fitted into it.
package enum Fit: String, CaseIterable, Sendable {
    case contain  // the whole picture, touching two edges, on the background
    case cover  // fills the output, centre cropped
    case stretch  // fills the output, its shape lost (only when asked)

}

/// What shows behind a picture that does not fill the frame (compose's contain fit, a source that shrinks
/// mid-stream, the still of an audio-only input).
package enum Background: Equatable, Sendable {
    case color(RGBColor)
    case image(String, fit: Fit)
    case blur(radius: Double?)  // the picture itself covering the frame, blurred (radius in output pixels; nil:
    // a twentieth of the frame's short edge)

    package static let black = Background.color(.black)

    /// The picture file it shows, if any.
    package var file: String? { if case .image(let path, _) = self { path } else { nil } }

    /// `#RRGGBB`, `blur[:RADIUS]`, or an image file (covering the frame); nil when it is none of them.
    package init?(argument text: String) {
        if let c = RGBColor(hex: text) { self = .color(c); return }
        if text == "blur" { self = .blur(radius: nil); return }
        if text.hasPrefix("blur:") {
            guard let r = Double(text.dropFirst(5)), r > 0, r.isFinite else { return nil }
            self = .blur(radius: r); return
        }
        guard !text.hasPrefix("#"), !text.isEmpty else { return nil }
        self = .image(text, fit: .cover)
    }

    /// The solid colour behind transparent stills (black unless the background is a colour).
    package var matte: RGBColor { if case .color(let c) = self { c } else { .black } }
}
