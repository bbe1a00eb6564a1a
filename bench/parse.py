"""bench/run parse: load every PDB and mmCIF file of the corpus, plain and gzip, with molshot
and with gemmi, each timed inside its own process (molshot's `measure-parse`, gemmi's
`read_structure`). The two alternate in rounds so that load from other users of the machine
falls on both; a file's time is the median over rounds of the median of a few loads in a round.
Throughput is uncompressed bytes / summed time per group."""
import argparse, csv, os, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--peer", type=int, default=1)
ap.add_argument("--repeats", type=int, default=3)
ap.add_argument("--rounds", type=int, default=7)
args = ap.parse_args()

rows = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
groups = {}
for r in rows:
    if r["format"] not in ("PDB", "mmCIF"):
        continue
    name = ("pdb" if r["format"] == "PDB" else "mmcif") + ("-gzip" if r["gzip"] == "yes" else "")
    groups.setdefault(name, []).append(os.path.join(args.corpus, r["file"]))

def molshot_times(files):
    out = subprocess.run([args.molshot, "measure-parse", "--repeats", str(args.repeats)] + files,
                         check=True, capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        if line.startswith("peak-kb"):
            continue
        path, size, atoms, seconds = line.split("\t")
        result[path] = (int(size), int(atoms), float(seconds))
    return result

rejected = set()
def gemmi_times(files):
    import gemmi
    result = {}
    for f in files:
        if f in rejected:
            continue
        times = []
        try:
            for _ in range(args.repeats):
                t = time.perf_counter()
                gemmi.read_structure(f)
                times.append(time.perf_counter() - t)
        except Exception as e:
            print(f"# gemmi rejects {os.path.basename(f)}: {str(e).splitlines()[0][:100]}")
            rejected.add(f)
            continue
        result[f] = median(times)
    return result

def median(values):
    values = sorted(values)
    return values[len(values) // 2]

def measure(files):
    ms, gs = {}, {}
    info = {}
    for _ in range(args.rounds):
        for f, (size, atoms, t) in molshot_times(files).items():
            info[f] = (size, atoms)
            ms.setdefault(f, []).append(t)
        if args.peer:
            for f, t in gemmi_times(files).items():
                gs.setdefault(f, []).append(t)
    return info, {f: median(v) for f, v in ms.items()}, {f: median(v) for f, v in gs.items()}

print(f"# parse: corpus {args.corpus}, {args.rounds} alternating rounds of {args.repeats} loads per file; MB = 1e6 bytes of uncompressed text")
if args.peer:
    import gemmi
    print(f"# peer: gemmi {gemmi.__version__} (read_structure, Python)")
for name in ("pdb", "pdb-gzip", "mmcif", "mmcif-gzip"):
    files = groups.get(name, [])
    if not files:
        continue
    info, m, g = measure(files)
    common = [f for f in files if f in g] if args.peer else files
    size = sum(info[f][0] for f in common)
    atoms = sum(info[f][1] for f in common)
    mt = sum(m[f] for f in common)
    mbs = size / mt / 1e6
    line = f"RESULT suite=parse case={name} molshot={mbs:.1f}"
    if args.peer:
        gt = sum(g[f] for f in common)
        gbs = size / gt / 1e6
        line += f" peer=gemmi:{gbs:.1f} ratio={mbs / gbs:.2f}"
    print(line)
    extra = f"#   {name}: {len(common)} files, {size / 1e6:.1f} MB, {atoms} atoms; molshot {atoms / mt / 1e6:.2f} M atoms/s"
    if args.peer:
        extra += f", gemmi {atoms / gt / 1e6:.2f} M atoms/s"
    print(extra)

# BinaryCIF as the archive's encoders write it (the RCSB's python-mmcif, Mol*'s cif2bcif, biotite),
# read by molshot, against gemmi reading the same entry's mmCIF: the same atoms from either file.
# The pairs are the test fixtures with their mmCIF (Tests/Fixtures: archive/, bcif/) and the
# corpus's mmCIF of the entries biotite wrote; each inflated once into a temporary folder first.
import gzip, tempfile, shutil
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
fx = os.path.join(root, "Tests", "Fixtures")
pairs = [(os.path.join(fx, "archive", e + ".bcif.gz"), os.path.join(fx, "archive", e + ".cif.gz")) for e in ("5eil", "4zxb")]
pairs.append((os.path.join(fx, "bcif", "200l_cif2bcif.bcif.gz"), os.path.join(fx, "bcif", "200l_rcsb.cif.gz")))
for e, c in (("1A8O", "1A8O.cif"), ("3PQR", "3PQR.cif"), ("1pfe", "1pfe.cif.gz"), ("1bna", "1bna.cif")):
    pairs.append((os.path.join(fx, "bcif", e + ".bcif.gz"), os.path.join(args.corpus, c)))
tmp = tempfile.mkdtemp(prefix="molshot-bcif-")
plain = []
for b, c in pairs:
    if not (os.path.exists(b) and os.path.exists(c)):
        continue
    out = []
    for f in (b, c):
        dest = os.path.join(tmp, os.path.basename(f).replace(".gz", ""))
        with (gzip.open(f) if f.endswith(".gz") else open(f, "rb")) as src, open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out.append(dest)
    plain.append(tuple(out))
if plain:
    bm, gm, atoms = {}, {}, 0
    for _ in range(args.rounds):
        for f, (size, n, t) in molshot_times([b for b, _ in plain]).items():
            bm.setdefault(f, []).append(t)
        if args.peer:
            for f, t in gemmi_times([c for _, c in plain]).items():
                gm.setdefault(f, []).append(t)
    info = molshot_times([b for b, _ in plain])
    atoms = sum(info[b][1] for b, _ in plain)
    mt = sum(median(bm[b]) for b, _ in plain)
    line = f"RESULT suite=parse case=bcif-vs-mmcif molshot={atoms / mt / 1e6:.2f}"
    if args.peer and all(c in gm for _, c in plain):
        gt = sum(median(gm[c]) for _, c in plain)
        line += f" peer=gemmi-mmcif:{atoms / gt / 1e6:.2f} ratio={gt / mt:.2f}"
    print(line + "  # M atoms/s: molshot reading BinaryCIF, gemmi the same entries' mmCIF")
    print(f"#   bcif: {len(plain)} entries, {atoms} atoms: " + ", ".join(os.path.basename(b) for b, _ in plain))
shutil.rmtree(tmp, ignore_errors=True)

# Peak memory per atom: the largest file by atoms, less a tiny file's baseline, each in a fresh
# process that reports its own VmHWM (ru_maxrss would include the forking parent's).
def peak_kb(argv):
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return int([w for w in out.strip().splitlines()[-1].split() if w.isdigit()][0])

largest = max((r for r in rows if r["format"] in ("PDB", "mmCIF")), key=lambda r: int(r["atoms_all_models"]))
big = os.path.join(args.corpus, largest["file"])
tiny = os.path.join(args.corpus, "Caffeine.pdb")
natoms = int(largest["atoms_all_models"])
big_kb = peak_kb([args.molshot, "measure-parse", "--repeats", "1", big])
tiny_kb = peak_kb([args.molshot, "measure-parse", "--repeats", "1", tiny])
ms = (big_kb - tiny_kb) * 1024 / natoms
line = f"RESULT suite=parse case=peak-memory-bytes-per-atom-{largest['file']} molshot={ms:.0f}"
if args.peer:
    code = ("import gemmi,sys; gemmi.read_structure(sys.argv[1]); "
            "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
    gs = (peak_kb([sys.executable, "-c", code, big]) - peak_kb([sys.executable, "-c", code, tiny])) * 1024 / natoms
    line += f" peer=gemmi:{gs:.0f} ratio={ms / gs:.2f}" if gs > 0 else " peer=gemmi:n/a"
print(line + f"  # lower is better; peak RSS {big_kb} KB less {tiny_kb} KB for a 24-atom file; includes the text held while parsing")
