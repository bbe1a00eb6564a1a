#!/usr/bin/env python3
"""Contact sheet of the corpus: molshot before (file axes, bounding-sphere fit, plain look), molshot
now (the defaults: oriented, fitted, auto look) and PyMOL ray (`orient`, then `ray`), side by side,
one row per structure, in ball-and-stick and spacefill.

  bench/views.py --molshot .build/release/molshot --corpus ../shared/corpus -o docs/views-256.png [--size 256]

Needs Pillow (installed from PyPI if missing) and PyMOL from Debian's `pymol` for the third column
(left blank without it)."""
import argparse, json, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("-o", "--output", required=True)
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--files", default="1crn.pdb,1tii.pdb,TransferRNA.pdb,1aon.pdb.gz,1ffk.cif.gz,DNA.pdb,Insulin.pdb,Caffeine.pdb,Nanotube.pdb,HEM.pdb")
a = ap.parse_args()
try:
    from PIL import Image, ImageDraw
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pillow"], check=True)
    from PIL import Image, ImageDraw

files = [os.path.join(a.corpus, f) for f in a.files.split(",") if os.path.exists(os.path.join(a.corpus, f))]
if not files:
    print("views: none of the files are in the corpus; nothing to draw", file=sys.stderr)
    sys.exit(0)
work = tempfile.mkdtemp(prefix="molshot-views-")
modes = ["ball-and-stick", "spacefill"]
try:
    columns = {}
    for label, extra in [("before", ["--view", "file", "--look", "plain"]), ("now", [])]:
        for i, f in enumerate(files):
            for mode in modes:
                out = f"{work}/{label}-{i}-{mode}.png"
                subprocess.run([a.molshot, "render", f, "-o", out, "--size", str(a.size), "--mode", mode] + extra, check=True)
                columns[(label, i, mode)] = out
    pymol = shutil.which("pymol")
    if pymol:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "pymol_thumbnails.py")
        json.dump(files, open(f"{work}/files.json", "w"))
        os.makedirs(f"{work}/pymol", exist_ok=True)
        env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""), PEER_FILES=f"{work}/files.json", PEER_SIZE=str(a.size), PEER_OUT=f"{work}/pymol")
        subprocess.run([pymol, "-cq", script], env=env, check=False, stdout=subprocess.DEVNULL)
        for i in range(len(files)):
            for mode in modes:
                p = f"{work}/pymol/{i:03d}.{mode}.png"
                if os.path.exists(p):
                    columns[("pymol ray", i, mode)] = p
    labels = ["before", "now", "pymol ray"]
    s, pad, head = a.size, 4, 18
    sheet = Image.new("RGB", (len(modes) * len(labels) * (s + pad) + 160, len(files) * (s + pad) + head), "#d8d8d8")
    draw = ImageDraw.Draw(sheet)
    for m, mode in enumerate(modes):
        for k, label in enumerate(labels):
            draw.text((160 + (m * len(labels) + k) * (s + pad) + 4, 3), f"{label}, {mode}", fill="black")
    for i, f in enumerate(files):
        y = head + i * (s + pad)
        draw.text((4, y + s // 2), os.path.basename(f), fill="black")
        for m, mode in enumerate(modes):
            for k, label in enumerate(labels):
                p = columns.get((label, i, mode))
                if p:
                    sheet.paste(Image.open(p).convert("RGB"), (160 + (m * len(labels) + k) * (s + pad), y))
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    sheet.save(a.output, optimize=True, **({"quality": 85} if a.output.lower().endswith((".jpg", ".jpeg")) else {}))
    print(f"views: {len(files)} structures x {len(modes)} modes -> {a.output}")
finally:
    shutil.rmtree(work, ignore_errors=True)
