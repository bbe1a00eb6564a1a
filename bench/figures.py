#!/usr/bin/env python3
"""A sheet of figures as a talk needs them, molshot beside PyMOL 2.5 (ray-traced) making the same
figure from the same file, for looking at: 1hpv's inhibitor in its binding site with its contact
residues labelled and two distances; a B-factor putty with its colour key and a scale bar; the
molecular surface in chain colours (molshot's blended across atoms, PyMOL's `util.cbc`).

  python3 bench/figures.py --molshot M --corpus ../shared/corpus --sheet docs/figures.jpg
"""
import argparse, os, subprocess, sys, tempfile


ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--size", type=int, default=600)
ap.add_argument("--sheet", required=True)
a = ap.parse_args()
hpv = os.path.join(a.corpus, "1hpv.pdb")
work = tempfile.mkdtemp(prefix="molshot-figures-")
n = a.size
site = "byres (polymer and within 4 of resn 478)"
pymol_site = "byres (polymer within 4 of resn 478)"
contacts = [("resn 478 and elem O", "resi 25 and chain A and name OD1"), ("resn 478 and elem N", "resi 27 and chain B and name O")]
figures = [
    ("binding site: contacts labelled, two distances",
     ["--show", "cartoon: polymer", "--show", "ball-and-stick: resn 478", "--show", f"sticks: {site}", "--focus", "resn 478",
      "--label", f"name CA and {site}: %resn%resi", "--label-size", "10", "--scale-bar"]
     + sum([["--distance", f"{x}, {y}"] for x, y in contacts], []),
     f"hide everything; show cartoon; show sticks, resn 478 or {pymol_site}; util.cbag; "
     f"label name CA and {pymol_site}, '%s%s' % (resn, resi); set label_size, 14; set label_color, black; "
     + "; ".join(f"distance d{i}, ({x}), ({y}), cutoff={c}, mode=0" for i, ((x, y), c) in enumerate(zip(contacts, (2.8, 3.8))))
     + "; set dash_color, grey30; orient resn 478; zoom resn 478, 7"),
    ("B-factor putty with its key",
     ["--mode", "putty", "--color", "bfactor", "--legend", "--scale-bar"],
     "hide everything; show cartoon; cartoon putty; spectrum b, blue_white_red, polymer; orient"),
    ("surface in chain colours",
     ["--mode", "surface"],
     "hide everything; show surface; util.cbc; orient"),
]
rows = []
for i, (title, mine, pml) in enumerate(figures):
    m = os.path.join(work, f"{i}-molshot.png")
    subprocess.run([a.molshot, "render", hpv, "-o", m, "--size", str(n)] + mine, check=True)
    p = os.path.join(work, f"{i}-pymol.png")
    # A .pml file, a command a line (-d takes % as its own).
    script = os.path.join(work, f"{i}.pml")
    open(script, "w").write("\n".join(["bg_color white", "set ray_opaque_background, 1"] + pml.split("; ") + [f"ray {n}, {n}", f"png {p}"]) + "\n")
    env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
    r = subprocess.run(["pymol", "-cq", hpv, script], capture_output=True, text=True, env=env)
    if r.returncode != 0 or not os.path.exists(p):
        print(f"PyMOL failed on {title}: {r.stderr[-300:]}", file=sys.stderr)
        p = None
    rows.append((title, m, p))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sheet import side_by_side
side_by_side(rows, n, n, "molshot render (left) and PyMOL 2.5 ray (right), 1hpv, same file, same figure asked", a.sheet)
print(f"sheet: {a.sheet}")
