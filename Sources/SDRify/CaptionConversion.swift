import Foundation
import SDRifyCaptions
import SDRifyFiles
import SDRifyOutput
import SDRifyValues

/// `sdrify captions IN OUT`: reads any caption file, writes the format of OUT's extension (atomically).
package enum CaptionConversion {
    package struct Result: Sendable {
        package let cues: Int
        package let format: CaptionFormat
        package let repairs: [String]
    }

    package static func run(input: String, output: String, fix: Bool, offset: Double = 0, overwrite: OverwritePolicy) throws -> Result {
        let (text, result) = try converted(input: input, output: output, fix: fix, offset: offset)
        let out = try AtomicOutput.open(finalPath: output, inputPaths: [input], policy: overwrite)
        defer { out.discard() }
        try out.write(Array(text.utf8))
        try out.commit()
        return result
    }

    /// What `run` writes to `output` (its format by extension), before any output is opened.
    package static func converted(input: String, output: String, fix: Bool, offset: Double = 0) throws -> (text: String, result: Result) {
        guard let format = CaptionFormat(path: output) else {
            throw SDRifyError.usage(
                "\(output): unsupported caption extension (one of \(CaptionFormat.allCases.map { "." + $0.fileExtensions[0] }.joined(separator: ", ")))"
            )
        }
        let cues = CaptionFile.shifted(try CaptionFile.cues(input), by: MediaTime(seconds: offset))
        guard !cues.isEmpty else { throw SDRifyError.invalidInput("\(input): no captions") }
        let (text, repairs) = try CaptionWriter.text(cues, format: format, fix: fix)
        return (text, Result(cues: cues.count, format: format, repairs: repairs))
    }
}
