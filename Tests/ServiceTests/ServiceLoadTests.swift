import Foundation
import Hummingbird
import HummingbirdTesting
import Library
@testable import Service
import Structure
import XCTest

/// Requests that arrive together: a page of thumbnails (a browser asks for six at once) waits its
/// turn rather than failing; only a queue past its bound is refused.
final class ServiceLoadTests: XCTestCase {
    func testAGateLetsSlotsRunQueuesWaitersInOrderAndRefusesPastItsBound() async throws {
        let gate = WorkGate(slots: 2, waiting: 2)
        try await gate.enter()
        try await gate.enter()
        let order = OrderLog()
        let first = Task { try await gate.enter(); order.append(1) }
        while gate.load.waiting < 1 { await Task.yield() }
        let second = Task { try await gate.enter(); order.append(2) }
        while gate.load.waiting < 2 { await Task.yield() }
        do {
            try await gate.enter()
            XCTFail("a third waiter past a queue of two was let in")
        } catch is WorkGate.Full {}
        XCTAssertEqual(order.values, [], "waiters ran with every slot taken")
        gate.leave()
        try await first.value
        XCTAssertEqual(order.values, [1])
        gate.leave()
        try await second.value
        XCTAssertEqual(order.values, [1, 2])
        XCTAssertEqual(gate.load.running, 2)
        gate.leave()
        gate.leave()
        XCTAssertEqual(gate.load.running, 0)
    }

    func testAsManyPicturesAsTheRenderQueueHoldsAskedForAtOnceAreAllDrawn() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("molshot-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let db = scratch.appendingPathComponent("library.sqlite").path
        let lib = try MoleculeLibrary(path: db)
        let fixture = try ServiceSafetyTests.fixture("1orc.pdb")
        _ = try lib.importBytes(fixture, source: "1orc.pdb", name: "1orc", perception: try BondPerception.standard(), owner: nil, isPrivate: false)
        let service = try MolshotService(configuration: ServiceConfiguration(database: db))
        addTeardownBlock { service.close() }
        try await Application(router: service.router()).test(.router) { client in
            // Eight sizes (the default render queue): eight pictures, none from a cache, more than
            // `heavyWork` read at once.
            let statuses = try await withThrowingTaskGroup(of: (Int, HTTPResponse.Status, String).self) { group in
                for size in 100..<108 {
                    group.addTask {
                        let r = try await client.execute(uri: "/v1/molecules/1/image?size=\(size)", method: .get)
                        return (size, r.status, String(buffer: r.body).prefix(200).description)
                    }
                }
                return try await group.reduce(into: [(Int, HTTPResponse.Status, String)]()) { $0.append($1) }
            }
            XCTAssertEqual(statuses.count, 8)
            for (size, status, body) in statuses {
                XCTAssertEqual(status, .ok, "size \(size): \(body)")
            }
        }
    }
}

final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    func append(_ v: Int) { lock.lock(); list.append(v); lock.unlock() }
    var values: [Int] { lock.lock(); defer { lock.unlock() }; return list }
}
