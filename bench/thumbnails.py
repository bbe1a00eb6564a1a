"""bench/run thumbnails: the whole corpus at 256x256 in both modes with `molshot thumbnails`
into an empty folder (cold: nothing up to date), and PyMOL (ray) and JmolData making the same
PNGs in the same run, on the same work: every file as deposited (work=model), then each mmCIF
entry's first assembly (work=assembly). Alternating rounds; medians. CPU utilisation is CPU time / wall time /
cores, from the child's rusage."""
import argparse, csv, os, re, shutil, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--size", type=int, default=256)
args = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "peers"))
import runners

rows = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
files = [os.path.join(args.corpus, r["file"]) for r in rows]
cores = os.cpu_count() or 1

def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def measure(work, group, assembly):
    """One comparison on the same work: `work=model` every file's deposited model (molshot
    `--assembly model`, as PyMOL and Jmol load a file), `work=assembly` each mmCIF entry's first
    assembly (molshot's default; PyMOL `set assembly, 1`; Jmol `FILTER "biomolecule 1"`)."""
    def molshot(out, binary=args.molshot, gl="osmesa"):
        # "molshot" is OSMesa, the peer "egl" the same binary on EGL (an earlier baseline takes no --gl).
        return runners.timed([binary] + (["--gl", gl] if gl else []) + ["thumbnails", "-o", out, "--size", str(args.size), "--mode", "ball-and-stick,spacefill",
                              "--assembly", "model" if work == "model" else "auto"] + group)

    peers = {n: (lambda f: (lambda files, out, size: f(files, out, size, assembly=assembly)))(f) for n, f in runners.available().items()}
    if work == "model":
        peers["egl"] = lambda files, out, size: molshot(out, gl="egl")
        baseline = runners.baseline()
        if baseline:
            peers["baseline"] = lambda files, out, size: molshot(out, baseline, gl=None)
    run = {"molshot": molshot, **{n: (lambda f: (lambda out: f(group, out, args.size)))(peers[n]) for n in peers}}
    walls = {n: [] for n in run}
    cpus = {n: [] for n in run}
    pngs = {}
    # molshot's run is about a second against the peers' fifteen or more, so one burst of load on
    # this shared machine moves it far more; it runs three times a round, and the median is over all.
    for _ in range(args.rounds):
        for name, f in [(n, f) for n, f in run.items() for _ in range(3 if n in ("molshot", "egl", "baseline") else 1)]:
            out = tempfile.mkdtemp(prefix=f"bench-thumbs-{name}-")
            wall, cpu, _ = f(out)
            pngs[name] = len([x for x in os.listdir(out) if x.endswith(".png")])
            shutil.rmtree(out, ignore_errors=True)
            if wall is not None:
                walls[name].append(wall)
                cpus[name].append(cpu / wall / cores)
    n = len(group)
    print(f"# thumbnails, work={work}: {n} structures x 2 modes at {args.size}x{args.size}, cold, {args.rounds} alternating rounds (molshot 3 runs a round), {cores} cores")
    for name in run:
        if walls[name]:
            print(f"#   {name}: {pngs[name]} PNGs, median {median(walls[name]):.2f} s, CPU utilisation {100 * median(cpus[name]):.0f}%")
    m = n / median(walls["molshot"])
    case = f"corpus-{args.size}" if work == "model" else f"corpus-mmcif-assemblies-{args.size}"
    for name in peers:
        if walls[name]:
            p = n / median(walls[name])
            print(f"RESULT suite=thumbnails case={case} work={work} molshot={m:.1f} peer={name}:{p:.2f} ratio={m / p:.{2 if name in ('baseline', 'egl') else 1}f}")
    if not peers:
        print(f"RESULT suite=thumbnails case={case} work={work} molshot={m:.1f}")
    if work == "model":
        print(f"RESULT suite=thumbnails case={case}-cpu-utilisation work={work} molshot={100 * median(cpus['molshot']):.0f}%")


# The same atoms drawn by all: every file as deposited; then each mmCIF entry's first assembly
# (PyMOL builds assemblies from mmCIF only, so PDB files are left out of that comparison).
measure("model", files, None)
mmcif = [f for f in files if re.search(r"\.(cif|mmcif)(\.gz)?$", f)]
measure("assembly", mmcif, "1")
