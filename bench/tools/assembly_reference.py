#!/usr/bin/env python3
"""Reference atom counts, centroids and radii of gyration of biological assemblies, from biotite
(pdbx.get_assembly / pdb.get_assembly, altloc="first", every atom incl. water and hydrogens) and gemmi
(make_assembly, every atom record). Writes Tests/Fixtures/assemblies-reference.tsv.

    pip install biotite gemmi
    python3 bench/tools/assembly_reference.py ../shared/corpus > Tests/Fixtures/assemblies-reference.tsv
"""
import sys, os, gzip, io
import numpy as np
import biotite, gemmi
import biotite.structure.io.pdbx as pdbx
import biotite.structure.io.pdb as pdb

corpus = sys.argv[1]
names = ["1A8O.cif", "1f2n.cif", "1pfe.cif.gz", "3PQR.cif", "1aki.cif", "1bna.cif", "1igy.cif", "2d0f.cif", "3o5r.cif",
         "4gxy.cif", "5ugo.cif", "7gsa.cif", "1dix.cif", "4i39.cif", "1aon.pdb.gz", "1f2n.pdb", "Insulin.pdb", "1tii.pdb"]
print(f"# biotite {biotite.__version__}, gemmi {gemmi.__version__}; made by bench/tools/assembly_reference.py")
print("file\tassembly\tbiotite_atoms\tgemmi_atoms\tcentroid_x\tcentroid_y\tcentroid_z\tradius_of_gyration")
for name in names:
    path = os.path.join(corpus, name)
    if not os.path.exists(path):
        continue
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    if ".cif" in name:
        cif = pdbx.CIFFile.read(io.StringIO(text))
        ids = list(pdbx.list_assemblies(cif).keys())
        get = lambda i: pdbx.get_assembly(cif, assembly_id=i, model=1, altloc="first")
    else:
        p = pdb.PDBFile.read(io.StringIO(text))
        try:
            ids = list(pdb.list_assemblies(p))
        except Exception as e:
            print(f"# {name}: biotite: {e}", file=sys.stderr)
            continue
        get = lambda i: pdb.get_assembly(p, assembly_id=i, model=1, altloc="first")
    st = gemmi.read_structure(path)
    st.setup_entities()
    for i in ids:
        try:
            arr = get(i)
        except Exception as e:
            print(f"# {name} {i}: biotite: {e}", file=sys.stderr)
            continue
        xyz = arr.coord
        c = xyz.mean(0)
        rg = np.sqrt(((xyz - c) ** 2).sum(1).mean())
        g = ""
        for a in st.assemblies:
            if a.name == str(i):
                m = gemmi.make_assembly(a, st[0], gemmi.HowToNameCopiedChain.AddNumber)
                g = str(m.count_atom_sites())
        print(f"{name}\t{i}\t{len(arr)}\t{g}\t{c[0]:.3f}\t{c[1]:.3f}\t{c[2]:.3f}\t{rg:.3f}")
