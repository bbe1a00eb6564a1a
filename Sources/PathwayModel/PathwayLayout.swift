import Core

/// Places the nodes of a map that has no positions: a layered drawing, top to bottom, as pathway
/// browsers and Graphviz's `dot` draw metabolism. Currency metabolites (ATP, NAD(P)H, water, ...)
/// are not ranked: each of their edges gets a small copy of the metabolite next to its reaction,
/// so that they do not become hubs that tie the drawing into knots.
///
/// Steps: cycles broken two ways (fewest reversed edges, and a depth-first search's back edges);
/// ranks three ways (longest path from the sources or from the sinks, then moved toward their
/// neighbours, and network simplex); edges that span several ranks get a bend point per rank; the
/// order within each rank by median sweeps with transposition from several starts, then sifting;
/// of all these the drawing with the fewest crossings whose edges are not much longer than the
/// shortest's is kept (a graph past 3,000 edges: network simplex and one cycle breaking only);
/// x by the median of each node's neighbours with a minimum spacing, smoothed over a few sweeps;
/// the disconnected pieces packed.
public struct PathwayLayout: Sendable {
    /// Names (ids, labels or names, any case) of currency metabolites.
    public var currency: Set<String>
    public var rankSeparation = 110.0
    public var nodeSeparation = 40.0
    public var sweeps = 24
    /// Work the ordering of one map may do, counted in edge pairs compared and steps taken (about
    /// two seconds on one core): the search stops there with the best order it has, so that a
    /// dense or hostile graph of a few thousand edges is laid out in bounded time. Real maps need
    /// less: the 924-node RB/E2F map 127 million, Recon1's 2,354-node carbohydrate map 28 million.
    public var orderingWork = 180_000_000
    /// A metabolite joined to this many edges or more is a hub: copied beside each of its
    /// reactions like a currency metabolite, whatever its name (a genome-scale model's protons and
    /// water under ids no list knows).
    public var hubDegree = 16
    /// A reaction with this many metabolites or more (a biomass reaction's twenty and more) is not
    /// ranked with them: each of its metabolites gets a small copy of it beside itself instead of
    /// a line across the map to it.
    public var hugeReaction = 12

    public static let standardCurrency: Set<String> = [
        "atp", "adp", "amp", "gtp", "gdp", "utp", "udp", "ctp", "cdp", "nad", "nad+", "nadh", "nadp", "nadp+", "nadph",
        "fad", "fadh2", "h2o", "water", "h", "h+", "proton", "co2", "carbon dioxide", "pi", "phosphate", "orthophosphate",
        "ppi", "diphosphate", "coa", "coenzyme a", "o2", "oxygen", "nh3", "nh4", "nh4+", "ammonia", "ammonium",
        "atp_c", "adp_c", "amp_c", "nad_c", "nadh_c", "nadp_c", "nadph_c", "h2o_c", "h_c", "co2_c", "pi_c", "ppi_c", "coa_c", "o2_c", "nh4_c",
    ]

    public init(currency: Set<String> = PathwayLayout.standardCurrency) {
        self.currency = Set(currency.map { $0.lowercased() })
    }

