#!/usr/bin/env python3
"""Pathway pictures against Graphviz, measured in the same run.

case escher-e_coli_core-2000: the e_coli_core Escher map at 2000 px wide (Bezier edges, labels),
  against `neato -n2 -Tpng` on the same nodes at the same places, straight edges, the same labels,
  at the same pixel size.
case tiles-<map>: molshot's tile pyramid of the largest corpus map against Graphviz drawing every
  level of the same pyramid as one picture of the same pixels (it has no tiles of its own).
case layout-500: a generated graph of 500 reactions without positions (each with one or two
  substrates and products, half with a currency pair), laid out and drawn by molshot, against
  `dot -Tpng` on the same graph with the currency metabolites copied per edge as molshot draws them.
case layout-crossings-<map>: real maps laid out anew by molshot and by `dot`, the same graph: edge
  crossings, total edge length and aspect ratio of each drawing (bench/layout_quality.py), and the
  medians over the set (target: molshot's median crossings no more than dot's).
Medians of 9 runs; ratio = graphviz seconds / molshot seconds."""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

import layout_quality


def timed(cmd, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def escher_dot(path, dpi):
    """The Escher map as DOT with fixed positions (points, y up), as neato -n2 takes it."""
    header, body = json.load(open(path))
    nodes, reactions = body["nodes"], body["reactions"]
    ys = [n["y"] for n in nodes.values()]
    top = max(ys)
    out = ['digraph map {', f'  graph [dpi={dpi:.3f}, outputorder=edgesfirst, splines=line, bgcolor=white];',
           '  node [fixedsize=true, fontname="DejaVu Sans"];', '  edge [arrowsize=1.5, penwidth=6, color="#334E75"];']
    for nid, n in nodes.items():
        x, y = n["x"], top - n["y"]
        if n["node_type"] == "metabolite":
            r = 20 if n.get("node_is_primary") else 12
            out.append(f'  n{nid} [pos="{x:.1f},{y:.1f}", shape=circle, width={2*r/72:.3f}, style=filled, fillcolor="#E0865B", '
                       f'color="#A24510", label="", xlabel="{n.get("bigg_id", "")}", fontsize=20];')
        else:
            out.append(f'  n{nid} [pos="{x:.1f},{y:.1f}", shape=point, width=0.01, label=""];')
    for rid, r in reactions.items():
        if "label_x" in r:
            out.append(f'  r{rid} [pos="{r["label_x"]:.1f},{top - r["label_y"]:.1f}", shape=plaintext, label="{r.get("bigg_id", "")}", '
                       f'fontsize=30, fontcolor="#334E75", width=0.1, height=0.1];')
        for sid, s in r["segments"].items():
            out.append(f'  n{s["from_node_id"]} -> n{s["to_node_id"]};')
    out.append('}')
    return "\n".join(out), top


def generated(reactions=500, seed=7):
    """A metabolism-like graph without positions: Molshot JSON and the same graph as DOT."""
    rng = random.Random(seed)
    metabolites = [f"m{i}" for i in range(int(reactions * 0.8))]
    currency = [("atp", "adp"), ("nad", "nadh"), ("nadp", "nadph"), ("h2o", "h"), ("co2", "pi")]
    nodes = [{"id": m, "label": m} for m in metabolites] + [{"id": c, "label": c.upper()} for pair in currency for c in pair]
    edges, dot_edges, dot_nodes = [], [], [f'  {m} [shape=circle, width=0.4, fixedsize=true, label="{m}"];' for m in metabolites]
    for r in range(reactions):
        rid = f"R{r}"
        nodes.append({"id": rid, "kind": "reaction"})
        dot_nodes.append(f'  {rid} [shape=box, width=0.14, height=0.14, label=""];')
        centre = int(r * len(metabolites) / reactions)
        def pick():
            return metabolites[max(0, min(len(metabolites) - 1, centre + rng.randint(-6, 6)))]
        ins = {pick() for _ in range(rng.randint(1, 2))}
        outs = {pick() for _ in range(rng.randint(1, 2))} - ins or {metabolites[min(len(metabolites) - 1, centre + 7)]}
        for m in ins:
            edges.append({"from": m, "to": rid, "kind": "substrate"}); dot_edges.append(f"  {m} -> {rid};")
        for m in outs:
            edges.append({"from": rid, "to": m, "kind": "product"}); dot_edges.append(f"  {rid} -> {m};")
        if r % 2 == 0:
            a, b = currency[r % len(currency)]
            edges.append({"from": a, "to": rid, "kind": "substrate"}); edges.append({"from": rid, "to": b, "kind": "product"})
            dot_nodes.append(f'  {a}_{r} [shape=circle, width=0.25, fixedsize=true, label="{a.upper()}", fontsize=8];')
            dot_nodes.append(f'  {b}_{r} [shape=circle, width=0.25, fixedsize=true, label="{b.upper()}", fontsize=8];')
            dot_edges.append(f"  {a}_{r} -> {rid};"); dot_edges.append(f"  {rid} -> {b}_{r};")
    dot = "digraph g {\n  graph [dpi=36];\n" + "\n".join(dot_nodes + dot_edges) + "\n}\n"
    return {"title": "generated", "nodes": nodes, "edges": edges}, dot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--molshot", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--runs", type=int, default=9)
    a = ap.parse_args()
    maps = os.path.join(a.corpus, "pathways")
    ecoli = os.path.join(maps, "escher_e_coli_core.json")
    if not os.path.exists(ecoli):
        print("bench: no pathway maps in the corpus; nothing to measure", file=sys.stderr)
        return
    neato = shutil.which("neato")
    work = tempfile.mkdtemp(prefix="molshot-bench-pathway-")
    try:
        # Width of the drawn map in map units, as molshot fits it (2% margins on the picture).
        info = json.load(open(ecoli))[1]
        xs = [n["x"] for n in info["nodes"].values()]
        extent = max(xs) - min(xs)
        dpi = 72 * 2000 / (extent * 1.04)
        molshot = timed([a.molshot, "pathway", ecoli, "-o", f"{work}/m.png", "--size", "2000"], a.runs)
        if neato:
            dot, _ = escher_dot(ecoli, dpi)
            open(f"{work}/map.dot", "w").write(dot)
            peer = timed([neato, "-n2", "-Tpng", "-o", f"{work}/g.png", f"{work}/map.dot"], a.runs)
            print(f"RESULT suite=pathway case=escher-e_coli_core-2000 molshot={molshot:.3f}s peer=graphviz:{peer:.3f}s ratio={peer / molshot:.2f}")
        else:
            print(f"RESULT suite=pathway case=escher-e_coli_core-2000 molshot={molshot:.3f}s peer=none ratio=n/a")

        largest = max((f for f in os.listdir(maps) if not f.endswith(".tsv")), key=lambda f: os.path.getsize(os.path.join(maps, f)))
        path = os.path.join(maps, largest)
        shutil.rmtree(f"{work}/tiles", ignore_errors=True)
        t = time.perf_counter()
        subprocess.run([a.molshot, "pathway", path, "--tiles", f"{work}/tiles"], check=True, stdout=subprocess.DEVNULL)
        tiles_seconds = time.perf_counter() - t
        meta = json.load(open(f"{work}/tiles/tiles.json"))
        count = sum(g["columns"] * g["rows"] for g in meta["grid"])
        if neato and largest.startswith("escher"):
            peer = 0.0
            for level in meta["grid"]:
                side = meta["tileSize"] * (1 << meta["grid"].index(level))
                dot, _ = escher_dot(path, 72 * level["scale"])
                open(f"{work}/level.dot", "w").write(dot)
                peer += timed([neato, "-n2", "-Tpng", "-o", f"{work}/level.png", f"{work}/level.dot"], 1)
            print(f"RESULT suite=pathway case=tiles-{largest.split('.')[0]} molshot={tiles_seconds:.3f}s peer=graphviz:{peer:.3f}s "
                  f"ratio={peer / tiles_seconds:.2f} tiles={count} levels={meta['levels']}")
        else:
            print(f"RESULT suite=pathway case=tiles-{largest.split('.')[0]} molshot={tiles_seconds:.3f}s peer=none ratio=n/a tiles={count}")

        graph, dot = generated()
        json.dump(graph, open(f"{work}/gen.json", "w"))
        open(f"{work}/gen.dot", "w").write(dot)
        molshot = timed([a.molshot, "pathway", f"{work}/gen.json", "-o", f"{work}/gen.png"], 3)
        dot_tool = shutil.which("dot")
        if dot_tool:
            peer = timed([dot_tool, "-Tpng", "-o", f"{work}/gen-dot.png", f"{work}/gen.dot"], 3)
            print(f"RESULT suite=pathway case=layout-500 molshot={molshot:.3f}s peer=graphviz-dot:{peer:.3f}s ratio={peer / molshot:.2f}")
        else:
            print(f"RESULT suite=pathway case=layout-500 molshot={molshot:.3f}s peer=none ratio=n/a")
        if dot_tool:
            shared = os.path.dirname(os.path.abspath(a.corpus))
            layout_quality.measure(a.molshot, dot_tool, layout_quality.real_graphs(a.corpus, shared), label=lambda s: print(s, flush=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
