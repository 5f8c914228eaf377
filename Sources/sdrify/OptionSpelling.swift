import ArgumentParser
import Foundation

/// Misspelt options. The argument parser takes the value after an unknown option (`--presets 960x540`,
/// `-preset 960x540`) for one more file and reports the file count, not the option: when parsing fails, the first
/// word that is no option of the command is named instead, with the nearest option the command has.
enum OptionSpelling {
    /// The command's options as the parser declares them: name ("--preset", "-o") → whether a value follows.
    static func options(of command: String) -> [String: Bool] {
        guard let data = SDRifyCommand._dumpHelp().data(using: .utf8),
            let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let top = root["command"] as? [String: Any]
        else { return [:] }
        let subcommands = top["subcommands"] as? [[String: Any]] ?? []
        let entry = subcommands.first { $0["commandName"] as? String == command } ?? top
        var options: [String: Bool] = ["--help": false, "-h": false]
        for argument in entry["arguments"] as? [[String: Any]] ?? [] {
            let takesValue = argument["kind"] as? String == "option"
            for name in argument["names"] as? [[String: Any]] ?? [] {
                guard let kind = name["kind"] as? String, let text = name["name"] as? String else { continue }
                options[(kind == "long" ? "--" : "-") + text] = takesValue
            }
        }
        return options
    }

    /// The command a command line runs: its first word when that names one, else convert (the default).
    static func command(of arguments: [String]) -> String {
        let names = SDRifyCommand.configuration.subcommands.map { $0._commandName }
        return arguments.first.flatMap { names.contains($0) ? $0 : nil } ?? Convert._commandName
    }

    /// The first word that looks like an option but is none of the command's, and the nearest one it has (one or two
    /// edits away, or the same word with two dashes); nil when every option is known.
    static func firstUnknown(in arguments: [String]) -> (given: String, suggestion: String?)? {
        let command = command(of: arguments)
        let options = options(of: command)
        guard !options.isEmpty else { return nil }
        var words = arguments[...]
        if words.first == command { words = words.dropFirst() }
        var expectsValue = false
        for word in words {
            if word == "--" { return nil }  // what follows is files
            if expectsValue {
                expectsValue = false
                continue
            }
            guard word.hasPrefix("-"), word != "-", Double(word) == nil else { continue }  // a file, stdin, a negative value
            let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            if let takesValue = options[name] {
                expectsValue = takesValue && !word.contains("=")
                continue
            }
            // Short flags together (-yq).
            if !word.hasPrefix("--"), word.dropFirst().allSatisfy({ options["-\($0)"] == false }) { continue }
            return (name, nearest(name, among: options.keys.filter { $0.hasPrefix("--") }))
        }
        return nil
    }

    private static func nearest(_ word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard let best = names.map({ ($0, editDistance(typed, Array($0))) }).min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) else { return nil }
        return best.1 <= (best.0.count >= 6 ? 2 : 1) ? best.0 : nil
    }

    /// The one line for an unknown option.
    static func message(_ unknown: (given: String, suggestion: String?), command: String) -> String {
        let hint = unknown.suggestion.map { ". Did you mean '\($0)'?" } ?? ""
        return "unknown option '\(unknown.given)'\(hint) (see sdrify \(command) --help)"
    }
}
