"""The scale ladder: real structures from about 1,000 to 3 million atoms, as plain mmCIF made once
into a work directory and reused (each made file's first line is its recipe). bench/scale.py and
bench/live.py draw the same files.
  1k    1aki.cif as deposited (1,079 atoms)
  13k   1igy.cif as deposited (12,750)
  59k   1aon.pdb.gz written as mmCIF by gemmi (58,870)
  284k  1f2n.cif's assembly 1 made by gemmi (make_assembly, 180 chains, 283,800)
  1.1M  that capsid and 3 copies moved by 400 A steps on a grid (1,135,200)
  3.1M  that capsid and 10 copies (3,121,800)"""
import math, os, sys, tempfile

WORK = os.path.join(tempfile.gettempdir(), "molshot-scale")
SPACING = 400.0  # A between copies of the capsid (its diameter is about 300 A)
PLAN = {
    "1k": ("1aki.cif", None),
    "13k": ("1igy.cif", None),
    "59k": ("1aon.cif", "1aon.pdb.gz from the corpus written as mmCIF by gemmi"),
    "284k": ("capsid-1.cif", "1f2n.cif assembly 1 made by gemmi.make_assembly (AddNumber chain names)"),
    "1.1M": ("capsid-4.cif", "1f2n.cif assembly 1 (gemmi.make_assembly) and 3 copies moved by 400 A steps on a 2x2x2 grid"),
    "3.1M": ("capsid-11.cif", "1f2n.cif assembly 1 (gemmi.make_assembly) and 10 copies moved by 400 A steps on a 3x3x3 grid"),
}
CAPSIDS = {"284k": 1, "1.1M": 4, "3.1M": 11}


def capsid_model(corpus):
    import gemmi
    st = gemmi.read_structure(os.path.join(corpus, "1f2n.cif"))
    st.setup_entities()
    model = gemmi.make_assembly(st.assemblies[0], st[0], gemmi.HowToNameCopiedChain.AddNumber)
    return st, model


def write_structure(st, model, path, recipe):
    import gemmi
    out = gemmi.Structure()
    out.name = os.path.basename(path).split(".")[0]
    out.cell = gemmi.UnitCell()
    out.add_model(model)
    out.entities = st.entities
    out.setup_entities()
    text = out.make_mmcif_document().as_string()
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.write(f"# recipe: {recipe}\n")
        f.write(text)
    os.replace(tmp, path)


def copies(st, capsid, n, path, recipe):
    import gemmi
    big = gemmi.Model("1")
    side = math.ceil(n ** (1 / 3))
    for k in range(n):
        m = capsid.clone()
        if k:
            x, y, z = k % side, (k // side) % side, k // (side * side)
            m.transform_pos_and_adp(gemmi.Transform(gemmi.Mat33(), gemmi.Vec3(x * SPACING, y * SPACING, z * SPACING)))
        for ch in m:
            if k:
                ch.name = f"{ch.name}x{k}"
                for r in ch:
                    r.subchain = f"{r.subchain}x{k}"
            big.add_chain(ch)
    write_structure(st, big, path, recipe)


def files(corpus, work=WORK, sizes=tuple(PLAN)):
    """{size: path} for each of `sizes` (keys of PLAN), made into `work` where missing."""
    os.makedirs(work, exist_ok=True)
    out = {}
    st = capsid = None
    for size in sizes:
        name, recipe = PLAN[size]
        if recipe is None:
            out[size] = os.path.join(corpus, name)
            continue
        path = os.path.join(work, name)
        if not os.path.exists(path):
            import gemmi
            print(f"bench: making {name} ({recipe})", file=sys.stderr, flush=True)
            if size == "59k":
                s = gemmi.read_structure(os.path.join(corpus, "1aon.pdb.gz"))
                s.setup_entities()
                write_structure(s, s[0], path, recipe)
            else:
                if capsid is None:
                    st, capsid = capsid_model(corpus)
                copies(st, capsid, CAPSIDS[size], path, recipe)
        out[size] = path
    return out
