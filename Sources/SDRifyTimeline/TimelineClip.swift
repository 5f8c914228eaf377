import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

/// What one clip shows.
package enum ClipMedia: Equatable, Sendable {
    case video(String)  // a video file
    case image(String)  // a still picture, held `duration` seconds
    case color(RGBColor)  // a solid colour, held `duration` seconds

    /// `color:#RRGGBB[:SECONDS]`, or a file (video or image: told apart when its headers are read).
    package var name: String {
        switch self {
        case .video(let p), .image(let p): p
        case .color(let c): "color:\(c.hex)"
        }
    }
}

package struct TimelineClip: Equatable, Sendable {
    package var source: ClipMedia
    package var from: MediaTime? = nil  // on the clip's own clock (videos)
    package var to: MediaTime? = nil
    package var duration: MediaTime? = nil  // how long it shows (images and colours)
    package var fit: Fit? = nil  // nil: the output's
    package var volume: Double = 1  // linear gain of the clip's own audio
    package var transition: Transition = .cut  // into the next clip
    /// A turn on top of the file's own orientation and a crop (`"rotate"`, `"flip"`, `"crop"`; videos and images).
    package var framing = Framing()
    /// Played this many times as fast (`"speed"`; videos): pictures retimed, sound time-stretched, pitch kept.
    package var speed = Speed.normal
    /// A Ken Burns move over the clip's picture (`"zoom"`; photos and videos), nil for none.
    package var zoom: Zoom? = nil
    /// A motion photo shows its movie rather than its still (`"motion": true`).
    package var motion = false

    package init(source: ClipMedia) { self.source = source }
}

/// A Ken Burns move: the clip's picture seen through a window that goes from one view to another over the clip,
/// with an easing. A view is a scale (1: the whole picture, 2: half its width) and the centre of the window as
/// fractions of the picture (0.5, 0.5: the middle); the window always stays inside the picture.
package struct Zoom: Equatable, Sendable {
    package struct View: Equatable, Sendable {
        package var scale: Double
        package var x: Double, y: Double

        package init(scale: Double, x: Double = 0.5, y: Double = 0.5) { self.scale = scale; self.x = x; self.y = y }
    }
    var from = View(scale: 1)
    var to = View(scale: 1.25)
    var easing = Easing.linear
    /// The scales a view may take.
    static let scales: ClosedRange<Double> = 1...8

    package init() {}

    /// The view at `progress` (0 at the clip's first picture, 1 at its last), its centre kept where the window
    /// fits inside the picture.
    package func view(at progress: Double) -> View {
        let p = easing.apply(progress)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * p }
        let scale = exp(mix(log(from.scale), log(to.scale)))  // even zooming: the same ratio each step
        let half = 0.5 / scale
        return View(scale: scale, x: min(max(mix(from.x, to.x), half), 1 - half), y: min(max(mix(from.y, to.y), half), 1 - half))
    }
}
