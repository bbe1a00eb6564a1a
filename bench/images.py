#!/usr/bin/env python3
"""bench/run images: the image set of every mmCIF entry of the corpus at 800 px (`molshot images`,
one process, one core), beside PyMOL making the same set in the same run: for each image molshot's
captions name (ID.json), a PyMOL script loads the entry as the image needs (`set assembly` before
`load` for assemblies), colours it (`util.cbc`, or the entity's chains over grey, `spectrum b` with
`cartoon putty`), shows a ligand with `byres ... around 5` and `orient`s to it, and `ray`s at the
same size to a PNG. Prints the wall time of each whole set and the whole PDB projected at
molshot's rate on 16 cores (the arithmetic in the line).

  bench/run images [--limit N] [--size N] [--exclude 1f2n] [--only 1hpv,5ugo,1f2n --sheet docs/entry-images.jpg]

With --sheet, both sets are kept and drawn side by side, a row per image (molshot left, PyMOL
right, captions' text under), for looking at, not timing.
"""
import argparse, glob, json, os, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--size", type=int, default=800)
ap.add_argument("--limit", type=int, default=0, help="only the first N entries (0: all)")
ap.add_argument("--exclude", default="", help="entries left out, comma-separated names (1f2n: its twelve capsid images take PyMOL most of an hour)")
ap.add_argument("--only", default="", help="only these entries, comma-separated names")
ap.add_argument("--sheet", default="", help="write a sheet of both sets side by side here (JPEG)")
ap.add_argument("--pymol-seconds", type=int, default=1800, help="PyMOL's time limit for the whole set")
a = ap.parse_args()

entries = sorted(glob.glob(os.path.join(a.corpus, "*.cif")))
left_out = {n.strip().lower() for n in a.exclude.split(",") if n.strip()}
entries = [e for e in entries if os.path.basename(e).split(".")[0].lower() not in left_out]
only = [n.strip().lower() for n in a.only.split(",") if n.strip()]
if only:
    # Each named entry's mmCIF, else its PDB file (1hpv is in the corpus only as PDB).
    stem = lambda e: os.path.basename(e).split(".")[0].lower()
    pdbs = sorted(glob.glob(os.path.join(a.corpus, "*.pdb")))
    entries = [next((e for e in entries + pdbs if stem(e) == n), None) for n in only]
    entries = [e for e in entries if e]
if a.limit:
    entries = entries[:a.limit]
work = tempfile.mkdtemp(prefix="molshot-images-bench-")
listing = os.path.join(work, "entries.txt")
open(listing, "w").write("\n".join(entries) + "\n")
out = os.path.join(work, "molshot")
t = time.perf_counter()
r = subprocess.run([a.molshot, "images", listing, out, "--size", f"{a.size}x{a.size}", "--force"], capture_output=True, text=True)
mine = time.perf_counter() - t
if r.returncode != 0:
    print(r.stderr[-2000:], file=sys.stderr)
summaries = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, "*.json"))) if not p.endswith(".caption.json")]
if only:
    summaries.sort(key=lambda s: only.index(s["entry"]) if s["entry"] in only else len(only))
images = sum(len(s["images"]) for s in summaries)
print(f"# images: {len(summaries)} corpus mmCIF entries, {images} images at {a.size} px; molshot in one process")

