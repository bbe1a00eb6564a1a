import Core
import Foundation
import Gestures
import Graphics
import Hummingbird
import HummingbirdWebSocket
import Imaging
import Library
import MoleculeView
import NIOCore
import PathwayModel
import Pathways
import Structure

/// Live sessions: a WebSocket at `/v1/sessions` (gestures in, frames out), the same address
/// answered 426 to a plain GET, and a recorded session's events.
struct SessionController: ServiceController {
    let configuration: ServiceConfiguration
    let auth: Auth
    let access: MoleculeAccess
    let pictures: PictureMaker
    let maps: MapStore
    let sessions: LiveSessions

    /// Where sessions are opened: one route, answered by the upgrade router for a WebSocket and
    /// by the HTTP router (426) for a plain GET, both checked against the same table entry.
    static let path = "/v1/sessions"

    var routes: [ServiceRoute] {
        [
            // The upgrade router takes a WebSocket's request; a plain GET is told what it needs.
            .init(.get, Self.path, .read, query: viewParameters + ["molecule", "pathway", "record", "frames", "quality"]) { r, _ in
                // What an upgrade would refuse is refused here too (400 naming it), before the 426.
                try checkSessionQuery(r)
                throw HTTPError(.upgradeRequired, headers: [.upgrade: "websocket", .connection: "Upgrade"],
                                message: "a live session is a WebSocket: send the upgrade headers")
            },
            .init(.get, "/v1/sessions/:id/events", .read) { _, c in try sessionEvents(try HTTPAnswer.path(c, "id")) },
        ]
    }

