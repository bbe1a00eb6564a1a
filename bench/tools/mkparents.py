# Writes Assets/ccd-parents.tsv from the CCD bundled with biotite (wwPDB data, CC0).
import biotite, biotite.structure.info as info
from biotite.structure.info.ccd import get_ccd
import numpy as np
ccd = get_ccd()
cc = ccd["chem_comp"]
ids = cc["id"].as_array(); par = cc["mon_nstd_parent_comp_id"].as_array(); one = cc["one_letter_code"].as_array(); typ = cc["type"].as_array()
# Linking components with no parent but a standard one-letter code (the D-amino acids, DPR is P)
# take the standard residue of that letter as parent: in a polymer they are its residues.
amino = dict(A="ALA", R="ARG", N="ASN", D="ASP", C="CYS", Q="GLN", E="GLU", G="GLY", H="HIS", I="ILE", L="LEU", K="LYS",
             M="MET", F="PHE", P="PRO", S="SER", T="THR", W="TRP", Y="TYR", V="VAL")
rows = []
for i, p, o, t in zip(ids, par, one, typ):
    if p in ("?", ".", ""):
        if "PEPTIDE LINKING" in t.upper() and o in amino and i not in amino.values():
            p = amino[o]
        else:
            continue
    t = t.upper()
    if "LINKING" not in t and "PEPTIDE" not in t and "DNA" not in t and "RNA" not in t: continue
    rows.append((i, p.replace(" ", ""), o if o not in ("?", ".") else "", t))
rows.sort()
with open(__import__("os").path.join(__import__("os").path.dirname(__file__), "../../Assets/ccd-parents.tsv"), "w") as f:
    f.write("# Modified residues of the wwPDB Chemical Component Dictionary: component, parent(s) (mon_nstd_parent_comp_id), one-letter code, type.\n")
    f.write("# From the CCD bundled in biotite %s (components.bcif); wwPDB data, CC0 1.0. Regenerate: python3 bench/tools/mkparents.py\n" % biotite.__version__)
    for r in rows: f.write("\t".join(r) + "\n")
print(len(rows))
