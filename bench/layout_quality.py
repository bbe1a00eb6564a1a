#!/usr/bin/env python3
"""How readable Molshot's automatic layout is, beside Graphviz `dot` on the same graphs.

Each real map is read by molshot and laid out anew (`molshot pathway FILE --relayout -o OUT.json`:
the file's own positions left out, currency metabolites copied beside their reactions); the same
graph (the same nodes at the same sizes, the same edges, currency copies included) goes to
`dot -Tplain`. Both drawings are measured the same way, in the same units (map units = points):
- crossings: points where two edges that share no end cross (edges as drawn: molshot's polylines,
  dot's splines flattened, each from its tail's centre to its head's centre);
- length: the edges' total length (dot gets molshot's spacing: 40 between nodes, ranks about 110 apart);
- aspect: the longer side of the nodes' bounding box over the shorter;
- area: the nodes' bounding box (their sizes included) over dot's.
One RESULT line a graph (ratio = dot's crossings over molshot's: 1 or more is as few as dot's or
fewer), then the medians over the set. The large graphs (800 nodes and more: the RB/E2F
CellDesigner map, Recon1's carbohydrate map, e_coli_core) also print a line each with
`target=` saying whether crossings are at most dot's, the area at most 1.2 times dot's and, on
genome-scale models (2,500 nodes and more), the time at most a quarter of dot's. `--graphs FILE...` measures those files instead (BiGG's genome-scale
models: iAF692, iML1515, iMM1415)."""
import argparse, hashlib, json, os, shutil, statistics, subprocess, sys, tempfile, time


def cubic(p0, p1, p2, p3, pieces=8):
    out = []
    for k in range(1, pieces + 1):
        t = k / pieces
        u = 1 - t
        out.append((u * u * u * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t * t * t * p3[0],
                    u * u * u * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t * t * t * p3[1]))
    return out


def molshot_drawing(molshot, path, work):
    out = os.path.join(work, "m.json")
    started = time.perf_counter()
    subprocess.run([molshot, "pathway", path, "--relayout", "-o", out], check=True, stdout=subprocess.DEVNULL)
    molshot_drawing.seconds = time.perf_counter() - started
    m = json.load(open(out))
    nodes = {n["id"]: (n["x"], n["y"], n["width"], n["height"]) for n in m["nodes"]}
    edges = []
    for e in m["edges"]:
        if "from" not in e or "to" not in e or e["from"] == e["to"] or e["from"] not in nodes or e["to"] not in nodes:
            continue
        pts = [tuple(p) for p in e["points"]]
        a, b = nodes[e["from"]], nodes[e["to"]]
        edges.append((e["from"], e["to"], [(a[0], a[1])] + pts + [(b[0], b[1])]))
    return nodes, edges


def dot_drawing(dot, nodes, edges, work):
    names = {nid: f"n{k}" for k, nid in enumerate(nodes)}
    back = {v: k for k, v in names.items()}
    lines = ["digraph g {", "  graph [rankdir=TB, nodesep=0.55, ranksep=1.3];", '  node [shape=box, fixedsize=true, label=""];']
    for nid, (_, _, w, h) in nodes.items():
        lines.append(f"  {names[nid]} [width={max(w, 4) / 72:.3f}, height={max(h, 4) / 72:.3f}];")
    for f, t, _ in edges:
        lines.append(f"  {names[f]} -> {names[t]};")
    lines.append("}")
    src = os.path.join(work, "g.dot")
    text = "\n".join(lines)
    open(src, "w").write(text)
    # dot takes minutes to hours on a genome-scale model: with --dot-cache, its drawing of the
    # very same graph (same nodes, sizes and edges) and its time are kept and read back.
    cached = os.path.join(dot_drawing.cache, hashlib.sha256(text.encode()).hexdigest()) if dot_drawing.cache else None
    if cached and os.path.exists(cached + ".plain"):
        plain = open(cached + ".plain").read()
        dot_drawing.seconds = float(open(cached + ".seconds").read())
    else:
        started = time.perf_counter()
        plain = subprocess.run([dot, "-Tplain", src], check=True, capture_output=True, text=True).stdout
        dot_drawing.seconds = time.perf_counter() - started
        if cached:
            os.makedirs(dot_drawing.cache, exist_ok=True)
            open(cached + ".plain", "w").write(plain)
            open(cached + ".seconds", "w").write(f"{dot_drawing.seconds:.3f}")
    pos, drawn = {}, []
    for line in plain.splitlines():
        f = line.split()
        if f[0] == "node":
            pos[back[f[1]]] = (float(f[2]) * 72, float(f[3]) * 72, float(f[4]) * 72, float(f[5]) * 72)
        elif f[0] == "edge":
            n = int(f[3])
            ctrl = [(float(f[4 + 2 * i]) * 72, float(f[5 + 2 * i]) * 72) for i in range(n)]
            drawn.append((back[f[1]], back[f[2]], ctrl))
    out = []
    for a, b, ctrl in drawn:
        pts = [ctrl[0]]
        for i in range(0, len(ctrl) - 3, 3):
            pts += cubic(ctrl[i], ctrl[i + 1], ctrl[i + 2], ctrl[i + 3])
        pa, pb = pos[a], pos[b]
        out.append((a, b, [(pa[0], pa[1])] + pts + [(pb[0], pb[1])]))
    return pos, out


