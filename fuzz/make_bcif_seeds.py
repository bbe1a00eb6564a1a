#!/usr/bin/env python3
"""Writes the BinaryCIF fuzz seeds in fuzz/seeds/bcif: a four-atom structure with an assembly whose
columns use every encoding (StringArray, FixedPoint+Delta, IntegerPacking, RunLength,
IntervalQuantization, ByteArray of ints and floats, masks), and the same with a column of `?` as
Mol*'s cif2bcif writes it (an empty text, offsets [0,0], index 0, mask 2). Needs PyPI's msgpack."""
import os, struct, msgpack

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "bcif")

def byte_array(vals, t):
    fmt = {1: "b", 2: "h", 3: "i", 4: "B", 5: "H", 6: "I", 32: "f", 33: "d"}[t]
    return struct.pack("<%d%s" % (len(vals), fmt), *vals), [{"kind": "ByteArray", "type": t}]

def strings(vals):
    uniq = list(dict.fromkeys(vals))
    offsets = [0]
    for u in uniq:
        offsets.append(offsets[-1] + len(u.encode()))
    data, enc = byte_array([uniq.index(v) for v in vals], 3)
    od, oe = byte_array(offsets, 3)
    return data, [{"kind": "StringArray", "dataEncoding": enc, "stringData": "".join(uniq), "offsetEncoding": oe, "offsets": od}]

def fixed(vals, factor=1000):
    ints = [round(v * factor) for v in vals]
    data, enc = byte_array([0] + [ints[i] - ints[i - 1] for i in range(1, len(ints))], 3)
    return data, [{"kind": "FixedPoint", "factor": factor, "srcType": 33}, {"kind": "Delta", "origin": ints[0], "srcType": 3}] + enc

def run_length(vals):
    runs = []
    for v in vals:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    data, enc = byte_array([x for r in runs for x in r], 3)
    return data, [{"kind": "RunLength", "srcType": 3, "srcSize": len(vals)}] + enc

def packed(vals):
    out = []
    for v in vals:
        while v >= 127:
            out.append(127); v -= 127
        while v <= -128:
            out.append(-128); v += 128
        out.append(v)
    data, enc = byte_array(out, 1)
    return data, [{"kind": "IntegerPacking", "byteCount": 1, "isUnsigned": False, "srcSize": len(vals)}] + enc

def col(name, data, enc, mask=None):
    return {"name": name, "data": {"data": data, "encoding": enc}, "mask": mask}

def category(name, rows, cols):
    return {"name": name, "rowCount": rows, "columns": cols}

atoms = [("ATOM", 1, "N", "N", "ALA", "A", 1, 1.0, 2.0, 3.0), ("ATOM", 2, "C", "CA", "ALA", "A", 1, 2.4, 2.1, 3.2),
         ("ATOM", 3, "C", "C", "ALA", "A", 1, 3.0, 3.4, 3.1), ("HETATM", 4, "O", "O", "HOH", "B", None, 9.0, 9.0, 9.0)]
seq = [a[6] or 0 for a in atoms]
md, me = byte_array([0, 0, 0, 2], 4)
cols = [col("group_PDB", *strings([a[0] for a in atoms])), col("id", *packed([a[1] for a in atoms])),
        col("type_symbol", *strings([a[2] for a in atoms])), col("label_atom_id", *strings([a[3] for a in atoms])),
        col("label_comp_id", *strings([a[4] for a in atoms])), col("label_asym_id", *strings([a[5] for a in atoms])),
        col("label_seq_id", *run_length(seq), mask={"data": md, "encoding": me}),
        col("auth_asym_id", *strings([a[5] for a in atoms])), col("auth_seq_id", *run_length(seq))]
cols += [col("Cartn_" + c, *fixed([a[7 + i] for a in atoms])) for i, c in enumerate("xyz")]
qd, qe = byte_array([100, 50, 100, 100], 4)
cols.append(col("occupancy", qd, [{"kind": "IntervalQuantization", "min": 0.0, "max": 1.0, "numSteps": 101, "srcType": 4}] + qe))
cols.append(col("B_iso_or_equiv", *byte_array([10.5, 20.25, 30.0, 40.0], 32)))
mats = [[1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], [-1, 0, 0, 0, -1, 0, 0, 0, 1, 10, 0, 0]]
names = ["matrix[%d][%d]" % (i, j) for i in (1, 2, 3) for j in (1, 2, 3)] + ["vector[1]", "vector[2]", "vector[3]"]
categories = [
    category("_entry", 1, [col("id", *strings(["FUZZ"]))]),
    category("_atom_site", len(atoms), cols),
    category("_pdbx_struct_assembly", 1, [col("id", *strings(["1"])), col("details", *strings(["author_defined_assembly"]))]),
    category("_pdbx_struct_assembly_gen", 2, [col("assembly_id", *strings(["1", "1"])), col("oper_expression", *strings(["(1-2)(1,2)", "1"])),
                                              col("asym_id_list", *strings(["A", "B"]))]),
    category("_pdbx_struct_oper_list", 2, [col("id", *strings(["1", "2"]))] + [col(n, *byte_array([m[i] for m in mats], 33)) for i, n in enumerate(names)]),
]
doc = {"version": "0.3.0", "encoder": "molshot fuzz seed", "dataBlocks": [{"header": "FUZZ", "categories": categories}]}
with open(os.path.join(out, "encodings.bcif"), "wb") as f:
    f.write(msgpack.packb(doc, use_bin_type=True))
od, oe = byte_array([0, 0], 3)
d, e = byte_array([0], 3)
md, me = byte_array([2], 4)
categories.append(category("_pdbx_database_status", 1, [col("deposit_site", d, [{"kind": "StringArray", "dataEncoding": e, "stringData": "",
                                                                                  "offsetEncoding": oe, "offsets": od}], mask={"data": md, "encoding": me})]))
with open(os.path.join(out, "empty-strings.bcif"), "wb") as f:
    f.write(msgpack.packb(doc, use_bin_type=True))
