import Foundation
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyToneMap
import SDRifyValues

/// The transitions between two clips (ffmpeg xfade's names).
package enum TransitionKind: String, CaseIterable, Sendable {
    case none, fade, fadeblack, fadewhite, wipeleft, wiperight, wipeup, wipedown, slideleft, slideright, slideup, slidedown

    package init?(name: String) {
        let n = name.lowercased()
        self.init(rawValue: n == "crossfade" ? "fade" : n)
    }
}

package struct Transition: Equatable, Sendable {
    package var kind: TransitionKind
    package var duration: MediaTime  // of overlap; 0 with `none`

    package init(kind: TransitionKind, duration: MediaTime) { self.kind = kind; self.duration = kind == .none ? .zero : duration }
    static let cut = Transition(kind: .none, duration: .zero)
    static let defaultDuration: MediaTime = 0.5

    /// `TYPE[:SECONDS]`.
    package init?(spec: String) {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let kind = TransitionKind(name: parts[0]) else { return nil }
        var duration = Transition.defaultDuration
        if parts.count == 2 {
            guard let s = Double(parts[1]), s.isFinite, s > 0 else { return nil }
            duration = MediaTime(seconds: s)
        }
        self.init(kind: kind, duration: duration)
    }
}
