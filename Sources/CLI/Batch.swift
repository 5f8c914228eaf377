import ArgumentParser
import Foundation
import SDRify
import SDRifyFiles
import SDRifyMedia
import SDRifyOutput
import SDRifyValues
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Converting many files into a folder. Each file runs in its own sdrify process (the same command line, told
/// which file is its own through the environment), so every file keeps the single-file contract unchanged — its own
/// sandbox, limits, atomic output and exit status — and a crash or limit in one cannot touch the others.
enum Batch {
    static let defaultPattern = "{stem}.mp4"
    static let maxJobs = CommandOptions.maxJobs

    struct Entry { let input: String; let output: String }

    /// What a batch child reads from its environment: which file is its own, and its share of the threads.
    struct Item {
        static let indexVariable = "SDRIFY_BATCH_ITEM", threadsVariable = "SDRIFY_BATCH_THREADS"
        let index: Int
        let threads: Int
        static var current: Item? {
            let env = ProcessInfo.processInfo.environment
            guard let i = env[indexVariable].flatMap(Int.init), i >= 0 else { return nil }
            return Item(index: i, threads: env[threadsVariable].flatMap(Int.init) ?? 0)
        }
    }

    /// Each input and its output in `directory`, named by `pattern`; refused (usage) when two inputs would write the
    /// same file, an output would overwrite an input, or the pattern makes no usable file name.
    static func plan(inputs: [String], directory: String, pattern: String, preset: String) throws -> [Entry] {
        guard !pattern.contains("/") else { throw ValidationError("--name is a file name, without '/'") }
        var seen: [String: String] = [:]
        return try inputs.enumerated().map { i, input in
            let url = URL(fileURLWithPath: input)
            let stem = url.deletingPathExtension().lastPathComponent
            var name = pattern
            for (key, value) in [
                ("{stem}", stem), ("{name}", url.lastPathComponent), ("{ext}", url.pathExtension),
                ("{index}", String(i + 1)), ("{preset}", preset)
            ] {
                name = name.replacingOccurrences(of: key, with: value)
            }
            let ext = URL(fileURLWithPath: name).pathExtension.lowercased()
            guard CodecCatalog.outputExtensions.contains(ext), name != "." + ext else {
                throw ValidationError(
                    "--name '\(pattern)' must make a file name ending in \(CodecCatalog.outputExtensions.map { "." + $0 }.joined(separator: ", ")) (got '\(name)')"
                )
            }
            guard name.utf8.count <= 255 else { throw ValidationError("--name makes a file name over 255 bytes for \(input)") }
            let output = URL(fileURLWithPath: directory).appendingPathComponent(name).path
            if let other = seen[output] {
                throw ValidationError("\(other) and \(input) would both be written to \(output): use {index} or {name} in --name")
            }
            seen[output] = input
            if URL(fileURLWithPath: input).standardizedFileURL.path == URL(fileURLWithPath: output).standardizedFileURL.path {
                throw ValidationError("\(input) would be overwritten by its own output: choose another --output-dir or --name")
            }
            return Entry(input: input, output: output)
        }
    }

    /// Runs every file, `jobs` at a time; exits with the worst file's status (or the signal's, if interrupted).
    static func run(_ plan: [Entry], directory: String, jobs: Int, threads: Int, json: Bool, quiet: Bool) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SDRifyError(.outputProblem, "\(directory): cannot make the output folder (\(error.localizedDescription))")
        }
        let budget = threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
        // With one file at a time it keeps the automatic budget; side by side each gets its share.
        let perFile = jobs == 1 ? threads : max(1, budget / jobs)
        let runner = BatchRunner(plan: plan, jobs: jobs, threadsPerFile: perFile, json: json)
        let outcome = runner.run()
        let worst = outcome.statuses.max() ?? 0
        let converted = outcome.statuses.count - outcome.failed
        if json {
            var summary: [(String, JSONValue)] = [
                ("files", .int(Int64(plan.count))), ("finished", .int(Int64(converted))),
                ("failed", .int(Int64(outcome.failed))),
                ("not_started", .int(Int64(plan.count - outcome.statuses.count)))
            ]
            if let sig = outcome.signal { summary.append(("interrupted", .string(SignalCleanup.name(of: sig)))) }
            summary.append(("exit_code", .int(Int64(outcome.signal.map { 128 + $0 } ?? worst))))
            if !writeAll(1, JSONValue.object([("summary", .object(summary))]).serialized(pretty: false) + "\n") { runner.reportLost = true }
        }
        if let sig = outcome.signal {
            log(
                "sdrify: batch \(SignalCleanup.message(of: sig)): \(converted) of \(counted(plan.count, "file")) finished, \(plan.count - outcome.statuses.count) not started"
            )
            exit(128 + sig)
        }
        if !quiet, !json, plan.count > 1 {
            log(
                "sdrify: batch done: \(converted) of \(counted(plan.count, "file")) finished\(outcome.failed > 0 ? ", \(outcome.failed) failed (exit \(worst))" : "")"
            )
        }
        // The files are done and stay; the reports are part of the result, so losing them is an output problem.
        if runner.reportLost {
            log("sdrify: stdout: cannot write the JSON reports; the converted files stay")
            exit(max(worst, ExitStatus.outputProblem.rawValue))
        }
        if worst != 0 { exit(worst) }
    }
}

