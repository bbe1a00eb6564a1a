"""bench/run maps: density map pictures at 1024 px, `molshot render MAP` against PyMOL (`load`,
`isosurface` or `isomesh` at the same absolute level, `ray 1024,1024`, `png`) on the same maps,
whole process each, median of rounds. Levels are absolute, from the map's own mean and standard
deviation (`molshot info --json`, which equal numpy's), and PyMOL's `normalize_ccp4_maps` is off,
so both contour the same values. The maps: EMDB's EMD-3197 and EMD-3001 (mrcfile's test data),
and a larger map made from gemmi's 2mFo-DFc of 5wkd
same 5wkd map repeated over 3 x 9 x 3 cells (made here with gemmi: 1.75 million voxels). Also prints molshot's peak memory per voxel on the largest map."""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--no-timing", action="store_true", help="only the memory figure and the sheet")
ap.add_argument("--cases", help="only the cases whose names contain this (emd3001, 5wkd, ...); no memory figure")
ap.add_argument("--sheet", help="also write this JPEG: molshot's pictures beside PyMOL's of the same maps and levels (docs/maps.jpg)")
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
import runners

fixtures = os.path.join(here, "..", "Tests", "Fixtures", "maps")
out = tempfile.mkdtemp(prefix="bench-maps-")


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def statistics(path):
    info = json.loads(subprocess.run([args.molshot, "info", "--json", path], check=True, capture_output=True, text=True).stdout)
    return info["statistics"]["mean"], info["statistics"]["rms"], info["size"]


def big_map():
    """5wkd's 2mFo-DFc over 3 x 9 x 3 cells, finely sampled, with gemmi (None without it)."""
    try:
        import gemmi, numpy as np
    except ImportError:
        return None
    src = os.path.join(fixtures, "5wkd_2fofc.ccp4.gz")
    m = gemmi.read_ccp4_map(src)
    m.setup(float("nan"))
    a = np.array(m.grid, copy=False)
    # The cell repeated 3 x 9 x 3 times (periodic: still a map of the same crystal, in P1).
    tiled = np.tile(a, (3, 9, 3)).astype(np.float32)
    g = gemmi.FloatGrid(tiled, gemmi.UnitCell(m.grid.unit_cell.a * 3, m.grid.unit_cell.b * 9, m.grid.unit_cell.c * 3,
                                               m.grid.unit_cell.alpha, m.grid.unit_cell.beta, m.grid.unit_cell.gamma), gemmi.SpaceGroup("P 1"))
    c = gemmi.Ccp4Map()
    c.grid = g
    c.update_ccp4_header(2, True)
    path = os.path.join(out, "5wkd_3x9x3.ccp4")
    c.write_ccp4_map(path)
    return path


cases = [("emd3197-surface", os.path.join(fixtures, "EMD-3197.map"), 1.0, "surface", []),
         ("emd3001-surface", os.path.join(fixtures, "emd_3001.map.gz"), 1.5, "surface", []),
         ("emd3001-mesh", os.path.join(fixtures, "emd_3001.map.gz"), 1.5, "mesh", [])]
big = big_map() if not args.cases or "5wkd" in args.cases else None
if args.cases:
    cases = [c for c in cases if args.cases in c[0]]
if big:
    cases.append(("5wkd-3x9x3-surface", big, 1.5, "surface", []))
    cases.append(("5wkd-3x9x3-mesh", big, 1.5, "mesh", []))