    /// Upgrades `GET /v1/sessions?molecule=ID&size=WxH&...` to a WebSocket (the other routes stay on
    /// the HTTP router), checked against the same route table.
    func webSocketRouter(table: RouteTable) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(RequestGate(table: table, auth: auth))
        // Every request is upgraded: a browser sees nothing of a refused upgrade but a failure,
        // while a session closed at once can say why (an error message, then the close reason).
        router.ws(RouterPath(Self.path), onUpgrade: { inbound, outbound, context in
            try await runSession(context.request, inbound: inbound, outbound: outbound)
        })
        return router
    }

    struct SessionPlan {
        enum Subject {
            case molecule(MoleculeDriver.Options, Structure)
            /// A molecule drawn by render process `worker` (which reads it).
            case remote(worker: Int, library: Int, settings: [(String, String)])
            case pathway(PathwayMap, width: Int, height: Int)
        }
        var subject: Subject
        /// The render worker a molecule session takes for its life (`RenderWorkers.done` at its end).
        var worker: Int?
        var record: Bool
        var width: Int
        var height: Int
        var mode: ViewMode
        /// The frames' format as asked (`frames=`, `quality=`); nil: PNG.
        var frames: (format: String, quality: Int?)?
    }

    /// The encoder `frames=NAME` and `quality=N` ask for, checked: 400 naming the parameter.
    static func frameEncoder(_ name: String, quality: Int?, request: RenderRequest) throws -> FrameEncoder {
        if let quality, !(1...100).contains(quality) { throw HTTPError(.badRequest, message: "parameter quality must be 1-100 (got \(quality))") }
        guard let encoder = FrameEncoder.named(name, quality: quality ?? FrameEncoder.defaultQuality, png: request.frameEncoder()) else {
            throw HTTPError(.badRequest, message: "parameter frames must be one of \(FrameEncoder.names.joined(separator: ", ")) (got \(Excerpt.of(name)))")
        }
        return encoder
    }

    /// `frames` and `quality` of a session's query, checked.
    static func framesAsked(_ request: Request) throws -> (format: String, quality: Int?)? {
        guard let name = HTTPAnswer.parameter(request, "frames") else {
            if HTTPAnswer.parameter(request, "quality") != nil { throw HTTPError(.badRequest, message: "parameter quality needs frames=jpeg or frames=webp") }
            return nil
        }
        var quality: Int?
        if let q = HTTPAnswer.parameter(request, "quality") {
            guard let n = Int(q) else { throw HTTPError(.badRequest, message: "parameter quality must be a whole number 1-100 (got \(Excerpt.of(q)))") }
            quality = n
        }
        _ = try frameEncoder(name, quality: quality, request: RenderRequest())
        return (name.lowercased(), quality)
    }

    /// The checks of a session's query that need no molecule or map: 400 naming a bad value.
    func checkSessionQuery(_ request: Request) throws {
        do { _ = try ValueText.flag(HTTPAnswer.parameter(request, "record") ?? "false", field: "record") } catch { throw HTTPAnswer.badRequest(error) }
        _ = try Self.framesAsked(request)
        if HTTPAnswer.parameter(request, "pathway") == nil {
            guard HTTPAnswer.parameter(request, "molecule") != nil else {
                throw HTTPError(.badRequest, message: "parameter molecule is needed (a library id or name), or pathway")
            }
            _ = try pictures.renderRequest(HTTPAnswer.query(request), defaultSize: "512")
        }
    }

    /// The session a query asks for: a molecule (one the caller may see) with the size and picture
    /// options `replay` takes, or a pathway map with a size; 400 or 404 as for images.
    func sessionPlan(_ request: Request) async throws -> SessionPlan {
        let record: Bool
        do { record = try ValueText.flag(HTTPAnswer.parameter(request, "record") ?? "false", field: "record") } catch { throw HTTPAnswer.badRequest(error) }
        let frames = try Self.framesAsked(request)
        if let id = HTTPAnswer.parameter(request, "pathway") {
            let map = try await maps.map(id).entry.map
            var r = PathwayRequest()
            r.size = HTTPAnswer.parameter(request, "size") ?? "768x512"
            let frame: (view: MapView, width: Int, height: Int)
            do { frame = try r.frame(for: map) } catch { throw HTTPAnswer.badRequest(error) }
            try pictures.checkSide(width: frame.width, height: frame.height)
            return SessionPlan(subject: .pathway(map, width: frame.width, height: frame.height), worker: nil, record: record,
                               width: frame.width, height: frame.height, mode: .pathway, frames: frames)
        }
        guard let reference = HTTPAnswer.parameter(request, "molecule") else {
            throw HTTPError(.badRequest, message: "parameter molecule is needed (a library id or name), or pathway")
        }
        let options = MoleculeDriver.Options.served(try pictures.renderRequest(HTTPAnswer.query(request), defaultSize: "512"),
                                                    maxSide: configuration.maxSide, maxAtoms: configuration.maxAtoms)
        let r = try await access.record(reference, viewer: auth.viewer(request))
        // The session's worker, for its life; a render process reads the molecule itself.
        let workers = pictures.workers
        let worker = try workers.take(forSession: true, queued: 0, limit: .max)
        let subject: SessionPlan.Subject
        if workers.process(worker) != nil {
            subject = .remote(worker: worker, library: r.id, settings: PictureMaker.pictureSettings(HTTPAnswer.query(request), defaultSize: "512"))
        } else {
            do {
                // Read off the threads that answer requests, as pictures are.
                let limits = pictures.limits
                let structure = try await pictures.heavy { try limits.load(.library(r.id)) }
                try pictures.checkSize(structure)
                subject = .molecule(options, structure)
            } catch {
                workers.done(worker, session: true)
                throw error
            }
        }
        return SessionPlan(subject: subject, worker: worker, record: record, width: options.request.width, height: options.request.height,
                           mode: .molecule(options.request.mode), frames: frames)
    }

    /// One session: the first text message says its id; then event lines in, frames out (a JSON
    /// text message describing each frame, then the picture, PNG or as `frames=` asks, as a binary
    /// message) and errors as JSON.
    func runSession(_ request: Request, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        // The session's place first, before anything is read or opened: a refusal then leaves
        // nothing behind, here or in a render process, and every later way out gives it back.
        let id = UUID().uuidString.lowercased()
        guard sessions.reserve(id, limit: configuration.maxSessions) else {
            try await outbound.close(.unknown(1013), reason: Self.closeReason("too many live sessions: this server takes \(configuration.maxSessions) at once; try again later"))
            return
        }
        defer { sessions.close(id) }
        let plan: SessionPlan
        do { plan = try await sessionPlan(request) } catch {
            // Its place given back before the refusal is sent: a client that opens another
            // session as soon as it reads the close finds the place free (it had raced the defer).
            sessions.close(id)
            return try await Self.refuse(error, outbound)
        }
        let workers = pictures.workers
        defer { if let worker = plan.worker { workers.done(worker, session: true) } }
        let (outputs, continuation) = AsyncStream<LiveOutput>.makeStream()
        let backlog = SendBacklog(), send: @Sendable (LiveOutput) -> Void = { if let admitted = backlog.admit($0) { continuation.yield(admitted) } }
        let session: any LiveView
        switch plan.subject {
        case .molecule(let options, let molecule):
            let frames = try plan.frames.map { try Self.frameEncoder($0.format, quality: $0.quality, request: options.request) }
            session = LiveSession(source: "session \(id)", options: options, molecule: molecule, lane: RenderLane(pictures.worker) { $0.molecules },
                                  record: plan.record, frames: frames, send: send)
        case .remote(let worker, let library, let settings):
            do {
                session = try await workers.process(worker)!.openSession(id, library: library, settings: settings, record: plan.record,
                                                                         frames: plan.frames, maxSide: configuration.maxSide, send: send)
            } catch {
                sessions.close(id)
                return try await Self.refuse(error, outbound)
            }
        case .pathway(let map, let width, let height):
            let frames = try plan.frames.map { try Self.frameEncoder($0.format, quality: $0.quality, request: RenderRequest()) }
            session = LiveSession(source: "session \(id)", map: map, width: width, height: height, theme: PathwayTheme(.standard),
                                  lane: RenderLane(pictures.worker) { $0.pathways }, record: plan.record, frames: frames.map { f in
                                      if case .png = f { return .png(.flat) } else { return f } }, maxSide: configuration.maxSide, send: send)
        }
        sessions.attach(id, session)
        // Closed here before its place is given back (defers run last first).
        defer {
            session.close()
            continuation.finish()
        }
        try await outbound.write(.text(try LiveMessage.line(LiveMessage.Session(id: id, width: plan.width, height: plan.height, mode: plan.mode.name,
                                                                                 record: plan.record, events: plan.record ? "/v1/sessions/\(id)/events" : nil))))
        let lastHeard = Locked(DispatchTime.now().uptimeNanoseconds), lines = SerialJobs(), waiting = WaitingLines()
        let idle = configuration.sessionIdleSeconds
        await withThrowingTaskGroup(of: Void.self) { group in
            // Frames and errors out, in the order they come.
            group.addTask {
                for await queued in outputs {
                    switch backlog.take(queued) {
                    case .frame(let f):
                        try await outbound.write(.text(try LiveMessage.line(LiveMessage.Frame(frame: f))))
                        try await outbound.writeBinaryMessage(ByteBuffer(bytes: f.image))
                    case .tapped(let tap):
                        try await outbound.write(.text(try LiveMessage.line(LiveMessage.Tapped(tap: tap))))
                    case .error(let line, let message):
                        try await outbound.write(.text(try LiveMessage.line(LiveMessage.Problem(line: line, message: message))))
                    }
                }
            }
            // Closes a session that has been silent too long.
            group.addTask {
                while true {
                    try await Task.sleep(nanoseconds: 250_000_000)
                    // Read in this order, a message may land between the two reads: the heard
                    // time is then after `now`, which counts as no silence (not an overflow).
                    let now = DispatchTime.now().uptimeNanoseconds, heard = lastHeard.withLock { $0 }
                    let silent = now > heard ? Double(now - heard) / 1e9 : 0
                    if silent > idle {
                        try await outbound.close(.goingAway, reason: "idle for more than \(Int(idle)) s")
                        return
                    }
                }
            }
            do {
                for try await message in inbound.messages(maxSize: ServiceLimits.eventLineBytes.value) {
                    lastHeard.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
                    switch message {
                    case .text(let text):
                        // Taken in order on the blocking pool (a line may wait for the render
                        // thread), as many as `WaitingLines` has room for; the rest are dropped.
                        for line in TextLines(text) where !line.isEmpty {
                            let line = String(line), size = line.utf8.count
                            if waiting.admit(size, tell: { send(.error(line: 0, message: $0)) }) {
                                lines.submit { session.receive(line); waiting.done(size) }
                            }
                        }
                    case .binary:
                        send(.error(line: 0, message: "events are text messages (lines of the event format); a binary message was left out"))
                    }
                }
            } catch {}
            session.close()
            continuation.finish()
            group.cancelAll()
        }
    }

    /// A session that could not start: the reason as an error message, then a close that says it.
    static func refuse(_ error: Error, _ outbound: WebSocketOutboundWriter) async throws {
        let message = (error as? HTTPError)?.body ?? "\(error)"
        try await outbound.write(.text(try LiveMessage.line(LiveMessage.Problem(line: 0, message: message))))
        try await outbound.close(.policyViolation, reason: closeReason(message))
    }

    /// `GET /v1/sessions/{id}/events`: a recorded session's events as an event file.
    func sessionEvents(_ id: String) throws -> Response {
        guard let text = sessions.recording(id) else { throw HTTPError(.notFound, message: "no recorded session \(id)") }
        return HTTPAnswer.response(Array(text.utf8), type: "application/jsonl")
    }

    /// A close frame's reason holds at most 123 bytes.
    static func closeReason(_ text: String) -> String {
        var out = ""
        for c in text {
            if out.utf8.count + String(c).utf8.count > 123 { break }
            out.append(c)
        }
        return out
    }
}
