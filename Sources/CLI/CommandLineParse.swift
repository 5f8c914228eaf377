import ArgumentParser
import Foundation
import SDRifyValues

/// What a command line comes to before anything runs: the command to run, the help it asked for, or the one line it
/// is refused with and its exit status. `main` acts on it; the tests ask it in-process (OptionSpellingTests), so
/// every refusal the parser decides is checked without starting a process.
enum ParsedCommandLine {
    case command(ParsableCommand)
    case help(String)  // printed on stdout, exit 0
    case refused(String, status: Int32)

    init(_ arguments: [String]) {
        if let first = arguments.first, let command = misspelledCommand(first) {
            self = .refused("unknown command '\(first)'; did you mean '\(command)'? (see sdrify --help)", status: ExitStatus.usage.rawValue)
            return
        }
        if let repeated = OptionWords.repeatedValue(in: arguments) {
            self = .refused(repeated, status: ExitStatus.usage.rawValue)
            return
        }
        do {
            self = .command(try SDRifyCommand.parseAsRoot(arguments))
        } catch let error as SDRifyError {
            self = .refused(error.status == .usage ? Self.usageLine(error.message, arguments) : error.message, status: error.status.rawValue)
        } catch {
            if SDRifyCommand.exitCode(for: error) == .success {  // --help, --version of a command
                self = .help(SDRifyCommand.fullMessage(for: error))
                return
            }
            self = .refused(
                Self.usageLine(OptionWords.withAcceptedForms(SDRifyCommand.message(for: error)), arguments), status: ExitStatus.usage.rawValue)
        }
    }

    /// A usage error's line: with an unknown option on the command line it is about that option (the parser may have
    /// taken its value for a file and complained about the files).
    static func usageLine(_ message: String, _ arguments: [String]) -> String {
        guard let unknown = OptionWords.firstUnknown(in: arguments) else { return message }
        return OptionWords.message(unknown, command: OptionWords.command(of: arguments))
    }
}