/// Starts the batch's child processes, passes their output on, and stops them together on a signal.
final class BatchRunner {
    struct Outcome { var statuses: [Int32] = []; var failed = 0; var signal: Int32? }

    private struct Child {
        let index: Int
        let pid: pid_t
        var err: Int32, out: Int32  // pipes from the child's stderr and (under --json) stdout; -1 once closed
        var errPending = [UInt8](), report = [UInt8]()
    }

    private let plan: [Batch.Entry]
    private let jobs: Int
    private let threadsPerFile: Int
    private let json: Bool
    /// A JSON line could not be written (a closed or full stdout).
    var reportLost = false

    /// The signal that stopped the batch, and the live children a signal is passed on to (read by the handler).
    static let stopSignal = Atomic<Int32>(0)
    nonisolated(unsafe) static let livePids: UnsafeMutablePointer<Atomic<Int32>> = {
        let p = UnsafeMutablePointer<Atomic<Int32>>.allocate(capacity: Batch.maxJobs)
        for i in 0..<Batch.maxJobs { (p + i).initialize(to: Atomic<Int32>(0)) }
        return p
    }()

    init(plan: [Batch.Entry], jobs: Int, threadsPerFile: Int, json: Bool) {
        self.plan = plan; self.jobs = jobs; self.threadsPerFile = threadsPerFile; self.json = json
    }

