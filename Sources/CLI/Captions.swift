import ArgumentParser
import Foundation
import SDRify
import SDRifyCaptions
import SDRifyFiles
import SDRifyOutput
import SDRifyValues

struct Captions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a caption file between \(CaptionFormat.names("and")) lyrics (by OUT's extension).",
        discussion: """
            SCC is CEA-608 pop-on at 29.97 fps drop-frame time code. What 608 cannot hold (rows over 32 columns, more than \
            4 rows, characters outside its sets, overlapping captions, captions too close together to load) is an error \
            (exit 2) naming the first problem; --fix repairs each and says what it changed.
            """)

    @Argument(help: "Input captions (\(CaptionFormat.names()) lyrics).") var input: String
    @Argument(help: "Output captions: \(CaptionFormat.extensions()).") var output: String
    @Flag(help: "Repair what the output format cannot hold, saying what changed.") var fix = false
    @Option(
        name: .customLong("offset"), parsing: .unconditional,
        help: ArgumentHelp("Time added to every caption (negative: earlier).", valueName: "TIME"))
    var offsetTime: TimeArgument?
    @OptionGroup var replacing: OverwriteFlags
    @OptionGroup var quieting: QuietFlag
    @OptionGroup var service: ServiceFlags

    var offset: Double { offsetTime?.seconds ?? 0 }

    func run() throws {
        FailureReport.json = false  // it has no report to give
        service.apply()
        ServiceFlags.beginOutput(path: output, overwrite: replacing.policy, reading: [input])
        let result = try CaptionConversion.run(input: input, output: output, fix: fix, offset: offset, overwrite: replacing.policy)
        SignalCleanup.checkpoint()
        SignalCleanup.conclude()
        guard !quieting.quiet else { return }
        for r in result.repairs { log("sdrify: fixed: \(r)") }
        log("sdrify: wrote \(output) (\(counted(result.cues, "caption")), \(result.format.rawValue))")
    }
}
