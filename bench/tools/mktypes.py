# Writes Assets/ccd-types.tsv from the CCD bundled with biotite (wwPDB data, CC0): each component
# whose _chem_comp.type makes it part of a polymer or a carbohydrate, with a letter for its class
# (p peptide linking, n nucleotide linking, s saccharide); every component not listed is a
# non-polymer (NON-POLYMER, OTHER, ?).
import os, biotite
from biotite.structure.info.ccd import get_ccd
cc = get_ccd()["chem_comp"]
rows = []
for i, t in zip(cc["id"].as_array(), cc["type"].as_array()):
    t = t.upper()
    if "SACCHARIDE" in t:
        c = "s"
    elif "PEPTIDE" in t:
        c = "p"
    elif "DNA" in t or "RNA" in t:
        c = "n"
    else:
        continue
    rows.append((i, c))
rows.sort()
with open(os.path.join(os.path.dirname(__file__), "../../Assets/ccd-types.tsv"), "w") as f:
    f.write("# Components of the wwPDB Chemical Component Dictionary by _chem_comp.type: p peptide linking, n DNA or RNA linking, s saccharide;\n")
    f.write("# any other is a non-polymer. From the CCD bundled in biotite %s (components.bcif); wwPDB data, CC0 1.0. Regenerate: python3 bench/tools/mktypes.py\n" % biotite.__version__)
    for r in rows: f.write("\t".join(r) + "\n")
print(len(rows))
