#!/usr/bin/env python3
"""What PLIP finds between each ligand and its site, as the reference Molshot's interactions are
checked against (plip-reference.tsv, made once with this script; PLIP is not needed to run the tests).

    python3 -m venv /tmp/plip && /tmp/plip/bin/pip install plip==3.0.1 openbabel-wheel
    cd Tests/Fixtures/interactions && /tmp/plip/bin/python plip-reference.py $(cat sites.txt) > plip-reference.tsv

An argument is a file, or FILE@SITE,SITE... for those binding sites alone (the ligand a complex is
about, not its glycerols and sulfates). `sites.txt` lists the arguments the reference was made with.

A row an interaction: file, ligand (RESN:CHAIN:RESI as PLIP names its binding sites), kind (Molshot's
names: hbond, hydrophobic, saltbridge, pistacking, pication, halogen, metal), partner residue
(chain, resn, resi), distance in A, and the serials of the two atoms where PLIP names single atoms
(the ligand's first; 0 where the interaction is between group centres). A water bridge's distance is
the ligand atom's to the water's oxygen, and a tenth column gives that oxygen's serial; an eleventh
gives a hydrogen bond's angle at the hydrogen, a water bridge's at the water, in degrees.
"""
import gzip
import os
import sys
import tempfile

from plip.basic import config
from plip.structure.preparation import PDBComplex

config.NOFIXFILE = True
config.SILENT = True
config.QUIET = True


def rows(path, wanted):
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    with tempfile.NamedTemporaryFile("w", suffix=".pdb", delete=False) as f:
        f.write(text)
        plain = f.name
    try:
        mol = PDBComplex()
        mol.output_path = tempfile.gettempdir()
        mol.load_pdb(plain)
        mol.analyze()
    finally:
        os.unlink(plain)
    name = os.path.basename(path)
    for site, s in sorted(mol.interaction_sets.items()):
        if wanted and site not in wanted:
            continue
        def row(kind, i, dist, a=0, b=0, water="", angle=""):
            yield (name, site, kind, i.reschain, i.restype, str(i.resnr), "%.2f" % dist, str(a), str(b), water, angle)
        for i in s.hbonds_ldon + s.hbonds_pdon:
            # The ligand's atom first: the donor where the ligand donates.
            lig, prot = (i.d_orig_idx, i.a_orig_idx) if not i.protisdon else (i.a_orig_idx, i.d_orig_idx)
            yield from row("hbond", i, i.distance_ad, lig, prot, angle="%.0f" % i.angle)
        for i in s.hydrophobic_contacts:
            yield from row("hydrophobic", i, i.distance, i.ligatom_orig_idx, i.bsatom_orig_idx)
        for i in s.saltbridge_lneg + s.saltbridge_pneg:
            yield from row("saltbridge", i, i.distance)
        for i in s.pistacking:
            yield from row("pistacking", i, i.distance)
        for i in s.pication_laro + s.pication_paro:
            yield from row("pication", i, i.distance)
        for i in s.halogen_bonds:
            yield from row("halogen", i, i.distance, i.don_orig_idx, i.acc_orig_idx)
        for i in s.metal_complexes:
            yield from row("metal", i, i.distance, i.metal_orig_idx, i.target_orig_idx)
        for i in s.water_bridges:
            # The partner is the protein's side: the donor where the protein donates.
            lig, prot = (i.a_orig_idx, i.d_orig_idx) if i.protisdon else (i.d_orig_idx, i.a_orig_idx)
            yield from row("waterbridge", i, i.distance_dw if not i.protisdon else i.distance_aw, lig, prot,
                           str(i.water_orig_idx), "%.0f" % i.w_angle)


print("# PLIP %s; columns: file ligand kind chain resn resi distance ligand_atom partner_atom water angle" % config.__version__)
for arg in sys.argv[1:]:
    p, _, sites = arg.partition("@")
    for r in rows(p, set(sites.split(",")) if sites else None):
        print("\t".join(r))
