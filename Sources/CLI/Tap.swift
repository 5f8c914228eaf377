import ArgumentParser
import Foundation
import SDRify
import SDRifyCaptions
import SDRifyMedia
import SDRifyTap
import SDRifyValues

struct Tap: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time lyrics by holding them: a page in your browser plays MEDIA and shows each line for as long as you hold it.",
        discussion: """
            sdrify serves the page on 127.0.0.1 and prints its address. Hold Space (or F, J, K), or a line, while the line \
            is sung; let go when it ends. Save writes the timed lines next to MEDIA (MEDIA.srt, or -o) without replacing \
            a file unless you agree on the page; burn them in with --captions. HDR video plays as sdrify's SDR preview. \
            Closing the page or Ctrl-C stops the server.
            """)

    @Argument(help: "The video or song to time the lyrics against.") var media: String
    @Argument(help: "The lyrics: a text file, one line per lyric.") var lyrics: String
    @Option(
        name: [.short, .customLong("output")],
        help: "Where Save writes the timing: \(CaptionFormat.tapTimingExtensions) (default: MEDIA.srt).")
    var output: String?
    @Option(help: "The port to serve on (default: any free one).") var port: Int?
    @Option(
        name: .customLong("idle-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Stop by itself when no page has been open this long (default 10 minutes): a killed browser says nothing.", valueName: "TIME"))
    var idleTimeout: TimeArgument?

    func validate() throws {
        guard (0...65535).contains(port ?? 0) else { throw ValidationError("--port must be from 0 to 65535") }
        if let t = idleTimeout?.seconds, !(t > 0) { throw ValidationError("--idle-timeout must be more than 0 seconds") }
    }

    func run() throws {
        FailureReport.json = false
        guard FileManager.default.isReadableFile(atPath: media) else { throw SDRifyError.usage("\(media): cannot read the medium") }
        let session = try TapSession(lyrics: lyrics, media: media, output: output)
        let (isVideo, needsPreview) = try Tap.look(at: media)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-tap-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var served = media
        if needsPreview {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            served = scratch.appendingPathComponent("preview.mp4").path
            log("sdrify: making an SDR preview of \(media) for the browser…")
            try Tap.preview(media, into: served)
        }
        let server = try TapServer(
            session: session, served: served, isVideo: isVideo, port: UInt16(port ?? 0), idleLimit: idleTimeout?.seconds ?? 600)
        // Ctrl-C (and a terminal hanging up) stops the server; the run then ends as when the page closes.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let interrupted = Interrupted()
        let stops = [SIGINT, SIGTERM].map { sig in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                interrupted.by = sig
                Task { await server.stop() }
            }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error? = nil
        Task {
            do {
                try await server.run { address in
                    writeAll(1, address + "\n")
                    log("sdrify: open \(address) in your browser to time \(session.lines.count) lines; Save writes \(session.output)")
                }
            } catch { failure = error }
            done.signal()
        }
        done.wait()
        if let failure { throw failure }
        if server.stoppedIdle {
            log("sdrify: no page open for \(Int(idleTimeout?.seconds ?? 600)) s: stopped (what was saved is kept)")
        }
        if let sig = interrupted.by {
            throw SDRifyError(sig == SIGINT ? .interrupted : .terminated, "stopped (\(sig == SIGINT ? "Ctrl-C" : "SIGTERM")): what was saved is kept")
        }
    }

    /// The signal that stopped the page's server, if one did.
    final class Interrupted: @unchecked Sendable {
        private let lock = NSLock()
        private var signal: Int32? = nil
        var by: Int32? {
            get { lock.lock(); defer { lock.unlock() }; return signal }
            set { lock.lock(); signal = newValue; lock.unlock() }
        }
    }

    /// Whether the medium is a video, and whether a browser needs sdrify's preview of it (HDR, or a codec browsers do
    /// not all play).
    static func look(at media: String) throws -> (isVideo: Bool, needsPreview: Bool) {
        if AudioOnlyConversion.length(of: media) != nil { return (false, false) }
        let info = try Prober.probe(path: media)
        let playable = ["h264", "vp8", "vp9", "av1"].contains(info.video.codec)
        return (true, info.video.hdrKind != .sdr || !playable)
    }

    /// An H.264 SDR copy at 960×540 at most, made by this sdrify.
    static func preview(_ media: String, into path: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        p.arguments = [media, path, "--preset", "960x540", "--quiet"]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw SDRifyError(ExitStatus(rawValue: p.terminationStatus) ?? .conversionFailed, text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
