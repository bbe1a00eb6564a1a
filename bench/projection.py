"""The whole PDB's thumbnails on one machine, projected (`RENDER_ONLY=projection bench/run render`,
also at the end of the full suite): not a measurement of the PDB, but arithmetic on two things
that are measured or published.

1. What a structure costs here, by size: the corpus's structure files (PDB, mmCIF) in bins of
   atoms, each bin drawn by `molshot thumbnails --processes 1` (both modes, 256 px, as the render
   suite does) three times; the median CPU time of a run (user + system, every thread: reading,
   llvmpipe's, encoding) less that of a run of one 75-atom file (process start, Mesa's load, the
   first shaders), over the bin's files: core-seconds per structure. Between the bins' mean sizes
   it is interpolated linearly; above the largest it grows in proportion to the atoms.
2. How big the PDB's entries are: bench/data/pdb-entries-by-residues.tsv (entries per 100
   polymer residues, with its source), each bin at its middle, in atoms at the corpus's pooled
   atoms per polymer residue (waters, ligands and hydrogens included, from `molshot info`).
   Its last bin (1,800 residues and up, a tenth of the entries) has no size: it is costed as the
   corpus's assemblies (1aon, 1ffk: 59,000-64,000 atoms), and again at four times that.

Minutes on C cores = entries x core-seconds per entry / C / 60, scaled from the table's 173,395
entries to ENTRIES (today's archive; --entries). This assumes every core kept busy (processes
enough: `--processes` of cores / 2 here draws on two threads each) and a core as fast as one here.
"""
import argparse, csv, os, re, shutil, statistics, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
import runners

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--cores", type=int, default=16)
ap.add_argument("--entries", type=int, default=250_000,
                help="entries in the archive today (RCSB: 159,140 on 2020-01-01, about 15,000 more a year)")
args = ap.parse_args()

rows = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
structures = [(os.path.join(args.corpus, r["file"]), int(r["atoms_model1"] or 0)) for r in rows
              if r["format"] not in ("SDF", "MOL2", "XYZ", "MOL") and int(r["atoms_model1"] or 0) >= 200]
if not structures:
    print("# projection: no structure files in the corpus; skipped")
    sys.exit(0)


def cpu_of(files):
    """Median (CPU seconds, wall seconds) of `rounds` thumbnail runs over `files`."""
    cpu, wall = [], []
    for _ in range(args.rounds):
        out = tempfile.mkdtemp(prefix="bench-projection-")
        t, c, _ = runners.timed([args.molshot, "thumbnails", "--processes", "1", "--size", str(args.size), "--mode", "ball-and-stick,spacefill", "-o", out] + files)
        shutil.rmtree(out, ignore_errors=True)
        if t is None:
            sys.exit("projection: a molshot run failed")
        cpu.append(c)
        wall.append(t)
    return statistics.median(cpu), statistics.median(wall)


# The cost of a run beyond its structures: one small file.
tiny = os.path.join(args.corpus, "HEM.pdb")
start_cpu, start_wall = cpu_of([tiny if os.path.exists(tiny) else min(structures, key=lambda s: s[1])[0]])

edges = [200, 1000, 3000, 10000, 30000, 10**9]
points = []  # (mean atoms, core-seconds per structure, wall seconds per structure here)
print(f"# projection: corpus structure files by atoms, thumbnails (both modes, {args.size} px), median of {args.rounds} runs; "
      f"a run's start {start_cpu:.3f} core-s ({start_wall:.3f} s) taken off")
for lo, hi in zip(edges, edges[1:]):
    group = [(f, n) for f, n in structures if lo <= n < hi]
    if not group:
        continue
    cpu, wall = cpu_of([f for f, _ in group])
    mean = sum(n for _, n in group) / len(group)
    per_cpu, per_wall = max(cpu - start_cpu, 0) / len(group), max(wall - start_wall, 0) / len(group)
    points.append((mean, per_cpu, per_wall))
    print(f"#   {lo}-{hi if hi < 10**9 else ''} atoms: {len(group)} files, mean {mean:.0f} atoms, "
          f"{per_cpu * 1000:.1f} core-ms and {per_wall * 1000:.1f} ms here a structure")


def cost(atoms):
    """Core-seconds for a structure of `atoms`, from the measured points."""
    if atoms <= points[0][0]:
        return points[0][1]
    for (a0, c0, _), (a1, c1, _) in zip(points, points[1:]):
        if atoms <= a1:
            return c0 + (c1 - c0) * (atoms - a0) / (a1 - a0)
    return points[-1][1] * atoms / points[-1][0]


# Atoms per polymer residue, pooled over the corpus's structure files: residues of chains with
# more than three atoms a residue (not waters' or ions' chains), all atoms of the first model.
atoms_total = residues_total = 0
for f, n in structures:
    out = subprocess.run([args.molshot, "info", f], capture_output=True, text=True).stdout
    residues = sum(int(r) for r, a in re.findall(r"^\s+.*?: (\d+) residues, (\d+) atoms", out, re.M) if int(a) > 3 * int(r))
    if residues >= 20:
        atoms_total += n
        residues_total += residues
per_residue = atoms_total / residues_total

table = [r for r in csv.reader(open(os.path.join(here, "data", "pdb-entries-by-residues.tsv")), delimiter="\t")
         if r and not r[0].startswith("#")][1:]
listed = sum(int(r[2]) for r in table)
scale = args.entries / listed
assemblies = points[-1][1]
total = {1: 0.0, 4: 0.0}
print(f"# projection: {listed} entries by residues (bench/data/pdb-entries-by-residues.tsv) scaled by {scale:.3f} to {args.entries}; "
      f"{per_residue:.2f} atoms a polymer residue (corpus, pooled)")
for lo, hi, n in table:
    n = int(n)
    if hi == "-":
        for k in total:
            total[k] += n * assemblies * k
        print(f"#   {lo}+ residues: {n} entries x {assemblies * 1000:.1f} core-ms (as the corpus's assemblies; x4: {assemblies * 4000:.1f})"
              f" = {n * assemblies:.0f} core-s (x4: {n * assemblies * 4:.0f})")
        continue
    atoms = (int(lo) + int(hi)) / 2 * per_residue
    c = cost(atoms)
    for k in total:
        total[k] += n * c
    print(f"#   {lo}-{hi} residues: {n} entries x {c * 1000:.1f} core-ms ({atoms:.0f} atoms) = {n * c:.0f} core-s")
for k, label in ((1, "central"), (4, "tail-x4")):
    core_seconds = total[k] * scale
    minutes = core_seconds / args.cores / 60
    print(f"#   {label}: {total[k]:.0f} core-s x {scale:.3f} = {core_seconds:.0f} core-s; / {args.cores} cores / 60 = {minutes:.1f} min")
    print(f"RESULT suite=render case=pdb-projection-{label}-{args.cores}-cores molshot={minutes:.1f}  "
          f"# minutes for {args.entries} entries, both modes at {args.size} px, every core busy; target < 15")
