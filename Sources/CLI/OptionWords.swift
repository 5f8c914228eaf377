import ArgumentParser
import SDRifyValues
import Foundation

/// What the argument parser does not say of the options on a command line.
/// - Misspelt options: it takes the value after an unknown option (`--presets 960x540`, `-preset 960x540`) for one
///   more file and reports the file count, not the option. When parsing fails, the first word that is no option of
///   the command is named instead, with the nearest option the command has.
/// - An option that takes one value, given twice with different values: it keeps the last silently.
enum OptionWords {
    struct Declared {
        var takesValue: Bool
        var repeats: Bool
        var preferred: String
    }

    /// The command's options as the parser declares them, by every name ("--preset", "-o").
    static func options(of command: String) -> [String: Declared] { declared[command] ?? declared[""] ?? [:] }

    /// Every command's options (the root's under ""), read once from the parser's own description of itself: making
    /// that description is the slow part of reading a command line.
    private static let declared: [String: [String: Declared]] = {
        guard let data = SDRifyCommand._dumpHelp().data(using: .utf8),
            let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let top = root["command"] as? [String: Any]
        else { return [:] }
        var all = ["": options(in: top)]
        for entry in top["subcommands"] as? [[String: Any]] ?? [] {
            if let name = entry["commandName"] as? String { all[name] = options(in: entry) }
        }
        return all
    }()

    private static func options(in entry: [String: Any]) -> [String: Declared] {
        var options: [String: Declared] = [
            "--help": Declared(takesValue: false, repeats: true, preferred: "--help"),
            "-h": Declared(takesValue: false, repeats: true, preferred: "--help")
        ]
        for argument in entry["arguments"] as? [[String: Any]] ?? [] {
            let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                guard let kind = name["kind"] as? String, let text = name["name"] as? String else { return nil }
                return (kind == "long" ? "--" : "-") + text
            }
            let declared = Declared(
                takesValue: argument["kind"] as? String == "option", repeats: argument["isRepeating"] as? Bool ?? false,
                preferred: names.first { $0.hasPrefix("--") } ?? names.first ?? "")
            for name in names { options[name] = declared }
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
            if let declared = options[name] {
                expectsValue = declared.takesValue && !word.contains("=")
                continue
            }
            // Short flags together (-yq).
            if !word.hasPrefix("--"), word.dropFirst().allSatisfy({ options["-\($0)"]?.takesValue == false }) { continue }
            return (name, nearest(name, among: options.keys.filter { $0.hasPrefix("--") }))
        }
        return nil
    }

    private static func nearest(_ word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        guard let best = names.map({ ($0, Spelling.distance(typed, Array($0))) }).min(by: { ($0.1, $0.0) < ($1.1, $1.0) }) else { return nil }
        return best.1 <= (best.0.count >= 6 ? 2 : 1) ? best.0 : nil
    }

    /// An option that takes one value given twice by its long name with different values ("--transition fade …
    /// --transition wipe"), as the one line that says so; nil when none is. Only a command line that repeats a long
    /// option asks the parser's table.
    static func repeatedValue(in arguments: [String]) -> String? {
        let words = arguments.prefix { $0 != "--" }
        let optionWords = words.filter { $0.hasPrefix("--") }.map { $0.split(separator: "=", maxSplits: 1)[0] }
        guard Set(optionWords).count < optionWords.count else { return nil }
        let options = options(of: command(of: arguments))
        var seen: [String: String] = [:]  // preferred name → its value
        var i = words.startIndex
        while i < words.endIndex {
            let word = words[i]
            let name = String(word.split(separator: "=", maxSplits: 1).first ?? "")
            i += 1
            guard let declared = options[name], declared.takesValue else { continue }
            let value: String
            if let eq = word.firstIndex(of: "=") {
                value = String(word[word.index(after: eq)...])
            } else {
                guard i < words.endIndex else { break }
                value = words[i]
                i += 1
            }
            guard !declared.repeats else { continue }
            if let earlier = seen[declared.preferred], earlier != value {
                return "\(declared.preferred) is given twice ('\(earlier)', then '\(value)'): give it once"
            }
            seen[declared.preferred] = value
        }
        return nil
    }

    /// The one line for an unknown option.
    static func message(_ unknown: (given: String, suggestion: String?), command: String) -> String {
        let hint = unknown.suggestion.map { ". Did you mean '\($0)'?" } ?? ""
        return "unknown option '\(unknown.given)'\(hint) (see sdrify \(command) --help)"
    }

    /// The parser's refusal of a value it cannot read ("The value 'abc' is invalid for '--start <TIME>'") with what the
    /// option accepts after it: a time's forms, or a number (a whole one where the value was a number with a fraction).
    static func withAcceptedForms(_ message: String) -> String {
        guard message.hasPrefix("The value '"), let quoteEnd = message.range(of: "' is invalid for '", options: .backwards) else { return message }
        let value = String(message[message.index(message.startIndex, offsetBy: 11)..<quoteEnd.lowerBound])
        let option = message[quoteEnd.upperBound...]
        if option.contains("<TIME>") { return "\(message): expected \(TimeArgument.forms)" }
        let numeric = Double(value.trimmingCharacters(in: .whitespaces)) != nil
        return
            "\(message): expected \(numeric ? "a whole number" : "a number") (see sdrify \(command(of: CommandLine.arguments.dropFirst().map { $0 })) --help)"
    }
}
