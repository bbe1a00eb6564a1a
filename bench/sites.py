#!/usr/bin/env python3
"""Binding-site figures: five complexes (the fixtures PLIP's answers are checked on) drawn as a
paper's figure of a ligand in its site, molshot's `--site` beside PyMOL 2.5 ray-tracing the same
figure from the same file in the same run: the ligand and its site's residues as sticks on the
cartoon (molshot's: the residues it interacts with; PyMOL's: those within 4 A), the view oriented on
the ligand and clipped about it, CA labels, and the interactions (molshot's as PLIP finds them;
PyMOL's polar contacts, `distance mode=2`, what its users draw). Wall time, best of --repeat, at
1200x900:

  bench/run figures            RESULT lines
  bench/run figures --sheet docs/binding-sites.jpg   and the two side by side, for looking at
"""
import argparse, os, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--root", required=True)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--size", default="1200x900")
ap.add_argument("--sheet")
a = ap.parse_args()
fixtures = os.path.join(a.root, "Tests", "Fixtures")
sites = [
    ("1hpv", "1hpv.pdb", "resn 478", "HIV-1 protease with amprenavir"),
    ("3og7", "interactions/3og7.pdb.gz", "resn 032", "B-Raf kinase with vemurafenib"),
    ("3shy", "interactions/3shy.pdb.gz", "resn 5FO", "PDE5 with a chlorinated inhibitor (halogen bond)"),
    ("1rmd", "interactions/1rmd.pdb.gz", "resn ZN and resi 117", "RAG1's zinc site (metal coordination)"),
    ("1tf6", "interactions/1tf6.pdb.gz", "chain B and resi 9-13", "TFIIIA zinc fingers on DNA (five nucleotides, with the protein)"),
]
width, height = (int(v) for v in a.size.split("x"))
work = tempfile.mkdtemp(prefix="molshot-sites-")
pymol = "/usr/bin/pymol" if os.path.exists("/usr/bin/pymol") else None
env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))


def best(cmd, out):
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
        if r.returncode != 0 or not os.path.exists(out):
            print(f"bench: {' '.join(cmd[:3])} ... failed: {r.stderr[-400:]}", file=sys.stderr)
            return None
    return min(times)


rows = []
for key, name, lig, title in sites:
    path = os.path.join(fixtures, name)
    if name.endswith(".gz"):  # PyMOL reads plain files
        plain = os.path.join(work, key + ".pdb")
        subprocess.run(f"gunzip -c '{path}' > '{plain}'", shell=True, check=True)
        path = plain
    mine_png = os.path.join(work, f"{key}-molshot.png")
    # The whole figure from --site: muted cartoon, the ligand's own carbons, interacting residues
    # labelled as sticks, their lines, a view chosen for the ligand.
    mine = best([a.molshot, "render", path, "-o", mine_png, "--size", a.size, "--site", lig, "--label-size", "9", "--assembly", "model"]
                + (["--interactions-with", "protein"] if lig.startswith("chain") else []), mine_png)
    theirs, pymol_png = None, os.path.join(work, f"{key}-pymol.png")
    if pymol:
        pymol_site = f"byres (polymer within 4 of ({lig})) and not ({lig})"
        script = os.path.join(work, f"{key}.pml")
        with open(script, "w") as f:
            f.write("\n".join([
                f"load {path}, m", "bg_color white", "set ray_opaque_background, 1", "hide everything", "show cartoon",
                f"show sticks, ({lig}) or ({pymol_site}) and not name N+C+O", "set cartoon_side_chain_helper, 1", "util.cbag",
                f"distance polar, ({lig}), ({pymol_site}), mode=2", "hide labels, polar",
                f"label name CA and ({pymol_site}), '%s%s %s' % (resn, resi, chain)", "set label_size, 14", "set label_color, black",
                f"orient {lig}", f"zoom {lig}, 7", "clip slab, 24",
                f"ray {width}, {height}", f"png {pymol_png}"]) + "\n")
        theirs = best([pymol, "-cq", script], pymol_png)
    case = f"site-{key}-{a.size}"
    if mine:
        line = f"RESULT suite=figures case={case} molshot={mine:.2f}s"
        if theirs:
            line += f" peer=pymol:{theirs:.2f}s ratio={theirs / mine:.1f}"
        print(line, flush=True)
    rows.append((f"{key}: {title}", mine_png if mine else None, pymol_png if theirs else None))

if a.sheet:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from sheet import side_by_side
    side_by_side(rows, 560, 420, "molshot render --site (left) and PyMOL 2.5 ray with its polar contacts (right), same file, same site",
                 a.sheet, quality=82, text=24)
    print(f"sheet: {a.sheet}")
