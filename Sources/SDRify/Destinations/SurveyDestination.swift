import Foundation
import SDRifyOutput
import SDRifyTimeline

/// Nothing: the render is made for what it measures (`probe --scene-stats`).
final class SurveyDestination: OutputDestination {
    var writesVideoFile: Bool { false }
    var keepsHDR: Bool { false }
    var takesGainMap: Bool { false }

    func sinks(_ render: RenderOutputs) throws -> [MediaSink] { [DiscardingSink()] }

    func report(into result: inout ExportResult) { result.form = .survey }
}
