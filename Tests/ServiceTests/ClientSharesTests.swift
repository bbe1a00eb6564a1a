import Core
import Foundation
import Hummingbird
@testable import Service
import XCTest

/// The render processes shared out by client (issue 95): who a request comes from, its place in
/// the queue by its recent render seconds, and its share while others use the server.
final class ClientSharesTests: XCTestCase {
    /// A clock the test moves.
    final class Clock: Sendable {
        let now = Locked(1000.0)
        func advance(_ seconds: Double) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Double { { [now] in now.withLock { $0 } } }
    }

    func testAClientIsItsTokenElseItsAddressAndAForwardedAddressOnlyFromATrustedProxy() {
        let proxies: Set<String> = ["127.0.0.1"]
        XCTAssertEqual(RequestClient.identity(caller: "alice", peer: "192.0.2.9", forwardedFor: "198.51.100.1", trustedProxies: proxies), "token alice")
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "192.0.2.9", forwardedFor: "198.51.100.1", trustedProxies: proxies), "192.0.2.9",
                       "a stranger cannot name itself someone else")
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "127.0.0.1", forwardedFor: "198.51.100.1", trustedProxies: proxies), "198.51.100.1")
        // nginx appends the address it was reached from to what the client wrote: the client's own
        // entries, left of it, are not believed.
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "127.0.0.1", forwardedFor: "10.9.9.9, 198.51.100.1", trustedProxies: proxies), "198.51.100.1")
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "127.0.0.1", forwardedFor: "198.51.100.1, 127.0.0.1", trustedProxies: proxies), "198.51.100.1",
                       "a proxy's own entry is passed over")
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "127.0.0.1", forwardedFor: nil, trustedProxies: proxies), "127.0.0.1")
        XCTAssertEqual(RequestClient.identity(caller: nil, peer: "127.0.0.1", forwardedFor: " , ", trustedProxies: proxies), "127.0.0.1")
    }

    func testTrustedProxiesAreCheckedAddresses() throws {
        XCTAssertEqual(try ServiceConfiguration.addresses("127.0.0.1, ::1", setting: "trusted-proxy"), ["127.0.0.1", "::1"])
        XCTAssertThrowsError(try ServiceConfiguration.addresses("127.0.0.1,nginx.local", setting: "trusted-proxy")) { error in
            XCTAssertTrue("\(error)".contains("trusted-proxy") && "\(error)".contains("nginx.local"), "\(error)")
        }
    }

    func testALoneClientIsNeverHeldToAShare() throws {
        let shares = ClientShares(capacity: 4, clock: Clock().read)
        for _ in 0..<10 { _ = try shares.admit("192.0.2.1") }
        XCTAssertEqual(shares.use(of: "192.0.2.1").busy, 10, "only the queue bounds a lone client")
    }

    func testWhileOthersAreActiveAClientHasItsShareAndThen429() throws {
        let clock = Clock()
        let shares = ClientShares(capacity: 4, clock: clock.read)
        _ = try shares.admit("192.0.2.2")
        shares.done("192.0.2.2", seconds: 0.01)
        // 192.0.2.2 drew a picture a moment ago: two clients, a share of two each.
        _ = try shares.admit("192.0.2.1")
        _ = try shares.admit("192.0.2.1")
        XCTAssertThrowsError(try shares.admit("192.0.2.1")) { error in
            let http = error as? HTTPError
            XCTAssertEqual(http?.status, .tooManyRequests)
            XCTAssertEqual(http?.headers[.retryAfter], "1")
        }
        XCTAssertEqual(try shares.admit("192.0.2.2"), 0.01, accuracy: 1e-9, "the other client is let in, its recent seconds its place")
        // Once the other has been idle for a half-life, the first is alone again.
        shares.done("192.0.2.2", seconds: 0)
        clock.advance(ClientShares.halfLife + 1)
        XCTAssertNoThrow(try shares.admit("192.0.2.1"))
    }

    func testRecentSecondsHalveEveryHalfLife() throws {
        let clock = Clock()
        let shares = ClientShares(capacity: 4, clock: clock.read)
        _ = try shares.admit("192.0.2.1")
        shares.done("192.0.2.1", seconds: 8)
        clock.advance(ClientShares.halfLife)
        XCTAssertEqual(shares.use(of: "192.0.2.1").seconds, 4, accuracy: 1e-9)
        clock.advance(ClientShares.halfLife)
        XCTAssertEqual(try shares.admit("192.0.2.1"), 2, accuracy: 1e-9)
    }

    /// The queue's turn goes to the waiter of lowest priority (fewest recent render seconds), the
    /// earliest among equals; a cancelled waiter leaves it.
    func testTheGateGivesTurnsByPriorityAndDropsCancelledWaiters() async throws {
        let gate = WorkGate(slots: 1, waiting: 4)
        try await gate.enter()
        let order = Locked<[String]>([])
        func waiter(_ name: String, _ priority: Double) -> Task<Void, Error> {
            Task { try await gate.enter(priority: priority); order.withLock { $0.append(name) }; gate.leave() }
        }
        let greedy = waiter("greedy", 30)
        while gate.load.waiting < 1 { await Task.yield() }
        let gone = waiter("gone", 0)
        while gate.load.waiting < 2 { await Task.yield() }
        let modest = waiter("modest", 0.02)
        while gate.load.waiting < 3 { await Task.yield() }
        let early = waiter("early", 0.02)
        while gate.load.waiting < 4 { await Task.yield() }
        gone.cancel()
        do { try await gone.value; XCTFail("a cancelled waiter was let in") } catch is CancellationError {}
        XCTAssertEqual(gate.load.waiting, 3, "the cancelled waiter left the queue")
        gate.leave()
        for t in [greedy, modest, early] { try await t.value }
        XCTAssertEqual(order.withLock { $0 }, ["modest", "early", "greedy"])
        XCTAssertEqual(gate.load.running, 0)
    }
}