    /// Reads a currency list: names separated by commas or new lines (`#` starts a comment).
    public static func currency(from text: String) -> Set<String> {
        Set(text.split(whereSeparator: \.isNewline).flatMap { line in
            (line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").split(separator: ",")
        }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
    }

    /// Named in the currency list by id, label or name; an id also without SBML's `M_` prefix
    /// (BiGG's SBML writes `M_atp_c`).
    func isCurrency(_ n: PathwayMap.Node) -> Bool {
        let bare = n.id.hasPrefix("M_") ? String(n.id.dropFirst(2)) : n.id
        return n.kind == .metabolite && [n.id, bare, n.label, n.name].contains { !$0.isEmpty && currency.contains($0.lowercased()) }
    }

    /// The map with every node placed and every edge drawn through its bends.
    public func laidOut(_ input: PathwayMap) -> PathwayMap {
        var map = input
        // Currency metabolites and hubs: one small copy per edge, set beside its other end later.
        // Huge reactions keep their node, but each of their other edges ends at a copy of them
        // beside the metabolite.
        var copies: [(node: Int, partner: String)] = []
        var degree: [String: Int] = [:]
        for e in map.edges where e.from != e.to {
            if let f = e.from { degree[f, default: 0] += 1 }
            if let t = e.to { degree[t, default: 0] += 1 }
        }
        let currencyIDs = Set(map.nodes.filter { isCurrency($0) || ($0.kind == .metabolite && degree[$0.id, default: 0] >= hubDegree) }.map(\.id))
        let hugeIDs = Set(map.nodes.filter { $0.kind == .reaction && degree[$0.id, default: 0] >= hugeReaction }.map(\.id))
        var nodes = map.nodes.filter { !currencyIDs.contains($0.id) }
        let originals = Dictionary(map.nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var edges = map.edges
        for (k, e) in edges.enumerated() {
            for end in [e.from, e.to] {
                let far = (end == e.from ? e.to : e.from) ?? ""
                guard let id = end, currencyIDs.contains(id) || (hugeIDs.contains(id) && !far.isEmpty && !currencyIDs.contains(far)),
                      var copy = originals[id] else { continue }
                let other = far.isEmpty ? id : far
                copy.id = "\(id)#\(k)"
                copy.size = copy.size * 0.6
                copy.fontSize = copy.fontSize * 0.8
                copies.append((nodes.count, other))
                nodes.append(copy)
                if end == e.from { edges[k].from = copy.id } else { edges[k].to = copy.id }
            }
        }
        let index = Dictionary(nodes.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let copyIndices = Set(copies.map(\.node))
        // Directed edges between ranked nodes, cycles broken.
        var pairs: [(Int, Int)] = []
        for e in edges {
            guard let f = e.from.flatMap({ index[$0] }), let t = e.to.flatMap({ index[$0] }), f != t,
                  !copyIndices.contains(f), !copyIndices.contains(t) else { continue }
            pairs.append((f, t))
        }
        // Nodes joined to nothing (a diagram's unused aliases) are not ranked: they would widen
        // the top rank by hundreds; they are packed with the other pieces.
        var joined = Set(pairs.flatMap { [$0.0, $0.1] })
        for c in copies { if let p = index[c.partner] { joined.insert(p) } }
        let ranked = nodes.indices.filter { !copyIndices.contains($0) && joined.contains($0) }
        let isolated = nodes.indices.filter { !copyIndices.contains($0) && !joined.contains($0) }
        // Cycles broken two ways (fewest reversed edges; a depth-first walk's back edges, as dot
        // does) and ranks three ways: each is ordered, and one drawing kept (below).
        // Graphs past 3,000 edges get one way (network simplex, the ranking with the shortest
        // edges: longest paths from the sources set a genome-scale model's hundreds of source
        // metabolites in one row, each edge to them many ranks long) and no shuffled starts: the
        // work grows faster than their size, and a map that size is read by its regions anyway.
        let large = pairs.count > 3000
        var candidates: [(acyclic: [(Int, Int)], layers: [[Int]], links: [(Int, Int)], chains: [Int: [Int]], score: (Int, Int))] = []
        for breaking in 0..<(large ? 1 : 2) {
            let acyclic = breaking == 0 ? PathwayLayout.breakingCycles(pairs, nodes: ranked) : PathwayLayout.depthFirstAcyclic(pairs, nodes: ranked)
            for ranking in large ? [2] : [0, 1, 2] {
                var rank: [Int: Int]
                if ranking == 1 {
                    let reversed = PathwayLayout.longestPathRanks(acyclic.map { ($0.1, $0.0) }, nodes: ranked)
                    let top = reversed.values.max() ?? 0
                    rank = reversed.mapValues { top - $0 }
                } else {
                    rank = PathwayLayout.longestPathRanks(acyclic, nodes: ranked)
                }
                if ranking == 2 {
                    // The shortest edges in total, as dot ranks (network simplex); skipped if it fails.
                    // On a large graph, the longest paths' ranks where it fails (no other is tried).
                    if let simplex = PathwayLayout.networkSimplexRanks(acyclic, nodes: ranked, start: rank, maxExchanges: large ? 20_000 : 400) {
                        rank = simplex
                    } else if !large {
                        continue
                    }
                }
                // Layers with bend points ("dummies", index >= nodes.count) on long edges.
                var layers: [[Int]] = Array(repeating: [], count: (rank.values.max() ?? 0) + 1)
                for n in ranked { layers[rank[n]!].append(n) }
                var next = nodes.count
                var chains: [Int: [Int]] = [:]  // edge pair index -> the dummies along it
                var links: [(Int, Int)] = []    // between adjacent layers
                for (p, (f, t)) in acyclic.enumerated() {
                    let rf = rank[f]!, rt = rank[t]!
                    var previous = f
                    var chain: [Int] = []
                    if rt > rf + 1 {
                        for r in (rf + 1)..<rt {
                            layers[r].append(next)
                            chain.append(next)
                            links.append((previous, next))
                            previous = next
                            next += 1
                        }
                    }
                    links.append((previous, t))
                    chains[p] = chain
                }
                let crossed = PathwayLayout.order(&layers, links: links, sweeps: sweeps, restarts: large ? 0 : links.count < 1500 ? 30 : 6,
                                                  work: orderingWork / (large ? 1 : 6))
                trace("pathway layout: breaking \(breaking), ranking \(ranking): \(crossed) crossings, \(links.count) links")
                candidates.append((acyclic, layers, links, chains, (crossed, links.count)))
            }
        }
        // The fewest crossings among the drawings whose edges are not much longer than the
        // shortest's (links count the layers edges span): a crossing saved is not worth edges
        // 60% longer across the whole map. The shorter among equals.
        let shortest = candidates.map(\.score.1).min()!
        let (acyclic, layers, links, chains, _) = candidates.filter { 5 * $0.score.1 <= 8 * shortest }.min { $0.score < $1.score }!
        // Sizes: dummies are thin.
        // A node with currency copies is as wide as it and its copies on both sides, so that the
        // copies sit at its height in room no other edge passes through.
        var copyCount: [Int: Int] = [:]
        for c in copies { if let p = index[c.partner] { copyCount[p, default: 0] += 1 } }
        let copyStep = 30.0
        func copyReach(_ v: Int) -> Double {
            let n = copyCount[v] ?? 0
            return n == 0 ? 0 : 14 + Double((n + 1) / 2) * copyStep
        }
        func width(_ v: Int) -> Double { v < nodes.count ? max(nodes[v].size.x, 10) + 2 * copyReach(v) : 4 }
        let x = PathwayLayout.coordinates(layers, links: links, width: width, separation: nodeSeparation)
        var position: [Int: SIMD2<Double>] = [:]
        for (r, layer) in layers.enumerated() {
            for v in layer { position[v] = SIMD2(x[v]!, Double(r) * rankSeparation) }
        }
        for n in ranked where position[n] == nil { position[n] = .zero }
        // The unjoined nodes are pieces of their own: packing (below) places them.
        for n in isolated { position[n] = .zero }
        // Currency copies beside their partner at its height, alternating sides, outwards.
        var besides: [String: Int] = [:]
        for c in copies {
            let partner = index[c.partner].flatMap { position[$0] } ?? .zero
            let k = besides[c.partner, default: 0]
            besides[c.partner] = k + 1
            let side = k % 2 == 0 ? 1.0 : -1.0
            let half = index[c.partner].map { max(nodes[$0].size.x, 10) / 2 } ?? 10
            position[c.node] = partner + SIMD2(side * (half + 14 + (Double(k / 2) + 0.5) * copyStep), 0)
        }
        // The disconnected pieces packed (as Graphviz's pack does): each piece keeps its drawing,
        // the pieces are set in a strip, tallest first, each as high as it fits.
        var group = Array(0..<max(nodes.count, (position.keys.max() ?? 0) + 1))
        func root(_ v: Int) -> Int {
            var v = v
            while group[v] != v { group[v] = group[group[v]]; v = group[v] }
            return v
        }
        func join(_ a: Int, _ b: Int) { let (ra, rb) = (root(a), root(b)); if ra != rb { group[ra] = rb } }
        for (a, b) in links { join(a, b) }
        for c in copies { if let p = index[c.partner] { join(c.node, p) } }
        var boxes: [Int: (lo: SIMD2<Double>, hi: SIMD2<Double>)] = [:]
        for (v, p) in position {
            var half = SIMD2<Double>(2, 2), below = 0.0
            if v < nodes.count {
                half = pointwiseMax(nodes[v].size, SIMD2(10, 10)) / 2
                if nodes[v].kind == .metabolite { below = nodes[v].fontSize * 1.6 }
            }
            let r = root(v)
            let lo = p - half, hi = p + half + SIMD2(0, below)
            boxes[r] = boxes[r].map { (pointwiseMin($0.lo, lo), pointwiseMax($0.hi, hi)) } ?? (lo, hi)
        }
        if boxes.count > 1 {
            // In a fixed order (a dictionary's differs from process to process): the same layout every run.
            let pieces = boxes.map { (root: $0.key, lo: $0.value.lo, size: $0.value.hi - $0.value.lo) }.sorted { $0.root < $1.root }
            let gap = SIMD2(nodeSeparation, rankSeparation / 2)
            let at = PathwayLayout.packed(pieces.map { $0.size + gap })
            var shift: [Int: SIMD2<Double>] = [:]
            for (k, piece) in pieces.enumerated() { shift[piece.root] = at[k] - piece.lo }
            for (v, p) in position { position[v] = p + (shift[root(v)] ?? .zero) }
        }
        for (i, _) in nodes.enumerated() {
            nodes[i].center = position[i] ?? .zero
            nodes[i].labelPosition = nil
            nodes[i].labelFromStart = false
        }
        // Metabolite labels go below their circle.
        for i in nodes.indices where nodes[i].kind == .metabolite && nodes[i].shape == .ellipse {
            nodes[i].labelPosition = nodes[i].center + SIMD2(0, nodes[i].size.y / 2 + nodes[i].fontSize * 0.8)
        }
        // Edges through their bends.
        var bends: [Int: [Int: [Int]]] = [:]  // from -> to -> dummies
        for (p, (f, t)) in acyclic.enumerated() { bends[f, default: [:]][t] = chains[p] ?? [] }
        for k in edges.indices {
            guard let f = edges[k].from.flatMap({ index[$0] }), let t = edges[k].to.flatMap({ index[$0] }) else { continue }
            var through = (bends[f]?[t] ?? []).map { position[$0]! }
            if through.isEmpty, let back = bends[t]?[f] { through = back.reversed().map { position[$0]! } }
            edges[k].start = position[f]!
            edges[k].segments = (through + [position[t]!]).map { .line(to: $0) }
        }
        map.nodes = nodes
        map.edges = edges
        map.canvas = nil
        map.needsLayout = false
        return map
    }

    // MARK: Steps

    /// Places for boxes of `sizes` (their top left corners), packed in a strip by the skyline
    /// bottom-left rule: tallest first, each where its top is highest, then leftmost. Strips of
    /// several widths are tried, from the widest box's to all side by side, and the one whose
    /// bounding box is least kept (its aspect held under 3:1 where the boxes allow).
    static func packed(_ sizes: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard sizes.count > 1 else { return sizes.map { _ in .zero } }
        let order = sizes.indices.sorted { (sizes[$0].y, sizes[$0].x, -$0) > (sizes[$1].y, sizes[$1].x, -$1) }
        let widest = sizes.map(\.x).max()!, total = sizes.map(\.x).reduce(0, +)
        let area = sizes.reduce(0.0) { $0 + $1.x * $1.y }
        var best: (score: Double, at: [SIMD2<Double>])? = nil
        var widths = [widest, total]
        for f in [0.6, 0.8, 1.0, 1.25, 1.6, 2.0, 2.5] { widths.append(max(widest, (area * f).squareRoot())) }
        for w in Set(widths).sorted() where w <= total {
            // The skyline: segments (x, width, top) from left to right.
            var line: [(x: Double, w: Double, y: Double)] = [(0, w, 0)]
            var at = Array(repeating: SIMD2<Double>(0, 0), count: sizes.count)
            for k in order {
                let size = sizes[k]
                var pick: (y: Double, x: Double)? = nil
                for i in line.indices where line[i].x + size.x <= w + 1e-9 {
                    var top = 0.0, j = i, reach = line[i].x
                    while j < line.count && reach < line[i].x + size.x - 1e-9 {
                        top = max(top, line[j].y)
                        reach = line[j].x + line[j].w
                        j += 1
                    }
                    if pick == nil || (top, line[i].x) < (pick!.y, pick!.x) { pick = (top, line[i].x) }
                }
                let (y, x) = pick ?? (line.map(\.y).max() ?? 0, 0)
                at[k] = SIMD2(x, y)
                // The skyline under the box raised to its bottom edge.
                var next: [(x: Double, w: Double, y: Double)] = []
                for s in line {
                    let a = s.x, b = s.x + s.w
                    if b <= x || a >= x + size.x { next.append(s); continue }
                    if a < x { next.append((a, x - a, s.y)) }
                    if b > x + size.x { next.append((x + size.x, b - x - size.x, s.y)) }
                }
                next.append((x, size.x, y + size.y))
                next.sort { $0.x < $1.x }
                line = next
            }
            let right = zip(at, sizes).map { $0.x + $1.x }.max()!, bottom = zip(at, sizes).map { $0.y + $1.y }.max()!
            let aspect = max(right, bottom) / max(min(right, bottom), 1)
            let score = right * bottom * max(1, aspect / 3)
            if best == nil || score < best!.score { best = (score, at) }
        }
        return best?.at ?? sizes.map { _ in .zero }
    }

    /// The edges with those that close a cycle reversed: nodes are put in a line by the greedy
    /// heuristic of Eades, Lin and Smyth (sinks to the end, sources to the front, else the node
    /// with the most outgoing less incoming edges), and edges that point back along it turn round.
    static func breakingCycles(_ pairs: [(Int, Int)], nodes: [Int]) -> [(Int, Int)] {
        var outs: [Int: [Int]] = [:], ins: [Int: [Int]] = [:]
        for (f, t) in pairs where f != t {
            outs[f, default: []].append(t)
            ins[t, default: []].append(f)
        }
        var outDegree: [Int: Int] = [:], inDegree: [Int: Int] = [:]
        for n in nodes {
            outDegree[n] = outs[n]?.count ?? 0
            inDegree[n] = ins[n]?.count ?? 0
        }
        var left = Set(nodes)
        var front: [Int] = [], back: [Int] = []
        func remove(_ v: Int) {
            left.remove(v)
            for w in outs[v] ?? [] where left.contains(w) { inDegree[w]! -= 1 }
            for w in ins[v] ?? [] where left.contains(w) { outDegree[w]! -= 1 }
        }
        let ordered = nodes  // a stable order for ties
        while !left.isEmpty {
            var changed = true
            while changed {
                changed = false
                for v in ordered where left.contains(v) && outDegree[v]! == 0 {
                    back.append(v)
                    remove(v)
                    changed = true
                }
                for v in ordered where left.contains(v) && inDegree[v]! == 0 {
                    front.append(v)
                    remove(v)
                    changed = true
                }
            }
            guard let v = ordered.filter({ left.contains($0) }).max(by: { outDegree[$0]! - inDegree[$0]! < outDegree[$1]! - inDegree[$1]! }) else { break }
            front.append(v)
            remove(v)
        }
        let position = Dictionary((front + back.reversed()).enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
        return pairs.map { (f, t) in position[f]! > position[t]! ? (t, f) : (f, t) }
    }

    /// The edges with the back edges of a depth-first walk (from the nodes in their order) reversed.
    static func depthFirstAcyclic(_ pairs: [(Int, Int)], nodes: [Int]) -> [(Int, Int)] {
        var outs: [Int: [Int]] = [:]
        for (f, t) in pairs where f != t { outs[f, default: []].append(t) }
        var state: [Int: Int] = [:]  // 1 on the walk's stack, 2 done
        var back = Set<[Int]>()
        for root in nodes where state[root] == nil {
            var stack: [(Int, Int)] = [(root, 0)]
            state[root] = 1
            while let (v, i) = stack.last {
                let next = outs[v] ?? []
                if i < next.count {
                    stack[stack.count - 1].1 += 1
                    let w = next[i]
                    switch state[w] {
                    case nil:
                        state[w] = 1
                        stack.append((w, 0))
                    case 1: back.insert([v, w])
                    default: break
                    }
                } else {
                    state[v] = 2
                    stack.removeLast()
                }
            }
        }
        return pairs.map { back.contains([$0.0, $0.1]) ? ($0.1, $0.0) : $0 }
    }

    /// Ranks with the least total edge length (each edge at least one rank long) by the network
    /// simplex method of Gansner, Koutsofios, North and Vo (1993), from a feasible `start`: a tree
    /// of tight edges spanning each connected part, then tree edges with a negative cut value
    /// exchanged for the slackest-but-least non-tree edge across the same cut until none is
    /// left (or a bound on the exchanges is reached). Each round roots the tree, numbers it in
    /// depth-first order (a node is below another when its number lies in the other's span) and
    /// gets every cut value at once by walking each edge's tree path, so that a round costs the
    /// edges times their paths' length, not the nodes times the edges. Nil where a check fails,
    /// or where the tight tree alone takes more than `work` steps, so that the caller keeps its
    /// other rankings; the exchanges stop there too, with the ranks they have reached (feasible
    /// after every exchange). About a second of work: iML1515's 9,000 edges take a third of it.
    static func networkSimplexRanks(_ pairs: [(Int, Int)], nodes: [Int], start: [Int: Int], maxExchanges: Int = 400, work: Int = 400_000_000) -> [Int: Int]? {
        var steps = 0
        let given = pairs.filter { $0.0 != $0.1 }
        guard !given.isEmpty else { return start }
        // Dense indices for the nodes.
        var ids: [Int] = [], dense: [Int: Int] = [:]
        func index(_ v: Int) -> Int {
            if let k = dense[v] { return k }
            dense[v] = ids.count
            ids.append(v)
            return ids.count - 1
        }
        for v in nodes { _ = index(v) }
        let edges = given.map { (index($0.0), index($0.1)) }
        let n = ids.count
        var rank = ids.map { start[$0] ?? 0 }
        var incident = [[Int]](repeating: [], count: n)
        for (k, (f, t)) in edges.enumerated() {
            incident[f].append(k)
            incident[t].append(k)
        }
        func other(_ k: Int, _ v: Int) -> Int { edges[k].0 == v ? edges[k].1 : edges[k].0 }
        func slack(_ k: Int) -> Int { rank[edges[k].1] - rank[edges[k].0] - 1 }
        guard edges.indices.allSatisfy({ slack($0) >= 0 }) else { return nil }
        var inTree = [Bool](repeating: false, count: edges.count)
        var partOf = [Int](repeating: -1, count: n), inTight = [Bool](repeating: false, count: n)
        var parts: [[Int]] = []
        // A feasible tight tree over each connected part.
        for root in 0..<n where partOf[root] < 0 && !incident[root].isEmpty {
            var part = [root], head = 0
            partOf[root] = parts.count
            while head < part.count {
                let v = part[head]
                head += 1
                for k in incident[v] where partOf[other(k, v)] < 0 {
                    partOf[other(k, v)] = parts.count
                    part.append(other(k, v))
                }
            }
            var members = [root]
            inTight[root] = true
            while members.count < part.count {
                // Grow along tight edges (members in the order they joined: the same every run).
                var next = 0
                while next < members.count {
                    let v = members[next]
                    next += 1
                    for k in incident[v] where !inTree[k] && slack(k) == 0 && !inTight[other(k, v)] {
                        inTight[other(k, v)] = true
                        members.append(other(k, v))
                        inTree[k] = true
                    }
                }
                guard members.count < part.count else { break }
                // The incident edge with least slack; shift the tree to make it tight.
                var best: (k: Int, slack: Int)? = nil
                steps += members.count
                guard steps < work else { return nil }
                for v in members {
                    for k in incident[v] where !inTight[other(k, v)] {
                        if best == nil || slack(k) < best!.slack { best = (k, slack(k)) }
                    }
                }
                guard let b = best else { return nil }
                let delta = inTight[edges[b.k].0] ? b.slack : -b.slack
                for v in members { rank[v] += delta }
            }
            parts.append(part)
        }
        // The tree rooted in each part: parents, depths and depth-first spans.
        var parent = [Int](repeating: -1, count: n), parentEdge = [Int](repeating: -1, count: n)
        var depth = [Int](repeating: 0, count: n), enter = [Int](repeating: 0, count: n), leave = [Int](repeating: 0, count: n)
        func numberTree() {
            var clock = 0
            for part in parts {
                let r = part[0]
                parent[r] = -1
                parentEdge[r] = -1
                depth[r] = 0
                enter[r] = clock
                clock += 1
                var stack: [(v: Int, next: Int)] = [(r, 0)]
                while let (v, i) = stack.last {
                    if i < incident[v].count {
                        stack[stack.count - 1].next = i + 1
                        let k = incident[v][i]
                        guard inTree[k], k != parentEdge[v] else { continue }
                        let w = other(k, v)
                        parent[w] = v
                        parentEdge[w] = k
                        depth[w] = depth[v] + 1
                        enter[w] = clock
                        clock += 1
                        stack.append((w, 0))
                    } else {
                        leave[v] = clock
                        clock += 1
                        stack.removeLast()
                    }
                }
            }
        }
        func below(_ v: Int, _ c: Int) -> Bool { enter[c] <= enter[v] && leave[v] <= leave[c] }
        var cut = [Int](repeating: 0, count: edges.count)
        for _ in 0..<maxExchanges where steps < work {
            numberTree()
            steps += n + 2 * edges.count
            // Every tree edge's cut value: each edge adds to the cuts along its tree path, +1 where
            // it runs from the cut's tail side to its head side, -1 the other way.
            for k in cut.indices { cut[k] = 0 }
            for (u, v) in edges {
                var a = u, b = v
                while a != b {
                    guard a >= 0, b >= 0 else { return nil }
                    steps += 1
                    if depth[a] >= depth[b] {
                        let t = parentEdge[a]
                        cut[t] += edges[t].0 == a ? 1 : -1
                        a = parent[a]
                    } else {
                        let t = parentEdge[b]
                        cut[t] += edges[t].0 == b ? -1 : 1
                        b = parent[b]
                    }
                }
            }
            // A tree edge with a negative cut value: more edges cross its cut against it than with it.
            guard let k = edges.indices.first(where: { inTree[$0] && cut[$0] < 0 }) else { break }
            let child = parent[edges[k].0] == edges[k].1 && parentEdge[edges[k].0] == k ? edges[k].0 : edges[k].1
            let tailBelow = edges[k].0 == child
            func onTail(_ v: Int) -> Bool { below(v, child) == tailBelow && partOf[v] == partOf[child] }
            // The non-tree edge from the head's side to the tail's with the least slack enters.
            var entering: Int? = nil
            for j in edges.indices where !inTree[j] && !onTail(edges[j].0) && onTail(edges[j].1) && partOf[edges[j].0] == partOf[child] {
                if entering == nil || slack(j) < slack(entering!) { entering = j }
            }
            guard let j = entering else { break }
            let delta = slack(j)
            // The head's side moves down by the slack, which makes the entering edge tight.
            for v in parts[partOf[child]] where !onTail(v) { rank[v] += delta }
            inTree[k] = false
            inTree[j] = true
        }
        guard edges.indices.allSatisfy({ slack($0) >= 0 }) else { return nil }
        var out = start
        for (k, v) in ids.enumerated() { out[v] = rank[k] }
        let lowest = out.values.min() ?? 0
        for key in out.keys { out[key]! -= lowest }
        // Nodes without edges go to a rank of their own below the rest, out of the graph's way.
        let last = out.values.max() ?? 0
        for v in nodes where incident[dense[v]!].isEmpty { out[v] = last + 1 }
        return out
    }

    /// Rank 0 for sources, then the longest path from them.
    static func longestPathRanks(_ pairs: [(Int, Int)], nodes: [Int]) -> [Int: Int] {
        var incoming: [Int: Int] = [:], out: [Int: [Int]] = [:]
        for (f, t) in pairs {
            incoming[t, default: 0] += 1
            out[f, default: []].append(t)
        }
        var rank: [Int: Int] = [:]
        var queue = nodes.filter { incoming[$0, default: 0] == 0 }
        for n in queue { rank[n] = 0 }
        var head = 0
        while head < queue.count {
            let v = queue[head]
            head += 1
            for w in out[v] ?? [] {
                rank[w] = max(rank[w] ?? 0, rank[v]! + 1)
                incoming[w]! -= 1
                if incoming[w] == 0 { queue.append(w) }
            }
        }
        for n in nodes where rank[n] == nil { rank[n] = 0 }
        // Shorten edges: each node moves, within what its edges allow, to the median of the ranks
        // its neighbours would like it at (a few sweeps of what network simplex does exactly).
        var preds: [Int: [Int]] = [:]
        for (f, t) in pairs { preds[t, default: []].append(f) }
        let order = queue + nodes.filter { !Set(queue).contains($0) }
        for _ in 0..<6 {
            var moved = false
            for v in order {
                let ps = preds[v] ?? [], ss = out[v] ?? []
                guard !ps.isEmpty || !ss.isEmpty else { continue }
                let lo = ps.map { rank[$0]! + 1 }.max() ?? Int.min, hi = ss.map { rank[$0]! - 1 }.min() ?? Int.max
                guard lo <= hi else { continue }
                let wanted = (ps.map { rank[$0]! + 1 } + ss.map { rank[$0]! - 1 }).sorted()
                let r = min(max(wanted[(wanted.count - 1) / 2], lo), hi)
                if r != rank[v] {
                    rank[v] = r
                    moved = true
                }
            }
            if !moved { break }
        }
        let lowest = rank.values.min() ?? 0
        for k in rank.keys { rank[k]! -= lowest }
        return rank
    }

    /// Orders each layer to cross few edges, as Graphviz's `dot` does (`orderConnected`), within
    /// `work` pair comparisons in all. Connected parts are ordered each on its own and set side by
    /// side, left to right in the order they first appear (single nodes last), as dot does: no
    /// edge of one part crosses another's, and the search is spent where the crossings are.
    /// Returns the crossings.
    @discardableResult
    static func order(_ layers: inout [[Int]], links: [(Int, Int)], sweeps: Int, restarts: Int = 6, work: Int = .max) -> Int {
        let count = max(layers.joined().max() ?? -1, links.map { max($0.0, $0.1) }.max() ?? -1) + 1
        var root = Array(0..<count)
        func find(_ v: Int) -> Int {
            var v = v
            while root[v] != v {
                root[v] = root[root[v]]
                v = root[v]
            }
            return v
        }
        for (a, b) in links {
            let ra = find(a), rb = find(b)
            if ra != rb { root[max(ra, rb)] = min(ra, rb) }
        }
        var partOf = [Int](repeating: -1, count: count), sizes: [Int] = [], roots: [Int: Int] = [:]
        for v in layers.joined() {
            let r = find(v)
            if roots[r] == nil {
                roots[r] = sizes.count
                sizes.append(0)
            }
            partOf[v] = roots[r]!
            sizes[partOf[v]] += 1
        }
        guard sizes.count > 1 else { return orderConnected(&layers, count: count, links: links, sweeps: sweeps, restarts: restarts, work: work) }
        var parts = [[[Int]]](repeating: Array(repeating: [], count: layers.count), count: sizes.count)
        for (r, layer) in layers.enumerated() { for v in layer { parts[partOf[v]][r].append(v) } }
        var partLinks = [[(Int, Int)]](repeating: [], count: sizes.count)
        for (a, b) in links where partOf[a] >= 0 { partLinks[partOf[a]].append((a, b)) }
        var total = 0
        for p in parts.indices where sizes[p] > 1 {
            // Each part's share of the work by its links (at least a little, so that each is ordered).
            let share = work == .max ? .max : max(work / 100, Int(Double(work) * Double(partLinks[p].count) / Double(max(links.count, 1))))
            total += orderConnected(&parts[p], count: count, links: partLinks[p], sweeps: sweeps, restarts: restarts, work: share)
        }
        let sequence = parts.indices.filter { sizes[$0] > 1 } + parts.indices.filter { sizes[$0] <= 1 }
        for r in layers.indices { layers[r] = sequence.flatMap { parts[$0][r] } }
        return total
    }

    /// `order` for one connected part, whose node numbers are all below `count` (they are dense:
    /// nodes, then bend points, and arrays are indexed by them): from each start (the given
    /// order, depth-first walks from the top and from the bottom, so that connected nodes start
    /// together, and `restarts` shuffles), sweeps down and up sorting each layer by the median of
    /// its neighbours' places in the layer before (the barycenter breaking ties; nodes with no
    /// neighbour there stay put), each sweep followed by transposition (neighbours in a layer
    /// swapped wherever that crosses fewer edges), until six sweeps bring nothing better; then
    /// sifting of the best start's best, keeping the best order seen, until `work` runs out.
    /// Returns its crossings.
    static func orderConnected(_ layers: inout [[Int]], count: Int, links: [(Int, Int)], sweeps: Int, restarts: Int, work: Int) -> Int {
        var g = Graph(count: count, layers: layers, links: links)
        var best = layers, bestCrossings = g.crossings(layers)
        // Starts: the given order, depth-first walks from the top and from the bottom, and a few
        // shuffles (a fixed seed: the same map is always laid out the same way).
        var starts = [layers, g.depthFirst(layers, fromBottom: false), g.depthFirst(layers, fromBottom: true)]
        var seed: UInt64 = 0x9E3779B97F4A7C15
        for _ in 0..<restarts {
            starts.append(layers.map { layer in
                var l = layer
                for i in stride(from: l.count - 1, to: 0, by: -1) {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    l.swapAt(i, Int((seed >> 33) % UInt64(i + 1)))
                }
                return l
            })
        }
        var key = [(Double, Double, Double)](repeating: (0, 0, 0), count: count)
        for start in starts where bestCrossings > 0 && g.work < work {
            var current = start
            g.transpose(&current, limit: work)
            var c = g.crossings(current)
            var (mine, mineCrossings) = (current, c)
            var stale = 0
            for sweep in 0..<sweeps where mineCrossings > 0 && g.work < work {
                let downward = sweep % 2 == 0
                // `g.position` holds `current`'s places: `crossings` just set them.
                let range: [Int] = downward ? Array(current.indices.dropFirst()) : Array(current.indices.dropLast().reversed())
                for r in range {
                    // Nodes with no neighbour that way keep their places, as dot's do (a place in
                    // this layer is not on the scale of the layer before's: sorted among the
                    // others, a genome-scale model's many sources and sinks drifted to the ends of
                    // their rows and dragged their edges across; 47,000 crossings to 20,000 on
                    // iML1515); the others fill the remaining places in their medians' order.
                    var moving: [Int] = [], places: [Int] = []
                    for (place, v) in current[r].enumerated() {
                        var ps: [Double] = []
                        for k in downward ? g.upStart[v]..<g.upStart[v + 1] : g.downStart[v]..<g.downStart[v + 1] {
                            ps.append(Double(g.position[downward ? g.upList[k] : g.downList[k]]))
                        }
                        guard !ps.isEmpty else { continue }
                        ps.sort()
                        let median = ps.count % 2 == 1 ? ps[ps.count / 2] : (ps[ps.count / 2 - 1] + ps[ps.count / 2]) / 2
                        key[v] = (median, ps.reduce(0, +) / Double(ps.count), Double(g.position[v]))
                        moving.append(v)
                        places.append(place)
                    }
                    moving.sort { key[$0] < key[$1] }
                    for (i, k) in places.enumerated() { current[r][k] = moving[i] }
                    for (k, v) in current[r].enumerated() { g.position[v] = k }
                }
                g.transpose(&current, equal: sweep % 2 == 1, limit: work)
                c = g.crossings(current)
                if c < mineCrossings {
                    (mine, mineCrossings) = (current, c)
                    stale = 0
                } else {
                    stale += 1
                    if stale >= 6 { break }
                }
            }
            if mineCrossings < bestCrossings { (best, bestCrossings) = (mine, mineCrossings) }
        }
        // Then sifting of the best, while it helps.
        var current = best
        for _ in 0..<20 where bestCrossings > 0 && g.work < work {
            g.sift(&current, limit: work)
            g.transpose(&current, limit: work)
            let c = g.crossings(current)
            guard c < bestCrossings else { break }
            (best, bestCrossings) = (current, c)
        }
        layers = best
        trace("pathway layout: a part of \(links.count) links ordered, work \(g.work) of \(work)")
        return bestCrossings
    }

    /// The layered graph as arrays indexed by node number: each node's layer, its links to the
    /// layer below and above (in one flat list each, node v's from `start[v]` to `start[v + 1]`),
    /// and its place in its layer (kept up to date by the steps).
    struct Graph {
        var layer: [Int]
        var upStart: [Int], upList: [Int], downStart: [Int], downList: [Int]
        var position: [Int]
        /// Edge pairs compared so far, and steps taken: the measure of the ordering's work.
        var work = 0

        init(count: Int, layers: [[Int]], links: [(Int, Int)]) {
            var layer = [Int](repeating: -1, count: count)
            for (r, l) in layers.enumerated() { for v in l { layer[v] = r } }
            let kept = links.filter { $0.0 < count && $0.1 < count && layer[$0.0] >= 0 && layer[$0.1] == layer[$0.0] + 1 }
            var upStart = [Int](repeating: 0, count: count + 1), downStart = upStart
            for (a, b) in kept {
                downStart[a + 1] += 1
                upStart[b + 1] += 1
            }
            for v in 0..<count {
                downStart[v + 1] += downStart[v]
                upStart[v + 1] += upStart[v]
            }
            var upList = [Int](repeating: 0, count: kept.count), downList = upList
            var upNext = upStart, downNext = downStart
            for (a, b) in kept {
                downList[downNext[a]] = b
                downNext[a] += 1
                upList[upNext[b]] = a
                upNext[b] += 1
            }
            self.layer = layer
            self.upStart = upStart
            self.upList = upList
            self.downStart = downStart
            self.downList = downList
            position = [Int](repeating: 0, count: count)
        }

        func degree(_ v: Int) -> Int { upStart[v + 1] - upStart[v] + downStart[v + 1] - downStart[v] }

        /// Each layer in the order a depth-first walk of the graph (links either way) meets its
        /// nodes, from the top layer's first node (downward links first) or from the bottom's.
        func depthFirst(_ layers: [[Int]], fromBottom: Bool) -> [[Int]] {
            var out = layers.map { _ in [Int]() }
            var seen = [Bool](repeating: false, count: layer.count)
            var stack: [Int] = []
            for root in fromBottom ? Array(layers.reversed().joined()) : Array(layers.joined()) where !seen[root] {
                stack.append(root)
                while let v = stack.popLast() {
                    guard !seen[v] else { continue }
                    seen[v] = true
                    guard layer[v] >= 0 else { continue }
                    out[layer[v]].append(v)
                    let ups = (upStart[v]..<upStart[v + 1]).map { upList[$0] }, downs = (downStart[v]..<downStart[v + 1]).map { downList[$0] }
                    for w in (fromBottom ? ups + downs : downs + ups).reversed() where !seen[w] { stack.append(w) }
                }
            }
            return out
        }

        mutating func place(_ layers: [[Int]]) {
            for l in layers { for (k, v) in l.enumerated() { position[v] = k } }
        }

        /// Edge crossings between adjacent layers: the inversions of each layer's lower ends,
        /// counted with a Fenwick tree.
        mutating func crossings(_ layers: [[Int]]) -> Int {
            place(layers)
            var total = 0
            var ends: [Int] = [], tree: [Int] = []
            for r in layers.indices.dropLast() {
                ends.removeAll(keepingCapacity: true)
                for v in layers[r] {
                    let first = ends.count
                    for k in downStart[v]..<downStart[v + 1] { ends.append(position[downList[k]]) }
                    work += downStart[v + 1] - downStart[v] + 1
                    ends[first...].sort()
                }
                tree = [Int](repeating: 0, count: layers[r + 1].count + 1)
                for (k, e) in ends.enumerated() {
                    var i = e + 1, seen = 0
                    while i > 0 { seen += tree[i]; i -= i & -i }
                    total += k - seen
                    i = e + 1
                    while i < tree.count { tree[i] += 1; i += i & -i }
                }
            }
            return total
        }

        /// Crossings between the edges of u and of v above and below, with u left of v and right of it.
        mutating func crossings(_ u: Int, _ v: Int) -> (uv: Int, vu: Int) {
            var uv = 0, vu = 0
            let ups = upStart[v]..<upStart[v + 1], downs = downStart[v]..<downStart[v + 1]
            for i in upStart[u]..<upStart[u + 1] {
                let pa = position[upList[i]]
                for j in ups {
                    let pb = position[upList[j]]
                    if pa > pb { uv += 1 } else if pa < pb { vu += 1 }
                }
            }
            for i in downStart[u]..<downStart[u + 1] {
                let pa = position[downList[i]]
                for j in downs {
                    let pb = position[downList[j]]
                    if pa > pb { uv += 1 } else if pa < pb { vu += 1 }
                }
            }
            work += (upStart[u + 1] - upStart[u]) * ups.count + (downStart[u + 1] - downStart[u]) * downs.count + 4
            return (uv, vu)
        }

        /// Sifting (Matuszewski, Schönfeld and Molitor): each node of a layer, the most linked
        /// first, is taken out and put back where it crosses fewest edges with the layers above
        /// and below (its old place where that is as good), moving past one neighbour at a time.
        mutating func sift(_ layers: inout [[Int]], limit: Int = .max) {
            place(layers)
            for r in layers.indices where layers[r].count > 2 {
                let nodes = layers[r].sorted { (degree($0), $1) > (degree($1), $0) }
                for v in nodes where work < limit {
                    var l = layers[r]
                    let from = position[v]
                    l.remove(at: from)
                    // The cost of v at each place, relative to the far left.
                    var delta = 0, best = (0, 0), here = 0
                    for (k, u) in l.enumerated() {
                        let c = crossings(u, v)
                        delta += c.uv - c.vu
                        if k + 1 == from { here = delta }
                        if delta < best.1 { best = (k + 1, delta) }
                    }
                    let to = best.1 < here ? best.0 : from
                    l.insert(v, at: to)
                    layers[r] = l
                    for (k, w) in l.enumerated() { position[w] = k }
                }
            }
        }

        /// Swaps neighbours in each layer while that lowers the crossings with the layers above and
        /// below. With `equal`, the first pass also swaps neighbours whose order makes no difference
        /// (as dot does every other sweep), to leave a plateau the strict passes cannot.
        mutating func transpose(_ layers: inout [[Int]], equal: Bool = false, limit: Int = .max) {
            place(layers)
            for pass in 0..<8 where pass == 0 || work < limit {
                var improved = false
                for r in layers.indices where layers[r].count > 1 {
                    for k in 0..<(layers[r].count - 1) {
                        let u = layers[r][k], v = layers[r][k + 1]
                        let (now, swapped) = crossings(u, v)
                        if swapped < now || (equal && pass == 0 && swapped == now && now > 0) {
                            layers[r].swapAt(k, k + 1)
                            position[u] = k + 1
                            position[v] = k
                            improved = true
                        }
                    }
                }
                if !improved { break }
            }
        }
    }

    /// Edge crossings between adjacent layers.
    static func crossings(_ layers: [[Int]], down: [Int: [Int]]) -> Int {
        let count = max(layers.joined().max() ?? -1, down.flatMap { [$0.key] + $0.value }.max() ?? -1) + 1
        var g = Graph(count: count, layers: layers, links: down.sorted { $0.key < $1.key }.flatMap { a in a.value.map { (a.key, $0) } })
        return g.crossings(layers)
    }

    /// x of every node: each layer left to right with the spacing, then moved toward the median
    /// of its neighbours without overlapping, a few sweeps.
    static func coordinates(_ layers: [[Int]], links: [(Int, Int)], width: (Int) -> Double, separation: Double) -> [Int: Double] {
        var neighbours: [Int: [Int]] = [:]
        for (a, b) in links {
            neighbours[a, default: []].append(b)
            neighbours[b, default: []].append(a)
        }
        var x: [Int: Double] = [:]
        for layer in layers {
            var at = 0.0
            for v in layer {
                x[v] = at + width(v) / 2
                at += width(v) + separation
            }
        }
        for _ in 0..<8 {
            for layer in layers {
                let wanted = layer.map { v -> Double in
                    let ps = (neighbours[v] ?? []).compactMap { x[$0] }.sorted()
                    return ps.isEmpty ? x[v]! : ps[ps.count / 2] / 2 + ps[(ps.count - 1) / 2] / 2
                }
                // Left to right keeping the spacing, then right to left, and the mean of the two.
                var left = wanted, right = wanted
                for k in layer.indices.dropFirst() {
                    left[k] = max(left[k], left[k - 1] + (width(layer[k - 1]) + width(layer[k])) / 2 + separation)
                }
                for k in layer.indices.dropLast().reversed() {
                    right[k] = min(right[k], right[k + 1] - (width(layer[k + 1]) + width(layer[k])) / 2 - separation)
                }
                var merged = zip(left, right).map { ($0 + $1) / 2 }
                for k in layer.indices.dropFirst() {
                    merged[k] = max(merged[k], merged[k - 1] + (width(layer[k - 1]) + width(layer[k])) / 2 + separation)
                }
                for (k, v) in layer.enumerated() { x[v] = merged[k] }
            }
        }
        return x
    }
}
