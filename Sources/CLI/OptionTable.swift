import ArgumentParser
import SDRify
import SDRifyValues

// The options the library declares (CommandOptions): the parser's name and help come from the table, and so does
// the check, so a command only says which of them it takes.
extension CommandOption {
    /// The parser's long name.
    var long: NameSpecification { .customLong(name) }

    /// The parser's help.
    var argumentHelp: ArgumentHelp { ArgumentHelp(help, valueName: valueName) }

    /// Its value, read as a command validates: a refusal is a usage error like the parser's own.
    func checked(_ text: Text?) throws -> Value? {
        do { return try value(ifGiven: text) } catch let error as SDRifyError { throw ValidationError(error.message) }
    }
}
