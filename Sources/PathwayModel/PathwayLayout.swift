import Core

/// Places the nodes of a map that has no positions: a layered drawing, top to bottom, as pathway
/// browsers and Graphviz's `dot` draw metabolism. Currency metabolites (ATP, NAD(P)H, water, ...)
/// are not ranked: each of their edges gets a small copy of the metabolite next to its reaction,
/// so that they do not become hubs that tie the drawing into knots.
///
/// Steps: cycles broken two ways (fewest reversed edges, and a depth-first search's back edges);
/// ranks three ways (longest path from the sources or from the sinks, then moved toward their
/// neighbours, and network simplex); edges that span several ranks get a bend point per rank; the
/// order within each rank by median sweeps with transposition from several starts; of all these
/// the drawing with the fewest crossings is kept; x by the median of each node's neighbours with
/// a minimum spacing, smoothed over a few sweeps.
public struct PathwayLayout: Sendable {
    /// Names (ids, labels or names, any case) of currency metabolites.
    public var currency: Set<String>
    public var rankSeparation = 110.0
    public var nodeSeparation = 40.0
    public var sweeps = 24

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

    func isCurrency(_ n: PathwayMap.Node) -> Bool {
        n.kind == .metabolite && [n.id, n.label, n.name].contains { !$0.isEmpty && currency.contains($0.lowercased()) }
    }