def crossings(edges):
    """Proper crossings between segments of edges that share no end, found through a grid."""
    segs = []
    for k, (a, b, pts) in enumerate(edges):
        for i in range(len(pts) - 1):
            if pts[i] != pts[i + 1]:
                segs.append((k, pts[i], pts[i + 1]))
    if not segs:
        return 0
    span = max(max(abs(p[0]), abs(p[1])) for _, p, q in segs for p in (p, q)) or 1
    cell = max(20.0, span / 200)
    grid = {}
    for s, (_, p, q) in enumerate(segs):
        for i in range(int(min(p[0], q[0]) // cell), int(max(p[0], q[0]) // cell) + 1):
            for j in range(int(min(p[1], q[1]) // cell), int(max(p[1], q[1]) // cell) + 1):
                grid.setdefault((i, j), []).append(s)

    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (v > 1e-9) - (v < -1e-9)

    seen, count = set(), 0
    for members in grid.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                s, t = members[x], members[y]
                ks, kt = segs[s][0], segs[t][0]
                if ks == kt or (s, t) in seen:
                    continue
                seen.add((s, t))
                ea, eb = edges[ks], edges[kt]
                if {ea[0], ea[1]} & {eb[0], eb[1]}:
                    continue
                p1, p2, p3, p4 = segs[s][1], segs[s][2], segs[t][1], segs[t][2]
                if orient(p1, p2, p3) * orient(p1, p2, p4) < 0 and orient(p3, p4, p1) * orient(p3, p4, p2) < 0:
                    count += 1
    return count


def length(edges):
    return sum(((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2) ** 0.5 for _, _, pts in edges for p, q in zip(pts, pts[1:]))


def aspect(nodes):
    xs = [x for x, _, _, _ in nodes.values()]
    ys = [y for _, y, _, _ in nodes.values()]
    w, h = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    return max(w, h) / min(w, h)


def area(nodes):
    x0 = min(x - w / 2 for x, _, w, _ in nodes.values())
    x1 = max(x + w / 2 for x, _, w, _ in nodes.values())
    y0 = min(y - h / 2 for _, y, _, h in nodes.values())
    y1 = max(y + h / 2 for _, y, _, h in nodes.values())
    return max(x1 - x0, 1) * max(y1 - y0, 1)


def measure(molshot, dot, graphs, label=print):
    rows = []
    work = tempfile.mkdtemp(prefix="molshot-bench-layout-")
    try:
        for path in graphs:
            name = os.path.basename(path).split(".")[0]
            nodes, edges = molshot_drawing(molshot, path, work)
            mine = (crossings(edges), length(edges), aspect(nodes))
            pos, dedges = dot_drawing(dot, nodes, edges, work)
            theirs = (crossings(dedges), length(dedges), aspect(pos))
            ratio = (theirs[0] + 1) / (mine[0] + 1)
            rows.append((mine, theirs))
            over = area(nodes) / area(pos)
            label(f"RESULT suite=pathway case=layout-crossings-{name} molshot={mine[0]} peer=graphviz-dot:{theirs[0]} "
                  f"ratio={ratio:.2f} nodes={len(nodes)} edges={len(edges)} length={mine[1]:.0f}/dot:{theirs[1]:.0f} "
                  f"aspect={mine[2]:.2f}/dot:{theirs[2]:.2f} area-over-dot={over:.2f}")
            if len(nodes) >= 800:
                # Time: molshot's whole run (read, lay out, write JSON) against dot's layout of the
                # graph it is given; on genome-scale models (2,500 nodes and more) the target is a
                # quarter of dot's time or less (under a second of dot's, process start decides).
                speed = dot_drawing.seconds / max(molshot_drawing.seconds, 1e-6)
                timed = len(nodes) >= 2500
                timing = ", time <= dot's / 4" if timed else ""
                met = "met" if mine[0] <= theirs[0] and over <= 1.2 and (speed >= 4 or not timed) else "missed"
                label(f"RESULT suite=pathway case=layout-large-{name} molshot={mine[0]} peer=graphviz-dot:{theirs[0]} ratio={ratio:.2f} "
                      f"nodes={len(nodes)} area-over-dot={over:.2f} seconds={molshot_drawing.seconds:.2f}/dot:{dot_drawing.seconds:.2f} "
                      f"speed={speed:.1f}x target={met} (crossings <= dot's, area <= 1.2x{timing})")
        if rows:
            mc = statistics.median(r[0][0] for r in rows)
            dc = statistics.median(r[1][0] for r in rows)
            ml = statistics.median(r[0][1] / max(r[1][1], 1) for r in rows)
            ma = statistics.median(r[0][2] for r in rows)
            da = statistics.median(r[1][2] for r in rows)
            label(f"RESULT suite=pathway case=layout-crossings-median molshot={mc:g} peer=graphviz-dot:{dc:g} ratio={(dc + 1) / (mc + 1):.2f} "
                  f"graphs={len(rows)} length-over-dot={ml:.2f} aspect={ma:.2f}/dot:{da:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def real_graphs(corpus, shared):
    """Real maps from other projects, laid out anew (their positions left out)."""
    wanted = [(os.path.join(shared, "pathways-real"), ["sbml_nolayout_enzymekinetics.xml", "kgml_hsa00020.xml", "kgml_map00260.xml",
                                                        "sbgn_mapk_cascade.sbgn", "sbgn_neuronal_muscle_signalling.sbgn"]),
              (os.path.join(corpus, "pathways"), ["kgml_ko00010.xml.gz", "sbgn_glycolysis.sbgn", "gpml2021_WP78_70014_tca_cycle.gpml",
                                                  "escher_recon1_glycolysis_tca_ppp.json"])]
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = os.path.join(here, "..", "Tests", "Fixtures", "pathways-real")
    wanted.append((fixtures, ["sbml_multi_YeastMAPK.xml.gz", "sbml3_membrane.xml", "sbml_cobra_textbook.xml.gz"]))
    # The large ones: past 800 nodes once laid out anew.
    wanted.append((fixtures, ["celldesigner_cellcycle_v1.1.xml.gz"]))
    wanted.append((os.path.join(shared, "pathways-real"), ["escher_recon1_carbohydrate.json"]))
    wanted.append((os.path.join(corpus, "pathways"), ["escher_e_coli_core.json"]))
    return [os.path.join(d, f) for d, names in wanted for f in names if os.path.exists(os.path.join(d, f))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--molshot", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--dot-cache", default=None, help="keep dot's drawings here and reuse them for the same graph (its time too)")
    ap.add_argument("--graphs", nargs="*", help="these files instead of the real set (genome-scale models: BiGG's SBML)")
    a = ap.parse_args()
    dot_drawing.cache = a.dot_cache
    dot = shutil.which("dot")
    if not dot:
        print("bench: dot (graphviz) is not installed; layout quality not measured", file=sys.stderr)
        return
    shared = a.shared or os.path.dirname(os.path.abspath(a.corpus))
    measure(a.molshot, dot, a.graphs if a.graphs else real_graphs(a.corpus, shared))


dot_drawing.cache = None

if __name__ == "__main__":
    main()