have_pymol = shutil.which("pymol", path=runners.env["PATH"]) is not None
try:
    print("# maps: whole-process seconds at 1024 px, median of rounds; the same absolute level for both (from the map's mean and rms)")
    for name, path, sigma, style, extra in ([] if args.no_timing else cases):
        mean, rms, size = statistics(path)
        level = mean + sigma * rms
        voxels = size[0] * size[1] * size[2]
        png = os.path.join(out, f"{name}.png")
        argv = [args.molshot, "render", path, "--level", f"{level:.9g}", "--map-style", style, "--size", "1024", "-o", png] + extra
        mine = [runners.timed(argv)[0] for _ in range(args.rounds)]
        mine = [t for t in mine if t is not None]
        if not mine:
            continue
        m = median(mine)
        if not have_pymol:
            print(f"RESULT suite=maps case={name} molshot={m:.3f}s voxels={voxels}  # PyMOL not installed")
            continue
        kind = "isosurface" if style == "surface" else "isomesh"
        ppng = os.path.join(out, f"{name}-pymol.png")
        script = (f"set normalize_ccp4_maps, 0; load {path}, m; {kind} s, m, {level:.9g}; "
                  f"set ray_opaque_background, 1; bg_color white; ray 1024, 1024; png {ppng}")
        theirs = [runners.timed(["pymol", "-cq", "-d", script])[0] for _ in range(args.rounds)]
        theirs = [t for t in theirs if t is not None]
        if not theirs or not os.path.exists(ppng):
            print(f"RESULT suite=maps case={name} molshot={m:.3f}s  # PyMOL failed")
            continue
        p = median(theirs)
        print(f"RESULT suite=maps case={name} molshot={m:.3f}s peer=pymol:{p:.3f}s ratio={p / m:.1f} voxels={voxels} level={sigma}sigma  # target >= 10")
    if big and not args.cases:
        # Peak memory of one picture of the largest map, over its voxels (the values alone are 4
        # bytes each), measured in a process of its own (RUSAGE_CHILDREN here would be PyMOL's).
        def peak_of(argv):
            probe = "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
            return int(subprocess.run([sys.executable, "-c", probe] + argv, check=True, capture_output=True, text=True).stdout) * 1024
        mean, rms, size = statistics(big)
        voxels = size[0] * size[1] * size[2]
        peak = peak_of([args.molshot, "render", big, "--size", "1024", "-o", os.path.join(out, "mem.png")])
        exported = peak_of([args.molshot, "export", big, "-o", os.path.join(out, "mem.stl")])
        print(f"RESULT suite=maps case=export-memory-per-voxel molshot={exported / voxels:.1f} bytes voxels={voxels} peak={exported / 1e6:.0f}MB  # read, contour, write STL")
        print(f"RESULT suite=maps case=memory-per-voxel molshot={peak / voxels:.1f} bytes voxels={voxels} peak={peak / 1e6:.0f}MB  # a 1024 px picture, GL included")
    if args.sheet and have_pymol:
        sys.path.insert(0, here)
        from sheet import side_by_side
        emd8249, khe = os.path.join(fixtures, "emd_8249.map.gz"), os.path.join(fixtures, "5khe.pdb.gz")
        rx2_map, rx2 = os.path.join(fixtures, "1rx2_2fofc.ccp4.gz"), os.path.join(fixtures, "1rx2.pdb.gz")
        rows = []
        # (title, map, level: sigma of the map's values, or an absolute value as a string, molshot's options, PyMOL's commands)
        for title, path, sigma, mine_extra, pymol_body in [
            ("EMD-3197 (sub-tomogram average of a membrane) at 1 sigma, coloured by radius; PyMOL: isosurface, ray",
             os.path.join(fixtures, "EMD-3197.map"), 1.0, ["--map-color", "radial"], "isosurface s, m, {level}; color skyblue, s"),
            ("EMD-3001 (MicroED, alpha-synuclein peptide, P21) at 1.5 sigma as a mesh; PyMOL: isomesh, ray",
             os.path.join(fixtures, "emd_3001.map.gz"), 1.5, ["--map-style", "mesh"], "isomesh s, m, {level}; color blue, s"),
            ("EMD-8249 (rubella capsid, 35 A) at 1 sigma with its fitted model 5KHE by chain, the map coloured by the nearest chain "
             "(zone:15); PyMOL: isosurface at transparency 0.5, cartoon by chain (PyMOL has no colour zone)",
             emd8249, 1.0, ["--model", khe, "--mode", "cartoon", "--color", "chain", "--map-style", "transparent", "--map-color", "zone:15"],
             "load " + khe + ", p; hide everything; show cartoon, p; set_color ca, [0.2, 1.0, 0.2]; set_color cb, [0.2, 0.8, 1.0]; "
             "color ca, p and chain A; color cb, p and chain B; isosurface s, m, {level}; color grey80, s; set transparency, 0.5; orient p"),
            ("1RX2's folate in its 2mFo-DFc (Refmac's map coefficients, gemmi's FFT) at 1 sigma of the cell (0.435), carved 1.6 A; "
             "PyMOL: isomesh ..., resn FOL, carve=1.6",
             rx2_map, "0.435", ["--model", rx2, "--map-style", "mesh", "--show", "sticks: resn FOL", "--carve", "resn FOL", "--carve-radius", "1.6"],
             "load " + rx2 + ", p; hide everything; show sticks, p and resn FOL; isomesh s, m, {level}, p and resn FOL, carve=1.6; "
             "color blue, s; orient p and resn FOL"),
        ]:
            if isinstance(sigma, str):
                level = float(sigma)
            else:
                mean, rms, _ = statistics(path)
                level = mean + sigma * rms
            a = os.path.join(out, f"sheet-{len(rows)}.png")
            b = os.path.join(out, f"sheet-{len(rows)}-pymol.png")
            subprocess.run([args.molshot, "render", path, "--level", f"{level:.9g}", "--size", "800x600", "-o", a] + mine_extra, check=True)
            script = (f"set normalize_ccp4_maps, 0; load {path}, m; " + pymol_body.format(level=f"{level:.9g}")
                      + f"; bg_color white; set ray_opaque_background, 1; ray 800, 600; png {b}")
            subprocess.run(["pymol", "-cq", "-d", script], check=True, capture_output=True, env=runners.env)
            rows.append((title, a, b))
        side_by_side(rows, 800, 600, "Density maps: molshot (left) and PyMOL (right), the same maps and levels (bench/maps.py --sheet)", args.sheet)
        print(f"# wrote {args.sheet}")
finally:
    shutil.rmtree(out, ignore_errors=True)
