import Core
import Foundation
import Hummingbird

/// Who a request comes from, as the render processes are shared out: a token's owner
/// (`token NAME`), else the address it came from; behind a proxy named by `--trusted-proxy`,
/// the address that proxy was reached from (the last one in `X-Forwarded-For` that is not a
/// trusted proxy). A header from anywhere else is ignored: a stranger cannot name itself
/// someone else.
enum RequestClient {
    /// The client of the request being answered, set by `RequestGate` for all the work it does.
    @TaskLocal static var current = "anonymous"

    static func identity(caller: String?, peer: String?, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        if let caller { return "token " + caller }
        guard let peer else { return "anonymous" }
        guard trustedProxies.contains(peer), let forwardedFor else { return peer }
        // nginx's $proxy_add_x_forwarded_for appends the address it was reached from to what the
        // client sent: what stands left of the proxies' own entries is the client's to write.
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trustedProxies.contains($0) } ?? peer
    }
}

/// How much of the render processes each client has: the pictures it has in them now, and the
/// seconds it has held their turns lately (halved every `halfLife` seconds). A client that has
/// held them waits behind one that has not (its recent seconds are its place in `WorkGate`), and
/// while others want them too, no client has more than its share at once (the places in the
/// render queue shared by the clients active now): past it, 429 with Retry-After. A lone
/// client is never limited but by the queue.
final class ClientShares: Sendable {
    /// Places in the render queue: pictures drawn and waiting at once.
    let capacity: Int
    private let clock: @Sendable () -> Double
    private struct Use: Sendable {
        var busy = 0
        /// Seconds held, decayed to `at`.
        var seconds = 0.0
        var at: Double
    }
    private let clients = Locked<[String: Use]>([:])

    static let halfLife = Double(ServiceLimits.clientHalfLife.value)

    init(capacity: Int, clock: @escaping @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }) {
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// Takes a place for `client`'s picture; returns its priority (its recent seconds: lower
    /// goes first). 429 when others are active and it has its share at once already.
    func admit(_ client: String) throws -> Double {
        let now = clock()
        return try clients.withLock { c in
            if c.count > Self.remembered { Self.forget(&c, now: now) }
            var use = Self.decayed(c[client] ?? Use(at: now), to: now)
            let active = 1 + c.reduce(0) { n, e in n + (e.key != client && Self.isActive(e.value, now: now) ? 1 : 0) }
            let share = max(1, capacity / active)
            if active > 1 && use.busy >= share {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: "1"],
                                message: "this client has \(use.busy) pictures being made, its share while \(active) clients use the server; try again in a second")
            }
            use.busy += 1
            c[client] = use
            return use.seconds
        }
    }

    /// Gives `client`'s place back; `seconds`: how long its picture held a render turn.
    func done(_ client: String, seconds: Double) {
        let now = clock()
        clients.withLock { c in
            guard let old = c[client] else { return }
            var use = Self.decayed(old, to: now)
            use.busy = max(0, use.busy - 1)
            use.seconds += max(0, seconds.isFinite ? seconds : 0)
            c[client] = use
        }
    }

    /// `client`'s recent seconds and pictures now (for tests and metrics).
    func use(of client: String) -> (busy: Int, seconds: Double) {
        let now = clock()
        return clients.withLock { c in c[client].map { let u = Self.decayed($0, to: now); return (u.busy, u.seconds) } ?? (0, 0) }
    }

    /// Clients kept before the idle ones are forgotten.
    static let remembered = 4096

    private static func isActive(_ use: Use, now: Double) -> Bool { use.busy > 0 || now - use.at < halfLife }

    private static func decayed(_ use: Use, to now: Double) -> Use {
        var u = use
        if now > u.at { u.seconds *= pow(0.5, (now - u.at) / halfLife) }
        u.at = max(u.at, now)
        return u
    }

    private static func forget(_ c: inout [String: Use], now: Double) {
        c = c.filter { isActive($0.value, now: now) }
    }
}
