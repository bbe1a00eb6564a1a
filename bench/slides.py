#!/usr/bin/env python3
"""Sheet of the pictures a user gets without options, beside PyMOL ray's picture of the same kind:
per structure, `molshot render FILE` (auto representation and colours), `molshot render FILE --mode
surface`, and PyMOL (`orient`, then `ray`) with what an experienced user would type for a slide:
cartoon colored by chain (`util.cbc`) with ligands as sticks, spheres colored by chain past 5,000
residues, sticks for small molecules; its `show surface` for the second column.

  bench/slides.py --molshot .build/release/molshot --corpus ../shared/corpus -o docs/slide-pictures.png

Needs Pillow (installed from PyPI if missing) and PyMOL from Debian's `pymol` for its columns (left
blank without it). The RCSB's and Mol*'s published images are not reachable from these machines."""
import argparse, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("-o", "--output", required=True)
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--files", default="1crn.pdb,1hpv.pdb,1bna.pdb,1tii.pdb,1aon.pdb.gz,1ffk.cif.gz,Heme.sdf,Caffeine.pdb")
a = ap.parse_args()
try:
    from PIL import Image, ImageDraw
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pillow"], check=True)
    from PIL import Image, ImageDraw

files = [os.path.join(a.corpus, f) for f in a.files.split(",") if os.path.exists(os.path.join(a.corpus, f))]
if not files:
    print("slides: none of the files are in the corpus; nothing to draw", file=sys.stderr)
    sys.exit(0)
work = tempfile.mkdtemp(prefix="molshot-slides-")
PYMOL = """
from pymol import cmd, util
import sys
f, out, surface, size = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
cmd.bg_color("white")
cmd.set("ray_opaque_background", 1)
cmd.load(f, "m")
cmd.remove("hydro or solvent")
cmd.hide("everything")
residues = cmd.count_atoms("polymer and name CA+P")
if surface and cmd.count_atoms("m") > 20000:
    sys.exit(0)  # minutes in PyMOL: left blank
if surface:
    cmd.show("surface")
elif residues < 3:
    cmd.show("sticks")
elif residues > 5000:
    cmd.show("spheres")
    util.cbc("m")
else:
    cmd.show("cartoon")
    cmd.show("sticks", "not polymer")
    util.cbc("m")
    util.cnc("m")
cmd.orient("m", state=1)
cmd.zoom("m", complete=1, state=1)
cmd.png(out, width=size, height=size, ray=1)
"""
script = os.path.join(work, "peer.py")
open(script, "w").write(PYMOL)
columns = [("molshot, no options", []), ("molshot --mode surface", ["--mode", "surface"])]
# Debian's pymol runs under Debian's python3: /usr/bin first.
env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
pymol = shutil.which("pymol", path=env["PATH"])
try:
    cells = {}
    for i, f in enumerate(files):
        for c, (label, extra) in enumerate(columns):
            out = f"{work}/m-{i}-{c}.png"
            if subprocess.run([a.molshot, "render", f, "-o", out, "--size", str(a.size)] + extra).returncode == 0:
                cells[(i, c)] = out
            if pymol:
                peer = f"{work}/p-{i}-{c}.png"
                subprocess.run([pymol, "-cq", script, "--", f, peer, "1" if c else "0", str(a.size)], capture_output=True, timeout=900, env=env)
                if os.path.exists(peer):
                    cells[(i, c + 2)] = peer
    labels = [l for l, _ in columns] + ["PyMOL ray, cartoon/spheres by chain", "PyMOL ray, show surface"]
    s, top, left = a.size, 24, 150
    sheet = Image.new("RGB", (left + 4 * s, top + len(files) * s), "white")
    d = ImageDraw.Draw(sheet)
    for c, l in enumerate(labels):
        d.text((left + c * s + 4, 6), l, fill="black")
    for i, f in enumerate(files):
        d.text((6, top + i * s + s // 2), os.path.basename(f), fill="black")
        for c in range(4):
            if (i, c) in cells:
                sheet.paste(Image.open(cells[(i, c)]).convert("RGB").resize((s, s)), (left + c * s, top + i * s))
    sheet.save(a.output)
    print(f"slides: wrote {a.output}")
finally:
    shutil.rmtree(work, ignore_errors=True)
