#!/usr/bin/env python3
"""Writes BinaryCIF copies of corpus mmCIF files with biotite (every category, compressed with
biotite's own choice of encodings): the fixtures Tests/Fixtures/bcif/*.bcif.

    pip install biotite
    python3 bench/tools/make_bcif.py ../shared/corpus Tests/Fixtures/bcif
"""
import sys, os, gzip, io
import biotite.structure.io.pdbx as pdbx

import numpy as np

def typed(column):
    # Integers and decimals as numbers (as the RCSB's files have them), the rest as text.
    values = column.as_array()
    mask = column.mask.array if column.mask is not None else None
    present = values if mask is None else values[mask == 0]
    for dtype in (np.int32, np.float64):
        try:
            conv = np.array([dtype(v) for v in present])
        except ValueError:
            continue
        if dtype is np.int32 and any(("." in v or "e" in v.lower()) for v in present):
            continue
        full = np.zeros(len(values), dtype=dtype)
        if mask is None:
            full[:] = conv
        else:
            full[mask == 0] = conv
        return pdbx.BinaryCIFColumn(pdbx.BinaryCIFData(full), mask)
    return pdbx.BinaryCIFColumn(pdbx.BinaryCIFData(values), mask)

corpus, out = sys.argv[1], sys.argv[2]
for name in ["1CRN.cif", "1A8O.cif", "1bna.cif", "3PQR.cif", "1pfe.cif.gz"]:
    opener = gzip.open if name.endswith(".gz") else open
    with opener(os.path.join(corpus, name), "rt") as f:
        cif = pdbx.CIFFile.read(f)
    bcif = pdbx.BinaryCIFFile()
    for block_name, block in cif.items():
        b = pdbx.BinaryCIFBlock()
        for cat_name, cat in block.items():
            b[cat_name] = pdbx.BinaryCIFCategory({col: typed(cat[col]) for col in cat.keys()})
        bcif[block_name] = b
    bcif = pdbx.compress(bcif)
    base = name.replace(".cif.gz", "").replace(".cif", "")
    bcif.write(os.path.join(out, base + ".bcif"))
    print(base, os.path.getsize(os.path.join(out, base + ".bcif")))
