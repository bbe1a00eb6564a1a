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

    /// A COBRA model without a layout (cobrapy's e_coli_core, BiGG ids with SBML's M_ prefix):
    /// currency metabolites found under `M_atp_c`, hubs (16 edges or more) copied whatever their
    /// name, and the biomass reaction's 23 metabolites each given a copy of it beside them instead
    /// of lines across the map. Drawn that way it crossed 386 times (dot 347 on that graph); now
    /// 34, and no more than dot's 63 on this graph (`bench/layout_quality.py`, Graphviz 2.43).
    func testHubsAndABiomassReactionDoNotTieTheMapTogether() throws {
        let map = try PathwayFile.load(path: S.root.appendingPathComponent("Tests/Fixtures/pathways-real/sbml_cobra_textbook.xml.gz").path)
        for hub in ["M_h_c", "M_h2o_c", "M_h_e", "M_atp_c", "M_nad_c"] { XCTAssertNil(map.node(hub), "\(hub) is copied, not ranked") }
        XCTAssertEqual(map.nodes.filter { $0.id.hasPrefix("M_h_c#") }.count, 35, "a proton beside each of its 35 reactions")
        XCTAssertNotNil(map.node("M_pyr_c"), "pyruvate (11 edges) stays one node")
        let biomass = map.nodes.filter { $0.id.hasPrefix("R_Biomass_Ecoli_core#") }
        XCTAssertGreaterThan(biomass.count, 10)
        for copy in biomass {
            let edge = try XCTUnwrap(map.edges.first { $0.from == copy.id || $0.to == copy.id })
            let partner = try XCTUnwrap(map.node(edge.from == copy.id ? edge.to! : edge.from!))
            XCTAssertEqual(partner.kind, .metabolite)
            XCTAssertLessThan((copy.center - partner.center).length, 120, "\(copy.id) beside \(partner.id)")
        }
        // Crossings of the drawn edges (segments of edges that share no node).
        var segments: [(a: SIMD2<Double>, b: SIMD2<Double>, ends: Set<String>)] = []
        for e in map.edges {
            let points = e.polyline(pieces: 1)
            for (a, b) in zip(points, points.dropFirst()) { segments.append((a, b, [e.from ?? "", e.to ?? ""])) }
        }
        func side(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Double { (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x) }
        var crossings = 0
        for i in segments.indices {
            for j in (i + 1)..<segments.count where segments[i].ends.isDisjoint(with: segments[j].ends) {
                let (a, b, _) = segments[i], (c, d, _) = segments[j]
                if side(a, b, c) * side(a, b, d) < 0 && side(c, d, a) * side(c, d, b) < 0 { crossings += 1 }
            }
        }
        XCTAssertLessThanOrEqual(crossings, 63, "dot's on the same graph; 386 with the biomass reaction and the hubs ranked")
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

    /// A graph past 3,000 edges (a genome-scale model's size) is ranked by network simplex too, not
    /// by longest paths alone: a metabolite and the reaction it alone feeds, joining the map deep
    /// down, sit just above where they join, not in the top rows with a long edge down (moving
    /// one node at a time cannot lift them: each holds the other). iML1515's hundreds of such
    /// sources made rows of 700 and 47,000 crossings; dot's 31,000.
    func testALargeGraphIsRankedWithShortEdges() throws {
        var nodes: [String] = [], edges: [String] = []
        for k in 0..<1600 {
            nodes.append(#"{"id": "m\#(k)"}"#)
            nodes.append(#"{"id": "r\#(k)", "kind": "reaction"}"#)
            edges.append(#"{"from": "m\#(k)", "to": "r\#(k)"}"#)
            edges.append(#"{"from": "r\#(k)", "to": "m\#(k + 1)"}"#)
        }
        nodes.append(#"{"id": "m1600"}"#)
        nodes.append(#"{"id": "side"}"#)
        nodes.append(#"{"id": "sideR", "kind": "reaction"}"#)
        edges.append(#"{"from": "side", "to": "sideR"}"#)
        edges.append(#"{"from": "sideR", "to": "m1000"}"#)
        let map = try S.map(#"{"nodes": [\#(nodes.joined(separator: ","))], "edges": [\#(edges.joined(separator: ","))]}"#)
        XCTAssertFalse(map.needsLayout)
        func y(_ id: String) throws -> Double { try XCTUnwrap(map.node(id)).center.y }
        let step = try y("r0") - y("m0")
        XCTAssertGreaterThan(step, 0)
        XCTAssertEqual(try y("m1000") - y("sideR"), step, accuracy: 0.5, "the side reaction a rank above where it joins")
        XCTAssertEqual(try y("sideR") - y("side"), step, accuracy: 0.5, "its metabolite a rank above it")
    }

    /// Nodes joined to nothing are packed with the drawing (each a piece of its own), not set
    /// in its top rank as one wide row: clear of the joined nodes and of each other, the whole compact.
    func testUnjoinedNodesArePackedBesideTheDrawing() throws {
        var map = PathwayMap()
        map.needsLayout = true
        for id in ["a", "b", "c"] {
            map.nodes.append(PathwayMap.Node(id: id, kind: .geneProduct, center: .zero, size: SIMD2(80, 40), shape: .roundRectangle, label: id))
        }
        map.edges = [PathwayMap.Edge(id: "ab", from: "a", to: "b", kind: .plain, start: .zero, segments: [.line(to: .zero)]),
                     PathwayMap.Edge(id: "bc", from: "b", to: "c", kind: .plain, start: .zero, segments: [.line(to: .zero)])]
        for k in 0..<40 {
            map.nodes.append(PathwayMap.Node(id: "lone\(k)", kind: .geneProduct, center: .zero, size: SIMD2(80, 40), shape: .roundRectangle))
        }
        let laid = PathwayLayout().laidOut(map)
        let joinedBottom = ["a", "b", "c"].map { laid.node($0)!.frame.max.y }.max()!
        let lone = laid.nodes.filter { $0.id.hasPrefix("lone") }
        let joined = ["a", "b", "c"].map { laid.node($0)! }
        for n in lone {
            for j in joined {
                let d = n.center - j.center
                XCTAssertTrue(Swift.abs(d.x) >= 80 || Swift.abs(d.y) >= 40, "\(n.id) overlaps \(j.id)")
            }
        }
        _ = joinedBottom
        let size = laid.bounds.max - laid.bounds.min
        XCTAssertLessThanOrEqual(size.x, 1400, "in a block, not one row of 40 (4,800)")
        XCTAssertLessThanOrEqual(max(size.x, size.y) / min(size.x, size.y), 3)
        for (i, p) in lone.enumerated() {
            for q in lone[(i + 1)...] {
                let d = p.center - q.center
                XCTAssertTrue(Swift.abs(d.x) >= 80 || Swift.abs(d.y) >= 40, "\(p.id) and \(q.id) overlap")
            }
        }
    }

    /// Each connected part is ordered on its own and the parts set side by side: two parts given
    /// interleaved come apart, with no crossing between them.
    /// Pieces packed in a strip: none overlaps another, and one large piece with 60 small ones
    /// fills a box at most 1.35 times their summed areas (side by side in the top ranks they took 4).
    func testPiecesArePackedWithoutOverlapsAndWithLittleRoomLeft() {
        var sizes = [SIMD2<Double>(1200, 900)]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<60 { sizes.append(SIMD2(Double.random(in: 60...400, using: &generator), Double.random(in: 40...300, using: &generator))) }
        let at = PathwayLayout.packed(sizes)
        XCTAssertEqual(at.count, sizes.count)
        for i in sizes.indices {
            XCTAssertGreaterThanOrEqual(at[i].x, 0)
            XCTAssertGreaterThanOrEqual(at[i].y, 0)
            for j in sizes.indices where j > i {
                let apart = at[i].x + sizes[i].x <= at[j].x + 1e-6 || at[j].x + sizes[j].x <= at[i].x + 1e-6
                    || at[i].y + sizes[i].y <= at[j].y + 1e-6 || at[j].y + sizes[j].y <= at[i].y + 1e-6
                XCTAssertTrue(apart, "\(i) and \(j) overlap")
            }
        }
        let right = zip(at, sizes).map { $0.x + $1.x }.max()!, bottom = zip(at, sizes).map { $0.y + $1.y }.max()!
        let filled = sizes.reduce(0.0) { $0 + $1.x * $1.y }
        XCTAssertLessThanOrEqual(right * bottom, 1.35 * filled)
        XCTAssertLessThanOrEqual(max(right, bottom) / min(right, bottom), 3)
        XCTAssertEqual(PathwayLayout.packed([SIMD2(5, 5)]), [.zero])
    }

    /// A real model's pieces packed: COBRApy's textbook model (e_coli_core) laid out anew has no
    /// two nodes over one another, and its box is no more than 3:1.
    func testARealModelsPiecesArePackedWithoutOverlaps() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pathways-real/sbml_cobra_textbook.xml.gz").path
        let map = try PathwayFile.load(path: path, relayout: true)
        let boxes = map.nodes.filter { $0.size.x > 0 }.map { $0.frame }
        var overlaps = 0
        for (i, a) in boxes.enumerated() {
            for b in boxes[(i + 1)...] where a.min.x < b.max.x - 0.5 && b.min.x < a.max.x - 0.5 && a.min.y < b.max.y - 0.5 && b.min.y < a.max.y - 0.5 {
                overlaps += 1
            }
        }
        XCTAssertEqual(overlaps, 0)
        let size = map.bounds.max - map.bounds.min
        XCTAssertLessThanOrEqual(max(size.x, size.y) / min(size.x, size.y), 3)
    }

    func testConnectedPartsAreOrderedApart() {
        // Part one: 0 -> 3, 0 -> 5, 2 -> 3; part two: 1 -> 4, 1 -> 6, 7 -> 6 (interleaved as given).
        var layers = [[0, 1, 2, 7], [3, 4, 5, 6]]
        let links = [(0, 3), (0, 5), (2, 3), (1, 4), (1, 6), (7, 6)]
        var down: [Int: [Int]] = [:]
        for (a, b) in links { down[a, default: []].append(b) }
        XCTAssertGreaterThan(PathwayLayout.crossings(layers, down: down), 0)
        XCTAssertEqual(PathwayLayout.order(&layers, links: links, sweeps: 8), 0)
        XCTAssertEqual(PathwayLayout.crossings(layers, down: down), 0)
        for layer in layers {
            let part = layer.map { [0, 2, 3, 5].contains($0) ? 1 : 2 }
            XCTAssertEqual(part, part.sorted(), "one part after the other in \(layer)")
        }
    }

    /// Network simplex on random graphs of several parts: every edge at least a rank long, the
    /// total no longer than the longest path's, and no single node can move a rank up or down
    /// and shorten it (what an optimum must hold).
    func testNetworkSimplexOnRandomGraphs() throws {
        var seed: UInt64 = 12345
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<20 {
            let n = 20 + next(40)
            var pairs: [(Int, Int)] = []
            for _ in 0..<(n + next(2 * n)) {
                let a = next(n), b = next(n)
                if a < b { pairs.append((a, b)) }  // a DAG: low numbers to high
            }
            let nodes = Array(0..<n)
            let start = PathwayLayout.longestPathRanks(pairs, nodes: nodes)
            let rank = try XCTUnwrap(PathwayLayout.networkSimplexRanks(pairs, nodes: nodes, start: start, maxExchanges: 10_000))
            func total(_ r: [Int: Int]) -> Int { pairs.map { r[$0.1]! - r[$0.0]! }.reduce(0, +) }
            for (f, t) in pairs { XCTAssertGreaterThanOrEqual(rank[t]! - rank[f]!, 1) }
            XCTAssertLessThanOrEqual(total(rank), total(start))
            for v in nodes {
                for step in [-1, 1] {
                    var moved = rank
                    moved[v]! += step
                    guard pairs.allSatisfy({ moved[$0.1]! - moved[$0.0]! >= 1 }) else { continue }
                    XCTAssertGreaterThanOrEqual(total(moved), total(rank), "node \(v) moved \(step) shortens the edges")
                }
            }
        }
    }
}
