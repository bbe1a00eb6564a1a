import Core
import Foundation
import Hummingbird
import Library

/// The server's own routes: its health, its API's description, its metrics, and browser tickets.
struct OperationsController: ServiceController {
    let auth: Auth
    let metrics: ServiceMetrics
    /// Resolves a ticket's molecule (its id and its name are one molecule's).
    let access: MoleculeAccess
    /// The OpenAPI document, versioned with the binary that serves it, read once at start-up.
    let openAPI: [UInt8]

    init(auth: Auth, metrics: ServiceMetrics, access: MoleculeAccess) {
        self.auth = auth
        self.metrics = metrics
        self.access = access
        let text = (try? Data(contentsOf: Resources.asset("openapi.yaml"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        openAPI = Array(text.replacingOccurrences(of: "version: 0.0.0  # replaced by the binary's version where it is served",
                                                  with: "version: \(MolshotVersion.current)").utf8)
    }

    var routes: [ServiceRoute] {
        [
            .init(.get, "/healthz", .open) { _, _ in HTTPAnswer.response(Array("ok\n".utf8), type: "text/plain; charset=utf-8") },
            .init(.get, "/openapi.yaml", .open) { [openAPI] _, _ in
                guard !openAPI.isEmpty else { throw HTTPError(.notFound, message: "this server was installed without its openapi.yaml") }
                return HTTPAnswer.response(openAPI, type: "application/yaml")
            },
            .init(.get, "/metrics", .read) { [metrics] _, _ in HTTPAnswer.response(Array(metrics.text.utf8), type: "text/plain; version=0.0.4") },
            .init(.post, "/v1/tickets", .write, query: ["scope", "seconds"]) { r, _ in try await ticket(r) },
        ]
    }

    /// `POST /v1/tickets?scope=/v1/molecules/1&seconds=300`: a ticket for the token's owner to read
    /// under `scope` (a path under /v1/, default all of it) for `seconds` (default 300, at most an hour).
    /// A molecule's scope (`/v1/molecules/REF`, by id or name) is that molecule: its addresses by id
    /// and by name, and the live views and replays of it (`molecule=` either), what an embedded
    /// private view asks for.
    func ticket(_ request: Request) async throws -> Response {
        let name = try auth.writer(request)
        let scope = HTTPAnswer.parameter(request, "scope") ?? "/v1/"
        guard scope.hasPrefix("/v1/"), scope.utf8.count <= 200, !scope.contains(".."), !scope.contains("?"), !scope.contains(" ") else {
            throw HTTPError(.badRequest, message: "parameter scope must be a path under /v1/ (got \(Excerpt.of(scope, length: 80)))")
        }
        let seconds: Int
        do { seconds = try ValueText.integer(HTTPAnswer.parameter(request, "seconds") ?? "300", field: "seconds", in: 1...Tickets.maxSeconds) } catch {
            throw HTTPAnswer.badRequest(error)
        }
        var scopes = [scope]
        let parts = scope.split(separator: "/", omittingEmptySubsequences: true)
        if parts.count == 3, parts[0] == "v1", parts[1] == "molecules", let reference = String(parts[2]).removingPercentEncoding {
            let record = try await access.record(reference, viewer: .reader(name))
            scopes = Tickets.moleculeScopes(id: record.id, name: record.name)
        }
        let issued = auth.tickets.issue(name: name, scope: scopes.joined(separator: " "), seconds: seconds)
        struct Answer: Encodable { var ticket: String; var scope: String; var expires: Int }
        return try HTTPAnswer.json(Answer(ticket: issued.ticket, scope: scope, expires: issued.expires))
    }
}
