#!/usr/bin/env python3
"""Sheet of real pathway files drawn by Molshot beside the pictures their own projects publish:
libsbgn's reference renderings of its SBGN files, WikiPathways' thumbnails of its GPML pathways,
and KEGG's own pictures of the maps Biopython's KGML files describe. A file Molshot refuses gets
its refusal written in its place.

  bench/pathway_sheet.py --molshot .build/release/molshot -o docs/pathway-references.jpg

Reads ../shared/pathways-real (files and reference-pictures/) and, for KEGG's pictures, Debian's
python-biopython-doc (downloaded with apt-get if missing). Needs Pillow (installed from PyPI if
missing)."""
import argparse, glob, gzip, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--shared", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"))
ap.add_argument("-o", "--output", required=True)
ap.add_argument("--width", type=int, default=480)
a = ap.parse_args()
try:
    from PIL import Image, ImageDraw
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "pillow"], check=True)
    from PIL import Image, ImageDraw

real = os.path.join(a.shared, "pathways-real")
refs = os.path.join(real, "reference-pictures")
here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, "..", "Tests", "Fixtures", "pathways-real")
pairs = [(os.path.join(real, f), os.path.join(refs, r), label) for f, r, label in [
    ("sbgn_PD_Reference_Card.sbgn", "sbgn_PD_Reference_Card.png", "SBGN PD reference card (libsbgn)"),
    ("sbgn_mapk_cascade.sbgn", "sbgn_mapk_cascade.png", "MAPK cascade (libsbgn)"),
    ("sbgn_neuronal_muscle_signalling.sbgn", "sbgn_neuronal_muscle_signalling.png", "neuronal muscle signalling (libsbgn)"),
    ("sbgn_compartments.sbgn", "sbgn_compartments.png", "compartments (libsbgn)"),
    ("sbgn_render-info.sbgn", "sbgn_render-info.png", "render extension (libsbgn)"),
    ("sbgn_AF_Reference_Card.sbgn", "sbgn_AF_Reference_Card.png", "SBGN AF reference card (libsbgn)"),
    ("sbgn_ER_Reference_Card.sbgn", "sbgn_ER_Reference_Card.png", "SBGN ER reference card (libsbgn)"),
    ("gpml2013a_WP534.gpml", "gpml2013a_WP534.thumb.png", "WP534 glycolysis, GPML 2013a (WikiPathways)"),
    ("gpml2021_WP554_77712.gpml", "gpml2021_WP554.thumb.png", "WP554, GPML 2021 (WikiPathways)"),
]]
# Pairs kept in this repository: the file a fixture, its picture in bench/reference-pictures.
here_refs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference-pictures")
fixtures_real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "pathways-real")
pairs += [(os.path.join(fixtures_real, f), os.path.join(here_refs, r), label) for f, r, label in [
    ("gpml2013a_WP10.gpml.gz", "gpml2013a_WP10.thumb.png", "WP10 IL-9 signalling, GPML 2013a: rotated, filled braces and arcs (WikiPathways)"),
    ("gpml2013a_WP2507.gpml.gz", "gpml2013a_WP2507.thumb.png", "WP2507 nanomaterial induced apoptosis, GPML 2013a: mitochondrion and ER (WikiPathways)"),
]]

work = tempfile.mkdtemp(prefix="molshot-pathway-sheet-")
try:
    # KEGG's own pictures of the maps in Biopython's test KGML (ko01100: the global map, lines).
    kegg = "/usr/share/doc/python-biopython-doc/Tests/KEGG"
    if not os.path.isdir(kegg):
        subprocess.run(["apt-get", "download", "python-biopython-doc"], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for deb in glob.glob(os.path.join(work, "*.deb")):
            subprocess.run(["dpkg", "-x", deb, os.path.join(work, "deb")], check=True)
        kegg = os.path.join(work, "deb", kegg.lstrip("/"))
    for kgml, png, label in [("kgml_ko01100.xml.gz", "map01100.png", "ko01100 global map, KGML (KEGG via Biopython)"),
                             ("../pathways/kgml_ko03070.xml.gz", "map03070.png", "ko03070 secretion systems, KGML (KEGG via Biopython)")]:
        if os.path.exists(os.path.join(kegg, png)):
            pairs.append((os.path.normpath(os.path.join(fixtures, kgml)), os.path.join(kegg, png), label))

    W = a.width
    rows = []
    for src, ref, label in pairs:
        if not (os.path.exists(src) and os.path.exists(ref)):
            continue
        out = os.path.join(work, os.path.basename(src) + ".png")
        run = subprocess.run([a.molshot, "pathway", src, "-o", out, "--size", str(2 * W)], capture_output=True, text=True)
        left = Image.open(ref).convert("RGB")
        left.thumbnail((W, 2 * W))
        if run.returncode == 0:
            right = Image.open(out).convert("RGB")
            right.thumbnail((W, 2 * W))
        else:
            right = Image.new("RGB", (W, 120), "white")
            d = ImageDraw.Draw(right)
            message = run.stderr.strip().split(": error: ")[-1]
            words, line, y = message.split(), "", 10
            for w in words + [""]:
                if len(line) + len(w) > 70 or not w:
                    d.text((10, y), line, fill="black")
                    y += 16
                    line = ""
                line += w + " "
            d.text((10, y + 8), f"(molshot exit {run.returncode})", fill="gray")
        rows.append((label, left, right))
    pad, caption = 12, 18
    height = sum(max(l.height, r.height) + caption + pad for _, l, r in rows) + pad + 24
    sheet = Image.new("RGB", (2 * W + 3 * pad, height), "white")
    d = ImageDraw.Draw(sheet)
    d.text((pad, 6), "left: the picture the project publishes    right: molshot pathway FILE (no options)", fill="black")
    y = 30
    for label, l, r in rows:
        d.text((pad, y), label, fill="black")
        y += caption
        sheet.paste(l, (pad, y))
        sheet.paste(r, (2 * pad + W, y))
        d.rectangle([pad - 1, y - 1, pad + l.width, y + l.height], outline="#cccccc")
        d.rectangle([2 * pad + W - 1, y - 1, 2 * pad + W + r.width, y + r.height], outline="#cccccc")
        y += max(l.height, r.height) + pad
    sheet.save(a.output, quality=80, optimize=True)
    print(f"{len(rows)} pairs in {a.output}")
finally:
    shutil.rmtree(work, ignore_errors=True)