    /// The map with every node placed and every edge drawn through its bends.
    public func laidOut(_ input: PathwayMap) -> PathwayMap {
        var map = input
        // Currency metabolites: one small copy per edge, set beside its other end later.
        var copies: [(node: Int, partner: String)] = []
        let currencyIDs = Set(map.nodes.filter(isCurrency).map(\.id))
        var nodes = map.nodes.filter { !currencyIDs.contains($0.id) }
        let originals = Dictionary(map.nodes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var edges = map.edges
        for (k, e) in edges.enumerated() {
            for end in [e.from, e.to] {
                guard let id = end, currencyIDs.contains(id), var copy = originals[id] else { continue }
                let other = (end == e.from ? e.to : e.from) ?? id
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
        let ranked = nodes.indices.filter { !copyIndices.contains($0) }
        // Directed edges between ranked nodes, cycles broken.
        var pairs: [(Int, Int)] = []
        for e in edges {
            guard let f = e.from.flatMap({ index[$0] }), let t = e.to.flatMap({ index[$0] }), f != t,
                  !copyIndices.contains(f), !copyIndices.contains(t) else { continue }
            pairs.append((f, t))
        }
        // Cycles broken two ways (fewest reversed edges; a depth-first walk's back edges, as dot
        // does) and ranks counted from the sources or from the sinks: each is ordered, and the
        // drawing with the fewest crossings is kept (the shorter edges among equals).
        // Large graphs (past 400 edges) get one way and fewer starts: the work grows with their
        // square, and a map that size is read by its regions anyway.
        let large = pairs.count > 400
        var best: (acyclic: [(Int, Int)], layers: [[Int]], links: [(Int, Int)], chains: [Int: [Int]], score: (Int, Int))?
        for breaking in 0..<(large ? 1 : 2) {
            let acyclic = breaking == 0 ? PathwayLayout.breakingCycles(pairs, nodes: ranked) : PathwayLayout.depthFirstAcyclic(pairs, nodes: ranked)
            for ranking in large ? [0] : [0, 1, 2] {
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
                    guard let simplex = PathwayLayout.networkSimplexRanks(acyclic, nodes: ranked, start: rank) else { continue }
                    rank = simplex
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
                let crossed = PathwayLayout.order(&layers, links: links, sweeps: large ? sweeps / 2 : sweeps, restarts: large ? 0 : 6)
                let score = (crossed, links.count)
                if best == nil || score < best!.score { best = (acyclic, layers, links, chains, score) }
            }
        }
        let (acyclic, layers, links, chains, _) = best!
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
    /// left (or a bound on the exchanges is reached). Nil where a check fails, so that the caller
    /// keeps its other rankings.
    static func networkSimplexRanks(_ pairs: [(Int, Int)], nodes: [Int], start: [Int: Int], maxExchanges: Int = 400) -> [Int: Int]? {
        var rank = start
        let edges = pairs.filter { $0.0 != $0.1 }
        guard !edges.isEmpty else { return rank }
        var incident: [Int: [Int]] = [:]  // node -> edge indices
        for (k, (f, t)) in edges.enumerated() {
            incident[f, default: []].append(k)
            incident[t, default: []].append(k)
        }
        func slack(_ k: Int) -> Int { rank[edges[k].1]! - rank[edges[k].0]! - 1 }
        guard edges.indices.allSatisfy({ slack($0) >= 0 }) else { return nil }
        var inTree = [Bool](repeating: false, count: edges.count)
        var seen = Set<Int>()
        // A feasible tight tree over each connected part.
        for root in nodes where !seen.contains(root) && incident[root] != nil {
            // The tree's nodes as a set, and in the order they joined it: walked in that order, so
            // that ties go the same way every run (a set's order changes with each process's hash seed).
            var tree: Set<Int> = [root], members = [root]
            // The part's nodes, to know when the tree spans it.
            var part: Set<Int> = [root], stack = [root]
            while let v = stack.popLast() {
                for k in incident[v] ?? [] {
                    let w = edges[k].0 == v ? edges[k].1 : edges[k].0
                    if part.insert(w).inserted { stack.append(w) }
                }
            }
            while tree.count < part.count {
                // Grow along tight edges.
                var grew = true
                while grew {
                    grew = false
                    for v in members {
                        for k in incident[v] ?? [] where !inTree[k] && slack(k) == 0 {
                            let w = edges[k].0 == v ? edges[k].1 : edges[k].0
                            if !tree.contains(w) {
                                tree.insert(w)
                                members.append(w)
                                inTree[k] = true
                                grew = true
                            }
                        }
                    }
                }
                guard tree.count < part.count else { break }
                // The incident edge with least slack; shift the tree to make it tight.
                var best: (k: Int, slack: Int)? = nil
                for v in members {
                    for k in incident[v] ?? [] {
                        let w = edges[k].0 == v ? edges[k].1 : edges[k].0
                        if !tree.contains(w), best == nil || slack(k) < best!.slack { best = (k, slack(k)) }
                    }
                }
                guard let b = best else { return nil }
                let delta = tree.contains(edges[b.k].0) ? b.slack : -b.slack
                for v in tree { rank[v]! += delta }
            }
            seen.formUnion(part)
        }
        // Tree adjacency and the side of each tree edge's cut.
        func component(without cut: Int, from v: Int) -> Set<Int> {
            var out: Set<Int> = [v], stack = [v]
            while let x = stack.popLast() {
                for k in incident[x] ?? [] where inTree[k] && k != cut {
                    let y = edges[k].0 == x ? edges[k].1 : edges[k].0
                    if out.insert(y).inserted { stack.append(y) }
                }
            }
            return out
        }
        for _ in 0..<maxExchanges {
            // A tree edge with a negative cut value: more edges cross its cut against it than with it.
            var leaving: (k: Int, tail: Set<Int>)? = nil
            for k in edges.indices where inTree[k] {
                let tail = component(without: k, from: edges[k].0)
                var cut = 0
                for j in edges.indices {
                    let a = tail.contains(edges[j].0), b = tail.contains(edges[j].1)
                    if a && !b { cut += 1 } else if !a && b { cut -= 1 }
                }
                if cut < 0 { leaving = (k, tail); break }
            }
            guard let (k, tail) = leaving else { break }
            // The non-tree edge from the head's side to the tail's with the least slack enters.
            var entering: Int? = nil
            for j in edges.indices where !inTree[j] && !tail.contains(edges[j].0) && tail.contains(edges[j].1) {
                if entering == nil || slack(j) < slack(entering!) { entering = j }
            }
            guard let j = entering else { break }
            let delta = slack(j)
            // The head's side moves down by the slack, which makes the entering edge tight.
            let part = component(without: k, from: edges[k].1)
            for v in part { rank[v]! += delta }
            inTree[k] = false
            inTree[j] = true
        }
        guard edges.indices.allSatisfy({ slack($0) >= 0 }) else { return nil }
        let lowest = rank.values.min() ?? 0
        for key in rank.keys { rank[key]! -= lowest }
        // Nodes without edges go to a rank of their own below the rest, out of the graph's way.
        let last = rank.values.max() ?? 0
        for v in nodes where incident[v] == nil { rank[v] = last + 1 }
        return rank
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

    /// Orders each layer to cross few edges, as Graphviz's `dot` does: from each start (the given
    /// order, depth-first walks from the top and from the bottom, so that connected nodes start
    /// together, and `restarts` shuffles), sweeps down and up sorting each layer by the median of
    /// its neighbours' places in the layer before (the barycenter breaking ties), each sweep
    /// followed by transposition (neighbours in a layer swapped wherever that crosses fewer
    /// edges), keeping the best order seen. Returns its crossings.
    @discardableResult
    static func order(_ layers: inout [[Int]], links: [(Int, Int)], sweeps: Int, restarts: Int = 6) -> Int {
        var up: [Int: [Int]] = [:], down: [Int: [Int]] = [:]
        for (a, b) in links {
            down[a, default: []].append(b)
            up[b, default: []].append(a)
        }
        var best = layers, bestCrossings = crossings(layers, down: down)
        // Starts: the given order, depth-first walks from the top and from the bottom, and a few
        // shuffles (a fixed seed: the same map is always laid out the same way).
        var starts = [layers, depthFirst(layers, up: up, down: down), depthFirst(layers.reversed(), up: down, down: up).reversed()]
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
        for start in starts where bestCrossings > 0 {
            var current = start
            transpose(&current, up: up, down: down)
            var c = crossings(current, down: down)
            if c < bestCrossings { (best, bestCrossings) = (current, c) }
            var stale = 0
            for sweep in 0..<sweeps where bestCrossings > 0 {
                let downward = sweep % 2 == 0
                let range: [Int] = downward ? Array(current.indices.dropFirst()) : Array(current.indices.dropLast().reversed())
                for r in range {
                    let fixed = current[downward ? r - 1 : r + 1]
                    let place = Dictionary(fixed.enumerated().map { ($0.element, Double($0.offset)) }, uniquingKeysWith: { a, _ in a })
                    let here = Dictionary(current[r].enumerated().map { ($0.element, Double($0.offset)) }, uniquingKeysWith: { a, _ in a })
                    var key: [Int: (Double, Double, Double)] = [:]
                    for v in current[r] {
                        let ps = ((downward ? up[v] : down[v]) ?? []).compactMap { place[$0] }.sorted()
                        if ps.isEmpty {
                            key[v] = (here[v]!, here[v]!, here[v]!)
                        } else {
                            let median = ps.count % 2 == 1 ? ps[ps.count / 2] : (ps[ps.count / 2 - 1] + ps[ps.count / 2]) / 2
                            key[v] = (median, ps.reduce(0, +) / Double(ps.count), here[v]!)
                        }
                    }
                    current[r].sort { key[$0]! < key[$1]! }
                }
                transpose(&current, up: up, down: down, equal: sweep % 2 == 1)
                c = crossings(current, down: down)
                if c < bestCrossings {
                    (best, bestCrossings) = (current, c)
                    stale = 0
                } else {
                    stale += 1
                    if stale >= 6 { break }
                }
            }
        }
        layers = best
        return bestCrossings
    }

    /// Each layer in the order a depth-first walk of the graph (edges either way) meets its nodes.
    static func depthFirst(_ layers: [[Int]], up: [Int: [Int]], down: [Int: [Int]]) -> [[Int]] {
        var layerOf: [Int: Int] = [:]
        for (r, layer) in layers.enumerated() { for v in layer { layerOf[v] = r } }
        var out = layers.map { _ in [Int]() }
        var seen = Set<Int>()
        for root in layers.joined() where !seen.contains(root) {
            var stack = [root]
            while let v = stack.popLast() {
                guard seen.insert(v).inserted, let r = layerOf[v] else { continue }
                out[r].append(v)
                let next = (down[v] ?? []) + (up[v] ?? [])
                for w in next.reversed() where !seen.contains(w) { stack.append(w) }
            }
        }
        return out
    }

    /// Swaps neighbours in each layer while that lowers the crossings with the layers above and below.
    /// With `equal`, the first pass also swaps neighbours whose order makes no difference (as dot
    /// does every other sweep), to leave a plateau the strict passes cannot.
    static func transpose(_ layers: inout [[Int]], up: [Int: [Int]], down: [Int: [Int]], equal: Bool = false) {
        var position: [Int: Int] = [:]
        for layer in layers { for (k, v) in layer.enumerated() { position[v] = k } }
        // Crossings between the edges of u and of v (u left of v) to one side.
        func crossed(_ u: Int, _ v: Int, _ side: [Int: [Int]]) -> Int {
            var n = 0
            for a in side[u] ?? [] { for b in side[v] ?? [] where position[a]! > position[b]! { n += 1 } }
            return n
        }
        for pass in 0..<8 {
            var improved = false
            for r in layers.indices where layers[r].count > 1 {
                for k in 0..<(layers[r].count - 1) {
                    let u = layers[r][k], v = layers[r][k + 1]
                    let now = crossed(u, v, up) + crossed(u, v, down), swapped = crossed(v, u, up) + crossed(v, u, down)
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

    /// Edge crossings between adjacent layers.
    static func crossings(_ layers: [[Int]], down: [Int: [Int]]) -> Int {
        var total = 0
        for r in layers.indices.dropLast() {
            let below = Dictionary(layers[r + 1].enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
            var ends: [Int] = []
            for v in layers[r] { ends += (down[v] ?? []).compactMap { below[$0] }.sorted() }
            // Inversions of the sequence of lower ends, counted with a Fenwick tree.
            var tree = [Int](repeating: 0, count: layers[r + 1].count + 1)
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
