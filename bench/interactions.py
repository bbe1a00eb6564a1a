#!/usr/bin/env python3
"""Interactions of a ligand with its site: `molshot info FILE --interactions SEL --json` against
PLIP 3.0.1 (loading the file and characterizing the same one binding site, as PLIP's own tests
call it) on the fifteen complexes of Tests/Fixtures/interactions/, each tool a fresh process
reading the plain PDB file. Wall time, best of --repeat. PLIP lives in its own venv (PLIP_PYTHON, default
/tmp/plip/bin/python, made as plip-reference.py's header says); without it, molshot's times alone.

  bench/run interactions
"""
import argparse, gzip, os, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--root", required=True)
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()
here = os.path.join(a.root, "Tests", "Fixtures", "interactions")
plip = os.environ.get("PLIP_PYTHON", "/tmp/plip/bin/python")
have_plip = os.path.exists(plip) and subprocess.run([plip, "-c", "import plip"], capture_output=True).returncode == 0
if not have_plip:
    print(f"bench: no PLIP at {plip} (PLIP_PYTHON); molshot alone", file=sys.stderr)
work = tempfile.mkdtemp(prefix="molshot-interactions-")


def best(cmd):
    times = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            print(f"bench: {cmd[0]} failed: {r.stderr[-300:]}", file=sys.stderr)
            return None
    return min(times)


# One binding site a complex, PLIP's id and Molshot's selection for it.
cases = [
    ("../1hpv.pdb", "478:Z:200", "resn 478"),
    ("3og7.pdb.gz", "032:A:1", "resn 032"),
    ("3shy.pdb.gz", "5FO:A:1", "resn 5FO"),
    ("1rmd.pdb.gz", "ZN:A:117", "resn ZN and resi 117"),
    ("1tf6.pdb.gz", "ZN:A:201", "resn ZN and chain A and resi 201"),
]
for line in open(os.path.join(here, "sites.txt")):
    path, _, sites = line.strip().partition("@")
    if sites:
        site = sites.split(",")[0]
        resn, chain, resi = site.split(":")
        sel = f"chain {chain} and (resi {resi} or resi 502)" if path.startswith("1xdn") else f"resn {resn} and chain {chain} and resi {resi}"
        cases.append((path, site, sel))

# PLIP as its own tests call it: load the file, characterize the one site, read its interactions.
plip_script = os.path.join(work, "plip-site.py")
with open(plip_script, "w") as f:
    f.write("""import sys
from plip.basic import config
config.NOFIXFILE = True; config.SILENT = True; config.QUIET = True
from plip.structure.preparation import PDBComplex
m = PDBComplex(); m.output_path = sys.argv[3]; m.load_pdb(sys.argv[1])
for lig in m.ligands:
    if ':'.join([lig.hetid, lig.chain, str(lig.position)]) == sys.argv[2]:
        m.characterize_complex(lig)
s = m.interaction_sets[sys.argv[2]]
print(len(s.all_hbonds_ldon + s.all_hbonds_pdon + s.hydrophobic_contacts + s.saltbridge_lneg + s.saltbridge_pneg + s.pistacking
          + s.pication_laro + s.pication_paro + s.halogen_bonds + s.metal_complexes + s.water_bridges))
""")

ratios = []
for path, site, sel in cases:
    src = os.path.normpath(os.path.join(here, path))
    name = os.path.basename(src).split(".")[0]
    # Both read the same plain PDB file.
    plain = os.path.join(work, name + ".pdb")
    with (gzip.open(src, "rb") if src.endswith(".gz") else open(src, "rb")) as f, open(plain, "wb") as o:
        shutil.copyfileobj(f, o)
    mine = best([a.molshot, "info", plain, "--interactions", sel, "--json"])
    peer = best([plip, plip_script, plain, site, work]) if have_plip else None
    out = f"RESULT suite=interactions case={name} molshot={mine:.3f}s" if mine is not None else f"RESULT suite=interactions case={name} molshot=failed"
    if peer is not None and mine:
        out += f" peer=plip:{peer:.3f}s ratio={peer / mine:.1f}"
        ratios.append(peer / mine)
    print(out, flush=True)
if ratios:
    ratios.sort()
    print(f"RESULT suite=interactions case=median molshot=- peer=plip ratio={ratios[len(ratios) // 2]:.1f}", flush=True)
