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
    case split([TimelineClip], SplitLayout)  // a split screen: each cell a clip of its own, shown together

    /// `color:#RRGGBB[:SECONDS]`, a file (video or image: told apart when its headers are read), or `split:2x1`.
    package var name: String {
        switch self {
        case .video(let p), .image(let p): p
        case .color(let c): "color:\(c.hex)"
        case .split(_, let layout): "split:\(layout.rawValue)"
        }
    }

    /// The files it reads (a split screen's cells').
    package var files: [String] {
        switch self {
        case .video(let p), .image(let p): [p]
        case .color: []
        case .split(let cells, _): cells.flatMap(\.source.files)
        }
    }
}

/// A picture in a picture: a video shown over its clip, placed and moved as a sticker is (`placement`: x, y, width,
/// height, opacity, fades, keyframes without turns; start and end in seconds from the clip's first picture), showing
/// its own `from`…`to`, with rounded corners (`radius` px) inside a border (`border` px of `borderColor`), its sound
/// at `volume`.
package struct PictureInPicture: Equatable, Sendable {
    package var placement: StickerSpec  // its `image` is the video
    package var from: MediaTime? = nil, to: MediaTime? = nil
    package var radius = 0.0, border = 0.0
    package var borderColor = RGBColor(r: 255, g: 255, b: 255)
    package var volume = 1.0

    package init(placement: StickerSpec) { self.placement = placement }

    package var file: String { placement.image }
}

/// How a split screen's cells share the picture: side by side (`2x1`), stacked (`1x2`) or two by two (`2x2`),
/// filled left to right, then top to bottom.
package enum SplitLayout: String, CaseIterable, Sendable {
    case sideBySide = "2x1", stacked = "1x2", grid = "2x2"

    var columns: Int { self == .stacked ? 1 : 2 }
    var rows: Int { self == .sideBySide ? 1 : 2 }
    package var cellCount: Int { columns * rows }

    /// The cells of a `width`×`height` picture (both even): rectangles on even pixels that tile it exactly.
    package func cells(width: Int, height: Int) -> [(x: Int, y: Int, width: Int, height: Int)] {
        // Column and row edges on even pixels, the last at the picture's edge.
        func edges(_ size: Int, _ parts: Int) -> [Int] {
            (0...parts).map { k -> Int in k == parts ? size : (size * k / parts) & ~1 }
        }
        let xs = edges(width, columns), ys = edges(height, rows)
        var cells: [(x: Int, y: Int, width: Int, height: Int)] = []
        for r in 0..<rows {
            for c in 0..<columns { cells.append((x: xs[c], y: ys[r], width: xs[c + 1] - xs[c], height: ys[r + 1] - ys[r])) }
        }
        return cells
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
    /// Videos shown over it (`"pip"`), in order.
    package var pip: [PictureInPicture] = []

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
