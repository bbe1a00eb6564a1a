import Core
import Foundation
@testable import PathwayModel
@testable import Pathways
import XCTest

/// Graphs without positions are laid out in layers, crossings reduced, currency metabolites copied.
final class PathwayLayoutTests: XCTestCase {
    typealias S = PathwayTestSupport

    func testAGraphWithoutPositionsIsLaidOutInLayersWithCurrencyCopies() throws {
        let map = try PathwayFile.load(path: S.fixture("glycolysis-unplaced.json"))
        XCTAssertFalse(map.needsLayout)
        func y(_ id: String) throws -> Double { try XCTUnwrap(map.node(id)).center.y }
        // Down the pathway, layer by layer.
        let chain = ["glc", "HK", "g6p", "PGI", "f6p", "PFK", "f16bp", "ALD"]
        for (a, b) in zip(chain, chain.dropFirst()) { XCTAssertLessThan(try y(a), try y(b), "\(a) above \(b)") }
        // ATP and ADP: no hub, a small copy beside each reaction that uses them.
        XCTAssertNil(map.node("atp"))
        let copies = map.nodes.filter { $0.id.hasPrefix("atp#") || $0.id.hasPrefix("adp#") }
        XCTAssertEqual(copies.count, 4)
        for c in copies {
            let edge = try XCTUnwrap(map.edges.first { $0.from == c.id || $0.to == c.id })
            let partner = try XCTUnwrap(map.node(edge.from == c.id ? edge.to! : edge.from!))
            let d = c.center - partner.center
            XCTAssertLessThan((d * d).sum().squareRoot(), 100, "\(c.id) beside \(partner.id)")
        }
        // Nodes of a layer do not overlap.
        let ranked = map.nodes.filter { !$0.id.contains("#") }
        for (i, a) in ranked.enumerated() {
            for b in ranked[(i + 1)...] where abs(a.center.y - b.center.y) < 1 {
                XCTAssertGreaterThan(abs(a.center.x - b.center.x), (a.size.x + b.size.x) / 2, "\(a.id) and \(b.id)")
            }
        }
        // Edges start and end at their nodes.
        for e in map.edges {
            XCTAssertEqual(e.start, map.node(e.from!)!.center)
            XCTAssertEqual(e.segments.last?.end, map.node(e.to!)!.center)
        }
    }

    func testOrderingRemovesAvoidableCrossingsAndCyclesAreBroken() {
        // a0 -> b1 and a1 -> b0 cross as given; one sweep undoes it.
        var layers = [[0, 1], [2, 3]]
        let links = [(0, 3), (1, 2)]
        var down: [Int: [Int]] = [:]
        for (a, b) in links { down[a, default: []].append(b) }
        XCTAssertEqual(PathwayLayout.crossings(layers, down: down), 1)
        PathwayLayout.order(&layers, links: links, sweeps: 4)
        XCTAssertEqual(PathwayLayout.crossings(layers, down: down), 0)
        // A cycle 0 -> 1 -> 2 -> 0 is ranked after one edge turns round.
        let acyclic = PathwayLayout.breakingCycles([(0, 1), (1, 2), (2, 0)], nodes: [0, 1, 2])
        let ranks = PathwayLayout.longestPathRanks(acyclic, nodes: [0, 1, 2])
        XCTAssertEqual(Set(ranks.values), [0, 1, 2])
    }

    func testSomePositionsMissingIsAnError() {
        XCTAssertThrowsError(try S.map(#"{"nodes": [{"id": "a", "x": 1, "y": 2}, {"id": "b"}]}"#)) {
            XCTAssertEqual(($0 as? PathwayError)?.location, "nodes[1].x")
        }
    }

    /// Network simplex ranks: every edge at least a rank long, the total as short as it can be
    /// (a source that feeds only the end of a chain sits just above it, not at the top).
    func testNetworkSimplexShortensEdgesLongestPathLeavesLong() throws {
        // a -> b -> c -> d, a -> d, x -> d, and a lone node z.
        let pairs = [(0, 1), (1, 2), (2, 3), (0, 3), (4, 3)]
        let nodes = [0, 1, 2, 3, 4, 5]
        // Longest path from the sources, before any balancing: x at the top, three ranks above d.
        let start = [0: 0, 1: 1, 2: 2, 3: 3, 4: 0, 5: 0]
        let rank = try XCTUnwrap(PathwayLayout.networkSimplexRanks(pairs, nodes: nodes, start: start))
        for (f, t) in pairs { XCTAssertGreaterThanOrEqual(rank[t]! - rank[f]!, 1, "\(f) -> \(t)") }
        XCTAssertEqual(rank[3]! - rank[4]!, 1, "x just above d")
        XCTAssertEqual(pairs.map { rank[$0.1]! - rank[$0.0]! }.reduce(0, +), 7, "3 along the chain, 3 for a -> d, 1 for x -> d")
        XCTAssertEqual(rank[5], rank.values.max(), "a node without edges in a rank below the rest")
        XCTAssertEqual(rank.values.min(), 0)
    }
}
