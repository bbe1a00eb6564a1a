# Writes Assets/ccd-parents.tsv from the CCD bundled with biotite (wwPDB data, CC0).
import biotite, biotite.structure.info as info
from biotite.structure.info.ccd import get_ccd
import numpy as np
ccd = get_ccd()
cc = ccd["chem_comp"]
ids = cc["id"].as_array(); par = cc["mon_nstd_parent_comp_id"].as_array(); one = cc["one_letter_code"].as_array(); typ = cc["type"].as_array()
rows = []
for i, p, o, t in zip(ids, par, one, typ):
    if p in ("?", ".", "") : continue
    t = t.upper()
    if "LINKING" not in t and "PEPTIDE" not in t and "DNA" not in t and "RNA" not in t: continue
    rows.append((i, p.replace(" ", ""), o if o not in ("?", ".") else "", t))
rows.sort()
with open("/work/main/Assets/ccd-parents.tsv", "w") as f:
    f.write("# Modified residues of the wwPDB Chemical Component Dictionary: component, parent(s) (mon_nstd_parent_comp_id), one-letter code, type.\n")
    f.write("# From the CCD bundled in biotite %s (components.bcif); wwPDB data, CC0 1.0. Regenerate: python3 bench/tools/mkparents.py\n" % biotite.__version__)
    for r in rows: f.write("\t".join(r) + "\n")
print(len(rows))