    /// A signal stops the batch: no file is started after it, and each running child gets it too (and removes its
    /// unfinished output, as a single conversion does). Replaces the single-run handlers: the parent writes no file.
    private func installSignalHandlers() {
        let handler: @convention(c) (Int32) -> Void = { sig in
            _ = BatchRunner.stopSignal.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent)
            for i in 0..<Batch.maxJobs {
                let pid = BatchRunner.livePids[i].load(ordering: .sequentiallyConsistent)
                if pid > 0 { kill(pid, sig) }
            }
        }
        for sig in SignalCleanup.handled {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0  // no SA_RESTART: poll returns at once
            sigaction(sig, &action, nil)
        }
    }

    func run() -> Outcome {
        installSignalHandlers()
        var outcome = Outcome()
        // Largest files first (a cheap proxy for the work): side by side, the batch then ends on small files
        // instead of one large file running alone while the other cores idle.
        let size = { (i: Int) -> Int in (try? FileManager.default.attributesOfItem(atPath: self.plan[i].input)[.size] as? Int) ?? 0 }
        let sizes = plan.indices.map(size)
        let order = jobs == 1 ? Array(plan.indices) : plan.indices.sorted { sizes[$0] > sizes[$1] }
        var next = 0
        var running: [Child] = []
        while true {
            let stopped = BatchRunner.stopSignal.load(ordering: .sequentiallyConsistent)
            while stopped == 0, running.count < jobs, next < plan.count {
                if let child = spawn(order[next]) {
                    running.append(child)
                } else {
                    outcome.statuses.append(1); outcome.failed += 1
                    log("sdrify: \(label(order[next])): could not start a process for it")
                }
                next += 1
            }
            if running.isEmpty { break }
            pump(&running, into: &outcome)
        }
        outcome.signal = BatchRunner.stopSignal.load(ordering: .sequentiallyConsistent).nonZero
        return outcome
    }

    private func label(_ index: Int) -> String { URL(fileURLWithPath: plan[index].input).lastPathComponent }

    private func spawn(_ index: Int) -> Child? {
        var errPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        guard pipe(&errPipe) == 0 else { return nil }
        if json, pipe(&outPipe) != 0 { close(errPipe[0]); close(errPipe[1]); return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_addclose(&actions, errPipe[0])
        if json {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, outPipe[0])
        }
        var env = ProcessInfo.processInfo.environment
        env[Batch.Item.indexVariable] = String(index)
        env[Batch.Item.threadsVariable] = String(threadsPerFile)
        let argv = CommandLine.arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/proc/self/exe", &actions, nil, argv, envp)
        close(errPipe[1])
        if json { close(outPipe[1]) }
        guard rc == 0 else {
            close(errPipe[0]); if json { close(outPipe[0]) }
            return nil
        }
        for i in 0..<Batch.maxJobs
        where BatchRunner.livePids[i].compareExchange(expected: 0, desired: pid, ordering: .sequentiallyConsistent).exchanged { break }
        // A signal that came while this child was being started has missed it: pass it on now.
        let sig = BatchRunner.stopSignal.load(ordering: .sequentiallyConsistent)
        if sig != 0 { kill(pid, sig) }
        return Child(index: index, pid: pid, err: errPipe[0], out: json ? outPipe[0] : -1)
    }

    /// Waits for output from the running children, passes stderr lines on (named by file), and collects the ones
    /// that finished.
    private func pump(_ running: inout [Child], into outcome: inout Outcome) {
        var fds = running.flatMap { [pollfd(fd: $0.err, events: Int16(POLLIN), revents: 0), pollfd(fd: $0.out, events: Int16(POLLIN), revents: 0)] }
        _ = poll(&fds, nfds_t(fds.count), 250)
        for c in running.indices {
            for (k, isErr) in [(2 * c, true), (2 * c + 1, false)] where fds[k].fd >= 0 && fds[k].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let n = read(fds[k].fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    close(fds[k].fd)
                    if isErr { flushLines(&running[c], final: true); running[c].err = -1 } else { running[c].out = -1 }
                } else if isErr {
                    running[c].errPending += buffer[0..<n]
                    flushLines(&running[c], final: false)
                } else {
                    running[c].report += buffer[0..<n]
                }
            }
        }
        running.removeAll { child in
            guard child.err < 0, child.out < 0 else { return false }
            finish(child, into: &outcome)
            return true
        }
    }

    /// A child's stderr lines, named by its file: "sdrify: IMG_1.MOV: wrote …".
    private func flushLines(_ child: inout Child, final: Bool) {
        while let nl = child.errPending.firstIndex(of: UInt8(ascii: "\n")) {
            emit(String(decoding: child.errPending[..<nl], as: UTF8.self), child.index)
            child.errPending.removeSubrange(...nl)
        }
        if final, !child.errPending.isEmpty { emit(String(decoding: child.errPending, as: UTF8.self), child.index); child.errPending = [] }
    }

    /// The line with the file named once: the child's own naming of its input gives way to the label.
    private func emit(_ line: String, _ index: Int) {
        var body = line.hasPrefix("sdrify: ") ? String(line.dropFirst(8)) : line
        let input = plan[index].input
        for (named, kept) in [("\(input): ", ""), ("warning: \(input): ", "warning: ")] where body.hasPrefix(named) {
            body = kept + body.dropFirst(named.count)
            break
        }
        log("sdrify: \(label(index)): \(body)")
    }

    private func finish(_ child: Child, into outcome: inout Outcome) {
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        for i in 0..<Batch.maxJobs
        where BatchRunner.livePids[i].compareExchange(expected: child.pid, desired: 0, ordering: .sequentiallyConsistent).exchanged { break }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let exitCode: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        outcome.statuses.append(exitCode)
        if exitCode != 0 { outcome.failed += 1 }
        guard json else { return }
        let report = String(decoding: child.report, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !report.isEmpty, !report.contains("\n") {
            if !writeAll(1, report + "\n") { reportLost = true }
        } else {  // it ended without its report (killed): say so in its place
            let entry = plan[child.index]
            let line = JSONValue.object([
                ("input", .string(entry.input)), ("output", .string(entry.output)), ("status", .string("failed")),
                ("error", .string("ended with status \(exitCode) without a report")),
                ("exit_code", .int(Int64(exitCode)))
            ])
            if !writeAll(1, line.serialized(pretty: false) + "\n") { reportLost = true }
        }
    }
}

private extension Int32 {
    var nonZero: Int32? { self == 0 ? nil : self }
}
