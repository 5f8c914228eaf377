import ArgumentParser
import Foundation
import SDRifyFiles
import SDRifyMedia
import SDRifyOutput
import SDRifyProbe
import SDRifySecurity
import SDRifyValues

// The CLI is a thin client of the SDRify library (the dav1d model): it parses arguments, calls one library
// entry point, and turns the outcome into output and an exit status. stdout carries data only.

/// Writes all of `text` to a file descriptor; false if it could not (a closed pipe, a full device). POSIX
/// write, because FileHandle traps on such errors.
@discardableResult
func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return false }
        done += n
    }
    return true
}

/// Writes one line to stderr (nothing more can be done if stderr itself is gone).
func log(_ line: String) {
    writeAll(2, shown(line) + "\n")
}

/// Text for people and programs: the inputs named as they were given (a stream as `-` or its FIFO, a motion photo's
/// movie by its photo), not by the paths they are read through.
func shown(_ text: String) -> String { StreamInput.naming(MotionPhoto.readable(text)) }

/// The same for a JSON report: only the streams are renamed (a motion photo's movie keeps the URL it is read by, a
/// value programs can open).
func shown(json: String) -> String { StreamInput.naming(json: json) }

/// The single `sdrify:` line for a failure (and under `--json` the error object on stdout), then the exit status.
func fail(_ message: String, _ status: Int32) -> Never {
    let oneLine = shown(message.split(whereSeparator: \.isNewline).map(String.init).joined(separator: "; "))
    OutputReservation.release()
    if FailureReport.json { writeAll(1, FailureReport.serialize(FailureReport.object(error: oneLine, status: status))) }
    log("sdrify: \(oneLine)")
    exit(status)
}

struct SDRifyCommand: ParsableCommand {
    static let usage = """
        sdrify IN OUT [--preset NAME] [options]
          sdrify convert IN... --output-dir DIR [--name PATTERN] [--skip-existing] [--jobs N] [options]
          sdrify <subcommand> [options]
        """
    static let examples = """
        EXAMPLES:
          sdrify IMG_0042.MOV out.mp4 --preset 960x540
          sdrify convert ~/Videos/*.MOV --output-dir sdr/ --skip-existing --jobs 2
          sdrify compose a.mov b.mp4 photo.jpg -o film.mp4 --transition fade --music song.m4a

        EXIT STATUS:
          0 done; 1 conversion failed or --max-memory; 2 damaged input; 3 unsupported input or a limit;
          4 output problem; 64 usage; 124 --timeout; 128+n signal n. A batch exits with its worst (highest) status.
        """

    static let configuration = CommandConfiguration(
        commandName: "sdrify",
        abstract: "Turn phone HDR video into SDR H.264 MP4 that plays correctly everywhere.",
        usage: usage,
        discussion: "Every clip comes out upright, tone mapped to BT.709 SDR, H.264/AAC in a fast-start MP4.\n\n" + examples,
        version: SDRifyVersion.report,
        subcommands: [
            Convert.self, Compose.self, Hls.self, Thumbnail.self, Sheet.self, Sprites.self, Captions.self, Tap.self, Probe.self, Presets.self,
            SandboxCheck.self
        ],
        defaultSubcommand: Convert.self)

    /// `sdrify --help` and bare `sdrify`: the main form first, then examples, then the commands.
    static var leadingHelp: String {
        let generated = helpMessage()
        let rest = generated.range(of: "\nOPTIONS:").map { String(generated[$0.lowerBound...]) } ?? generated
        let aligned = usage.replacingOccurrences(of: "\n  ", with: "\n       ")  // under "USAGE: "
        return "USAGE: " + aligned + "\n\n" + configuration.abstract + "\n\n" + examples + "\n" + rest
    }
}

/// A first word that is no file but close to a command's name is a typo of it ("prob" for "probe"), not an input.
func misspelledCommand(_ word: String) -> String? {
    guard !word.isEmpty, !word.hasPrefix("-"), !word.contains("."), !word.contains("/"),
        !FileManager.default.fileExists(atPath: word)
    else { return nil }
    let names = SDRifyCommand.configuration.subcommands.map { $0._commandName }
    guard !names.contains(word) else { return nil }
    return Spelling.nearest(to: word, among: names)
}

/// Descriptors 0–2 that the caller left closed (`<&-`, `>&-`, as some service managers and scripts start programs)
/// are opened on /dev/null, as careful Unix tools do: otherwise the first file opened takes the number, and the
/// output would receive what is meant for stdout (a JSON report, progress) or a pipe's end would break it.
func openMissingStandardDescriptors() {
    for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
        let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
        if opened >= 0, opened != fd {  // a lower one was closed too and took it: move it where it belongs
            _ = dup2(opened, fd)
            close(opened)
        }
    }
}

openMissingStandardDescriptors()  // first: nothing may take 0, 1 or 2 by accident
SignalCleanup.install()  // before anything else, so a signal at any moment ends the run cleanly
MemoryPolicy.install()
silenceFFmpegLogging()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty {  // bare `sdrify`: how to use it, not a complaint about a missing input
    writeAll(2, SDRifyCommand.leadingHelp + "\n")
    exit(ExitStatus.usage.rawValue)
}
if arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
    print(SDRifyCommand.leadingHelp)
    exit(0)
}
if arguments == ["--version"] || arguments == ["-V"] || arguments == ["version"] {
    print(SDRifyVersion.report)
    exit(0)
}
if arguments.count == 2, arguments.contains("--json"), arguments.contains(where: { ["--version", "-V", "version"].contains($0) }) {
    print(SDRifyVersion.json.serialized())  // what a job runner reads before it sends work (docs/reports.md)
    exit(0)
}
switch ParsedCommandLine(arguments) {
case .help(let text):
    print(text)
    exit(0)
case .refused(let message, let status):
    fail(message, status)
case .command(var command):
    do {
        try command.run()
    } catch let error as SDRifyError {
        fail(error.status == .usage ? ParsedCommandLine.usageLine(error.message, arguments) : error.message, error.status.rawValue)
    } catch {
        if SDRifyCommand.exitCode(for: error) == .success {  // --help, --version
            print(SDRifyCommand.fullMessage(for: error))
            exit(0)
        }
        fail(ParsedCommandLine.usageLine(OptionWords.withAcceptedForms(SDRifyCommand.message(for: error)), arguments), ExitStatus.usage.rawValue)
    }
}