pymol = "/usr/bin/pymol" if os.path.exists("/usr/bin/pymol") else None
theirs = None
if pymol:
    by_source = {os.path.basename(p): p for p in entries}
    script = os.path.join(work, "set.pml")
    pngs = os.path.join(work, "pymol")
    os.makedirs(pngs, exist_ok=True)
    with open(script, "w") as f:
        f.write("set ray_opaque_background, 0\nset cartoon_transparency, 0\n")
        for s in summaries:
            path = by_source.get(s["source"])
            if not path:
                continue
            for c in s["images"]:
                assembly = "" if c["assembly"] == "model" else c["assembly"]
                f.write(f"delete all\nset assembly, {assembly!r}\nload {path}, m\nhide everything\n")
                kind = c["kind"]
                if kind == "ligand":
                    lig = f"resn {c['ligand']}"
                    f.write(f"show lines, byres ({lig} around 5) and not solvent\nshow sticks, {lig}\nshow spheres, {lig}\n"
                            f"set sphere_scale, 0.25, {lig}\nutil.cbag\norient {lig}\n")
                elif kind == "bfactor":
                    f.write("show cartoon\ncartoon putty\nspectrum b, blue_white_red\norient\n")
                else:
                    f.write("show cartoon\nshow sticks, hetatm and not solvent\nutil.cbc\n")
                    if kind in ("entity", "modres"):
                        chains = "+".join(ch for ch in c.get("chains", [])[:1] if ch) or "A"
                        f.write(f"color grey90\ncolor green, chain {chains}\n")
                    f.write("orient\n")
                f.write(f"ray {a.size}, {a.size}\npng {os.path.join(pngs, c['name'])}.png\n")
    t = time.perf_counter()
    try:
        p = subprocess.run([pymol, "-cq", script], capture_output=True, text=True, timeout=a.pymol_seconds,
                           env=dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", "")))
        theirs = time.perf_counter() - t
        made = len(glob.glob(os.path.join(pngs, "*.png")))
        if made < images:
            print(f"# PyMOL made {made} of {images} images", file=sys.stderr)
    except subprocess.TimeoutExpired:
        print(f"# PyMOL passed {a.pymol_seconds} s; its time is a lower bound", file=sys.stderr)
        theirs = float(a.pymol_seconds)

if a.sheet:
    from PIL import Image, ImageDraw, ImageFont
    fonts = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Assets", "fonts")
    ttf = next(iter(sorted(glob.glob(os.path.join(fonts, "*.ttf")))), None)
    font = ImageFont.truetype(ttf, 11) if ttf else None
    rows = [(s["entry"], c) for s in summaries for c in s["images"]]
    rows.sort(key=lambda r: (only.index(r[0]) if r[0] in only else 99, r[1]["name"]))
    cell, text, per_row = 200, 30, 3
    pair = 2 * cell + 24
    lines = (len(rows) + per_row - 1) // per_row
    sheet = Image.new("RGB", (per_row * pair, lines * (cell + text) + 30), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((10, 8), "Each pair: molshot images (left), PyMOL 2.5 ray-traced by the same script (right)", fill="black", font=font)
    for k, (entry, c) in enumerate(rows):
        x0, y = (k % per_row) * pair, 30 + (k // per_row) * (cell + text)
        for col, folder in enumerate([out, os.path.join(work, "pymol")]):
            name = c["files"][0]["file"] if col == 0 else c["name"] + ".png"
            path = os.path.join(folder, name)
            if os.path.exists(path):
                im = Image.open(path).convert("RGBA")
                im.thumbnail((cell, cell))
                bg = Image.new("RGBA", im.size, "white")
                bg.alpha_composite(im)
                sheet.paste(bg.convert("RGB"), (x0 + col * (cell + 4), y))
        words = c["text"]
        draw.text((x0 + 4, y + cell + 2), words[:64], fill="black", font=font)
        draw.text((x0 + 4, y + cell + 15), words[64:128], fill="black", font=font)
    sheet.save(a.sheet, quality=80)
    print(f"# sheet: {a.sheet}, {len(rows)} rows")

per_entry = mine / max(1, len(summaries))
pdb_entries = 230_000
days = pdb_entries * per_entry / 16 / 86400
peer = f" peer=pymol:{theirs:.1f}s ratio={theirs / mine:.1f}" if theirs else " peer=none"
# work=image-set: PyMOL makes each image of molshot's set from the same atoms (the deposited model
# or the caption's assembly, `set assembly` before `load`).
print(f"RESULT suite=images case=corpus-{a.size} work=image-set molshot={mine:.1f}s{peer}  # {len(summaries)} entries, {images} images, one core each")
print(f"RESULT suite=images case=pdb-projection molshot={days:.2f}days peer=none  # {pdb_entries} entries x {per_entry:.2f} s an entry / 16 cores / 86,400 s a day"
      " (the corpus's mix; the archive's mean entry is larger)")
shutil.rmtree(work, ignore_errors=True)
