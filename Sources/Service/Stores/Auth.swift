import Core
import Foundation
import Hummingbird
import Library

/// Who may do what: the server's tokens (`--tokens`, watched for changes), whether reading needs
/// one (`--token-to-read`), and the browser tickets this process signs.
final class Auth: Sendable {
    let tokens: Tokens
    let tokenToRead: Bool
    /// Signs and checks browser tickets (`POST /v1/tickets`): its key this process's alone, or the
    /// key file's every replica shares (`--ticket-key`).
    let tickets: Tickets

    init(tokens: Tokens, tokenToRead: Bool, tickets: Tickets = Tickets()) {
        self.tokens = tokens
        self.tokenToRead = tokenToRead
        self.tickets = tickets
    }

    /// Who is asking: nil for no token; 403 for a token that is not one of ours, and 401 for none
    /// where one is needed. `RequestGate` asks it for every route the table guards.
    static func caller(_ request: Request, tokens: Tokens, tickets: Tickets? = nil, needed: Bool) throws -> String? {
        guard let header = request.headers[.authorization] else {
            // A browser's ticket where it cannot send a header (an image's or a WebSocket's address).
            if let tickets, let ticket = request.uri.queryParameters.get("ticket"), !ticket.isEmpty {
                return try tickets.name(of: ticket, path: request.uri.path, molecule: request.uri.queryParameters.get("molecule"), tokens: tokens)
            }
            if needed { throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token") }
            return nil
        }
        guard header.lowercased().hasPrefix("bearer "), let name = tokens.name(of: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            throw HTTPError(.forbidden, message: "the token is not one this server knows")
        }
        return name
    }

    /// The token's owner, for routes that write (the route table made sure there is one).
    func writer(_ request: Request) throws -> String {
        guard let name = try Self.caller(request, tokens: tokens, needed: true) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "this needs a bearer token")
        }
        return name
    }

    /// Who reads: a token's owner, a ticket's, or no one.
    func viewer(_ request: Request) throws -> MoleculeLibrary.Viewer {
        .reader(try Self.caller(request, tokens: tokens, tickets: tickets, needed: tokenToRead))
    }

    /// Whether an answer may be kept by shared caches (no token is needed to read).
    var shared: Bool { !tokenToRead }
}
