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
  bench/run figures --molstar --sheet ...            and Mol*'s own ligand view as a third column
"""
import argparse, os, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--root", required=True)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--size", default="1200x900")
ap.add_argument("--sheet")
ap.add_argument("--molstar", action="store_true", help="also Mol*'s ligand view of each site (its in-page time printed), for the sheet")
a = ap.parse_args()
fixtures = os.path.join(a.root, "Tests", "Fixtures")
# Each site as molshot's selection and as Mol*'s element schema (StructureElement.Schema).
sites = [
    ("1hpv", "1hpv.pdb", "resn 478", "HIV-1 protease with amprenavir", {"label_comp_id": "478"}),
    ("3og7", "interactions/3og7.pdb.gz", "resn 032", "B-Raf kinase with vemurafenib", {"label_comp_id": "032"}),
    ("3shy", "interactions/3shy.pdb.gz", "resn 5FO", "PDE5 with a chlorinated inhibitor (halogen bond)", {"label_comp_id": "5FO"}),
    ("1rmd", "interactions/1rmd.pdb.gz", "resn ZN and resi 117", "RAG1's zinc site (metal coordination)", {"label_comp_id": "ZN", "auth_seq_id": 117}),
    ("1tf6", "interactions/1tf6.pdb.gz", "chain B and resi 9-13", "TFIIIA zinc fingers on DNA (five nucleotides, with the protein)",
     {"auth_asym_id": "B", "beg_auth_seq_id": 9, "end_auth_seq_id": 13}),
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


rows, timed = [], {}
for key, name, lig, title, schema in sites:
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
    rows.append([f"{key}: {title}", mine_png if mine else None, pymol_png if theirs else None])
    timed[key] = (path, schema, mine)

# Mol*'s own ligand view beside them where it runs here (bench/peers/molstar_site.py).
molstar = None
if a.molstar and a.sheet:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
    import molstar_site
    why = molstar_site.available()
    if why:
        print(f"bench: no Mol* column: {why}", file=sys.stderr)
    else:
        molstar = molstar_site.Peer(width, height)

if molstar:
    # After the timed runs, so that chromium's start slows none of them.
    for row, (key, (path, schema, mine)) in zip(rows, timed.items()):
        ms_png = os.path.join(work, f"{key}-molstar.png")
        try:
            page, whole = molstar.picture(path, schema, ms_png)
            print(f"MOLSTAR case=site-{key} in-page={page:.2f}s page={whole:.2f}s" + (f" molshot-ratio={page / mine:.1f}" if mine else ""), flush=True)
            row.append(ms_png)
        except Exception as e:  # noqa: BLE001
            print(f"bench: Mol* on {key}: {e}", file=sys.stderr)
            row.append(None)


if a.sheet:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from sheet import side_by_side
    if molstar:
        molstar.close()
    side_by_side(rows, 560, 420, "molshot render --site (left), PyMOL 2.5 ray with its polar contacts (middle)"
                 + (", Mol* 5.11's ligand focus (right)" if molstar else "") + ", same file, same site",
                 a.sheet, quality=82, text=24)
    print(f"sheet: {a.sheet}")
