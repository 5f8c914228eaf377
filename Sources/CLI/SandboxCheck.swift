import ArgumentParser
import Foundation
import SDRifySecurity
import SDRifyValues

/// `sdrify sandbox-check`: enters the sandbox as a conversion of `--input` would, then tries to read each PATH and
/// says which it could. For checking a machine (does its kernel confine reading?) and for the tests.
struct SandboxCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-check",
        abstract: "Enter the sandbox as a conversion of INPUT would, then try to read each PATH (JSON on stdout).",
        shouldDisplay: false)

    @Option(help: "The file a conversion would read (allowed).") var input: String
    @Argument(help: "Files to try reading from inside the sandbox.") var paths: [String] = []

    func run() throws {
        Sandbox.requested = true
        Sandbox.enter(reading: [input])
        let tried = ([input] + paths).map { ($0, Sandbox.readProblem($0).map { JSONValue.string("refused: \($0)") } ?? .string("read")) }
        let report = JSONValue.object([("sandbox", Sandbox.report), ("paths", .object(tried))])
        guard writeAll(1, report.serialized(pretty: true) + "\n") else { throw SDRifyError(.outputProblem, "stdout: cannot write the report") }
    }
}
