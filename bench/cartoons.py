#!/usr/bin/env python3
"""Contact sheet of the corpus in `--mode auto` (cartoons for polymers, ball-and-stick for small
molecules, spacefill for the largest) beside PyMOL's cartoons of the same files (`show cartoon;
show sticks, not polymer`, ray-traced), two columns per structure.

  bench/cartoons.py --molshot .build/release/molshot --corpus ../shared/corpus -o docs/cartoons-256.jpg [--size 256]

Needs Pillow (installed from PyPI if missing) and PyMOL from Debian's `pymol` (its column is left
blank without it)."""
import argparse, json, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("-o", "--output", required=True)
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--files", default="1crn.pdb,1aki.pdb,1tii.pdb,1igy.pdb,TransferRNA.pdb,DNA.pdb,1d66.pdb,4gxy.pdb,"
                                     "1aon.pdb.gz,1ffk.cif.gz,Insulin.pdb,pdb1gdr.ent,Caffeine.pdb,HEM.pdb")
a = ap.parse_args()
try:
    from PIL import Image, ImageDraw
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pillow"], check=True)
    from PIL import Image, ImageDraw

files = [os.path.join(a.corpus, f) for f in a.files.split(",") if os.path.exists(os.path.join(a.corpus, f))]
if not files:
    print("cartoons: none of the files are in the corpus; nothing to draw", file=sys.stderr)
    sys.exit(0)
work = tempfile.mkdtemp(prefix="molshot-cartoons-")
try:
    mine = {}
    for i, f in enumerate(files):
        out = f"{work}/molshot-{i}.png"
        subprocess.run([a.molshot, "render", f, "-o", out, "--size", str(a.size), "--mode", "auto"], check=True)
        mine[i] = out
    theirs = {}
    if shutil.which("pymol", path="/usr/bin:" + os.environ.get("PATH", "")):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "pymol_thumbnails.py")
        json.dump(files, open(f"{work}/files.json", "w"))
        os.makedirs(f"{work}/pymol", exist_ok=True)
        env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""), PEER_FILES=f"{work}/files.json", PEER_SIZE=str(a.size),
                   PEER_OUT=f"{work}/pymol", PEER_MODES="cartoon")
        subprocess.run(["pymol", "-cq", script], env=env, check=False, stdout=subprocess.DEVNULL)
        for i in range(len(files)):
            p = f"{work}/pymol/{i:03d}.cartoon.png"
            if os.path.exists(p):
                theirs[i] = p
    s, pad, head, per_row = a.size, 4, 18, 4
    rows = (len(files) + per_row - 1) // per_row
    sheet = Image.new("RGB", (per_row * 2 * (s + pad), rows * (s + pad + head) + head), "#d8d8d8")
    draw = ImageDraw.Draw(sheet)
    for i, f in enumerate(files):
        x, y = (i % per_row) * 2 * (s + pad), head + (i // per_row) * (s + pad + head)
        draw.text((x + 4, y - head + 3), f"{os.path.basename(f)}: molshot --mode auto | PyMOL cartoon ray", fill="black")
        sheet.paste(Image.open(mine[i]).convert("RGB"), (x, y))
        if i in theirs:
            sheet.paste(Image.open(theirs[i]).convert("RGB"), (x + s + pad, y))
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    sheet.save(a.output, optimize=True, **({"quality": 85} if a.output.lower().endswith((".jpg", ".jpeg")) else {}))
    print(f"cartoons: {len(files)} structures -> {a.output}")
finally:
    shutil.rmtree(work, ignore_errors=True)
