import FlyingFox
import FlyingSocks
import Foundation
import SDRifyValues

/// The page `sdrify tap` serves on the loopback only, and the few things it serves: the page, the session (lines,
/// what plays), the medium (with range requests, so it seeks), saving, closing. Nothing else is served: any other
/// path, `../` ones included, is 404 (FlyingFox standardises the path before routing). With no page asking anything
/// for `idleLimit` (the page says it is open every 30 s; a killed browser says nothing), the server stops by itself.
package final class TapServer: @unchecked Sendable {
    private let session: TapSession
    private let served: URL  // the medium, or its SDR preview
    private let kind: String  // "video" or "audio": the element the page plays it in
    private let server: HTTPServer
    private let idleLimit: TimeInterval
    private let contact = LastContact()
    /// Whether the server stopped because no page had been open for `idleLimit`.
    package var stoppedIdle: Bool { idled.isSet }
    private let idled = Flag()

    /// `served`: the file /media serves. `port` 0 takes a free one.
    package init(session: TapSession, served: String, isVideo: Bool, port: UInt16, idleLimit: TimeInterval = 600) throws {
        self.session = session
        self.idleLimit = idleLimit
        self.served = URL(fileURLWithPath: served)
        kind = isVideo ? "video" : "audio"
        server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: port), timeout: 60, logger: .disabled)
    }

    /// Serves until the page closes (or `stop`), calling `ready` with the page's address once it listens. A port in
    /// use fails here, in one line.
    package func run(ready: @escaping @Sendable (String) -> Void) async throws {
        await routes()
        let ended = Flag()
        let listening = Task { [server] in
            defer { ended.set() }
            try await server.run()
        }
        // Listening, or failed at once (a port in use), within 10 s.
        var waited = 0
        while !(await server.isListening) {
            if ended.isSet || waited >= 500 {
                listening.cancel()
                if let failure = await listening.result.failure { throw TapServer.describe(failure) }
                throw SDRifyError.conversion("the page's server did not start listening")
            }
            try await Task.sleep(nanoseconds: 20_000_000)
            waited += 1
        }
        guard case .ip4(_, let port)? = await server.listeningAddress else { throw SDRifyError.conversion("the page's server has no address") }
        ready("http://127.0.0.1:\(port)/")
        let watchdog = Task { [weak self] in
            while let self, !self.stopping.isSet {
                if self.contact.secondsSince > self.idleLimit {
                    self.idled.set()
                    await self.stop()
                    return
                }
                try? await Task.sleep(nanoseconds: UInt64(min(1, self.idleLimit / 4) * 1e9))
            }
        }
        defer { watchdog.cancel() }
        let failure = await listening.result.failure
        // Once asked to stop, however the server ends is the end asked for.
        if let failure, !stopping.isSet { throw TapServer.describe(failure) }
    }

    /// Stops serving (the page closed, or Ctrl-C).
    package func stop() async {
        stopping.set()
        await server.stop(timeout: 1)
    }

    private let stopping = Flag()

    /// Set once, read from any thread.
    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
        func set() { lock.lock(); value = true; lock.unlock() }
    }

    /// When a page last asked anything.
    private final class LastContact: @unchecked Sendable {
        private let lock = NSLock()
        private var at = Date()
        func touch() { lock.lock(); at = Date(); lock.unlock() }
        var secondsSince: TimeInterval { lock.lock(); defer { lock.unlock() }; return -at.timeIntervalSinceNow }
    }

    private static func describe(_ error: Error) -> SDRifyError {
        if case .failed(_, let code, _)? = error as? SocketError, code == EADDRINUSE {
            return SDRifyError.usage("the port is in use: choose another with --port, or 0 for any free one")
        }
        return SDRifyError.conversion("the page's server failed: \(error.localizedDescription)")
    }

    private func routes() async {
        let page = Data(TapPage.html.utf8), session = session, served = served, kind = kind, contact = contact
        await server.appendRoute("POST /alive") { _ in
            contact.touch()
            return HTTPResponse(statusCode: .noContent)
        }
        await server.appendRoute("GET /") { _ in
            contact.touch()
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"], body: page)
        }
        await server.appendRoute("GET /session") { _ in
            contact.touch()
            let body: [String: Any] = [
                "lines": session.lines, "kind": kind, "name": URL(fileURLWithPath: session.media).lastPathComponent,
                "output": URL(fileURLWithPath: session.output).lastPathComponent
            ]
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: try JSONSerialization.data(withJSONObject: body))
        }
        await server.appendRoute("GET /media", to: FileHTTPHandler(path: served, contentType: TapServer.contentType(served, kind: kind)))
        await server.appendRoute("HEAD /media", to: FileHTTPHandler(path: served, contentType: TapServer.contentType(served, kind: kind)))
        await server.appendRoute("POST /save") { request in
            contact.touch()
            struct Body: Decodable { var cues: [TapSession.Timed]; var overwrite: Bool? }
            func reply(_ status: HTTPStatusCode, _ fields: [String: Any]) throws -> HTTPResponse {
                HTTPResponse(
                    statusCode: status, headers: [.contentType: "application/json"], body: try JSONSerialization.data(withJSONObject: fields))
            }
            let body: Body
            do { body = try JSONDecoder().decode(Body.self, from: try await request.bodyData) } catch {
                return try reply(.badRequest, ["error": "expected {\"cues\": [{\"line\", \"start\", \"end\"}]}"])
            }
            do {
                switch try session.save(body.cues, overwrite: body.overwrite ?? false) {
                case .saved(let path, let cues): return try reply(.ok, ["saved": path, "cues": cues])
                case .exists(let path, let ours):
                    return try reply(.conflict, ["exists": path, "madeBy": ours ? "sdrify" : "someone else"])
                }
            } catch let e as SDRifyError {
                return try reply(e.status == .usage ? .badRequest : .internalServerError, ["error": e.message])
            }
        }
        await server.appendRoute("POST /close") { [weak self] _ in
            Task { await self?.stop() }
            return HTTPResponse(statusCode: .ok)
        }
    }

    private static func contentType(_ file: URL, kind: String) -> String {
        switch file.pathExtension.lowercased() {
        case "mp4", "m4v", "mov": kind == "video" ? "video/mp4" : "audio/mp4"
        case "m4a", "aac": "audio/mp4"
        case "mp3": "audio/mpeg"
        case "wav": "audio/wav"
        case "ogg", "oga", "opus": "audio/ogg"
        case "flac": "audio/flac"
        case "webm": "video/webm"
        default: "application/octet-stream"
        }
    }
}

extension Result {
    fileprivate var failure: Failure? { if case .failure(let e) = self { e } else { nil } }
}
