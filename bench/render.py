"""bench/run render: 256x256 thumbnails of every corpus structure in both modes, in one process
each, by molshot (`molshot thumbnails --processes 1`: its reading, drawing and encoding threads
overlap), PyMOL (ray) and JmolData; whole-process wall time, PNG files written by all.
Alternating rounds; the median of each is reported. Then molshot's time per stage (a sequential
pass) and 1024x1024 figures for 1crn and 1ffk."""
import argparse, csv, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--size", type=int, default=256)
ap.add_argument("--peers", default="pymol,jmol")
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
files = [os.path.join(args.corpus, r["file"]) for r in rows]
env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))

sys.path.insert(0, os.path.join(here, "peers"))
import runners

def run_molshot(out, binary=args.molshot, gl="osmesa", group=None, work="model"):
    # The real command, held to one process (the thumbnails suite measures the default of two);
    # "molshot" is OSMesa, the peer "egl" the same binary on EGL (an earlier baseline takes no --gl).
    # work=model: the deposited model, as the peers load a file; work=assembly: the first assembly.
    return runners.timed([binary] + (["--gl", gl] if gl else []) + ["thumbnails", "--processes", "1", "--size", str(args.size), "--mode", "ball-and-stick,spacefill",
                          "--assembly", "model" if work == "model" else "auto", "-o", out] + (group or files))

peers = runners.available()
peers["egl"] = lambda files, out, size: run_molshot(out, gl="egl")
baseline = runners.baseline()
if baseline:
    peers["baseline"] = lambda files, out, size: run_molshot(out, baseline, gl=None)
wanted = ["molshot"] + [n for n in ("egl", "pymol-ray", "jmol", "baseline") if n in peers]
for n in ("pymol-ray", "jmol"):
    if n not in peers:
        print(f"# {n} is not installed; skipped")
run = {"molshot": run_molshot, **{n: (lambda f: (lambda out: f(files, out, args.size)))(peers[n]) for n in peers}}

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

def against_pymol(mode, group, target, work="model"):
    """`molshot thumbnails --mode MODE` against PyMOL's `show MODE` ray-traced, on `group`, in
    alternating rounds, on the same work (work=model: the deposited models; work=assembly: each
    mmCIF entry's first assembly, PyMOL's `set assembly, 1`); one RESULT line with the medians."""
    times = {"molshot": [], "pymol": []}
    for _ in range(args.rounds):
        for who in times:
            out = tempfile.mkdtemp(prefix=f"bench-{mode}-{who}-")
            if who == "molshot":
                t, _, _ = runners.timed([args.molshot, "thumbnails", "--processes", "1", "--size", str(args.size), "--mode", mode,
                                         "--assembly", "model" if work == "model" else "auto", "-o", out] + group)
            else:
                t, _, _ = runners.pymol(group, out, args.size, modes=mode, assembly=None if work == "model" else "1")
            shutil.rmtree(out, ignore_errors=True)
            if t is not None:
                times[who].append(t)
    if times["molshot"] and times["pymol"]:
        m, p = len(group) / median(times["molshot"]), len(group) / median(times["pymol"])
        print(f"RESULT suite=render case={mode}-thumbnails-{args.size} work={work} molshot={m:.1f} peer=pymol-ray:{p:.2f} ratio={m / p:.1f}  # {len(group)} structures/s, {target}")


# Surface thumbnails against PyMOL's `show surface`, ray-traced (alternating rounds), on the corpus's
# proteins and nucleic acids under 10,000 atoms (PyMOL takes minutes for the assemblies).
def surface_case():
    if "pymol-ray" not in peers:
        return
    def atoms(path):
        opener = __import__("gzip").open if path.endswith(".gz") else open
        with opener(path, "rt", errors="replace") as f:
            return sum(1 for l in f if l.startswith(("ATOM", "HETATM")))
    small = [f for f in files if f.endswith((".pdb", ".cif", ".pdb.gz", ".cif.gz")) and atoms(f) <= 10000]
    against_pymol("surface", small, "target >= 25")


# The distance to the floor, per size class: the whole `molshot thumbnails` run (both modes,
# one process, wall time with process start) against the sum of its floors measured alone in one
# thread (`measure-render`): parse only (reading every file as `info` does), draw only (geometry
# already uploaded, no readback) and encode only (the same pictures to PNG). Below 1 the pipeline
# overlaps the stages across cores; above, the rest (geometry, upload, readback, edge
# smoothing, process start, queues) is what it costs beyond them.
def floors_case():
    classes = {"small-molecules": [], "proteins": [], "assemblies": []}
    for r in rows:
        f = os.path.join(args.corpus, r["file"])
        atoms = int(r["atoms_model1"] or 0)
        if r["format"] in ("SDF", "MOL2", "XYZ", "MOL") or atoms < 200:
            classes["small-molecules"].append(f)
        elif atoms < 20000:
            classes["proteins"].append(f)
        else:
            classes["assemblies"].append(f)
    for name, group in classes.items():
        if not group:
            continue
        whole = []
        for _ in range(max(3, args.rounds)):
            out = tempfile.mkdtemp(prefix="bench-floors-")
            t, _, _ = runners.timed([args.molshot, "thumbnails", "--processes", "1", "--size", str(args.size), "--mode", "ball-and-stick,spacefill", "-o", out] + group)
            shutil.rmtree(out, ignore_errors=True)
            whole.append(t)
        parts = []
        for _ in range(3):
            out = subprocess.run([args.molshot, "measure-render", "--size", str(args.size)] + group,
                                 capture_output=True, text=True, check=True).stdout
            parts.append(dict((k, float(v)) for k, v in (l.split("\t") for l in out.splitlines())))
        floor = {k: median([p[f"stage.{k}"] for p in parts]) for k in ("parse", "draw", "png")}
        rest = {k: median([p[f"stage.{k}"] for p in parts]) for k in ("geometry", "upload", "readback", "finish")}
        w, total = median(whole), sum(floor.values())
        print(f"RESULT suite=render case=floors-{name}-{args.size} molshot={w:.3f} floors=parse:{floor['parse']:.3f},draw:{floor['draw']:.3f},encode:{floor['png']:.3f} "
              f"ratio={w / total:.2f}  # {len(group)} files x 2 modes, s; whole over the floors' sum; besides them, one thread: "
              + ", ".join(f"{k} {v:.3f}" for k, v in rest.items()))


# The whole PDB on one machine, projected from the corpus's cost by size (bench/projection.py).
def projection_case():
    subprocess.run([sys.executable, os.path.join(here, "projection.py"), "--molshot", args.molshot, "--corpus", args.corpus,
                    "--size", str(args.size)], check=True)


# RENDER_ONLY=surface, floors or projection: that case alone.
if os.environ.get("RENDER_ONLY") == "projection":
    projection_case()
    sys.exit(0)
if os.environ.get("RENDER_ONLY") == "surface":
    surface_case()
    sys.exit(0)
if os.environ.get("RENDER_ONLY") == "floors":
    floors_case()
    sys.exit(0)


times = {n: [] for n in wanted}
stages = ""
counts = {}
# molshot's run is about a second against the peers' fifteen or more, so one burst of load on
# this shared machine moves it far more; it runs three times a round, and the median is over all.
for _ in range(args.rounds):
    for name in [n for n in wanted for _ in range(3 if n in ("molshot", "egl", "baseline") else 1)]:
        out = tempfile.mkdtemp(prefix=f"bench-{name}-")
        t, _, stdout = run[name](out)
        counts[name] = len([f for f in os.listdir(out) if f.endswith(".png")])
        shutil.rmtree(out, ignore_errors=True)
        if t is not None:
            times[name].append(t)

n = len(files)
print(f"# render: {n} structures x 2 modes at {args.size}x{args.size}, {args.rounds} alternating rounds (molshot 3 runs a round), whole-process wall time")
for name in wanted:
    print(f"#   {name}: {counts.get(name, 0)} PNGs, median {median(times[name]):.2f} s" if times[name] else f"#   {name}: failed")
m = n / median(times["molshot"])
for name in wanted[1:]:
    if times[name]:
        p = n / median(times[name])
        print(f"RESULT suite=render case=thumbnails-{args.size} work=model molshot={m:.1f} peer={name}:{p:.2f} ratio={m / p:.{2 if name in ('baseline', 'egl') else 1}f}")
if len(wanted) == 1:
    print(f"RESULT suite=render case=thumbnails-{args.size} work=model molshot={m:.1f}")
# The same on each mmCIF entry's first assembly, against PyMOL's `set assembly, 1` (which builds
# assemblies from mmCIF only).
mmcif = [f for f in files if f.endswith((".cif", ".cif.gz"))]
if "pymol-ray" in peers:
    assembly_times = {"molshot": [], "pymol-ray": []}
    for _ in range(args.rounds):
        for who in assembly_times:
            out = tempfile.mkdtemp(prefix=f"bench-assembly-{who}-")
            t = (run_molshot(out, group=mmcif, work="assembly") if who == "molshot" else runners.pymol(mmcif, out, args.size, assembly="1"))[0]
            shutil.rmtree(out, ignore_errors=True)
            if t is not None:
                assembly_times[who].append(t)
    if assembly_times["molshot"] and assembly_times["pymol-ray"]:
        m, p = len(mmcif) / median(assembly_times["molshot"]), len(mmcif) / median(assembly_times["pymol-ray"])
        print(f"RESULT suite=render case=thumbnails-mmcif-assemblies-{args.size} work=assembly molshot={m:.1f} peer=pymol-ray:{p:.2f} ratio={m / p:.1f}  "
              f"# {len(mmcif)} mmCIF entries' first assemblies, structures/s")
# Cartoon thumbnails of the corpus against PyMOL's cartoons, ray-traced (alternating rounds).
if "pymol-ray" in peers:
    against_pymol("cartoon", files, "target >= 60")
    against_pymol("cartoon", mmcif, "target >= 60", work="assembly")

surface_case()
floors_case()
projection_case()

# Stage times from one sequential pass over the same files (the pipeline overlaps them).
stages = subprocess.run([args.molshot, "measure-render", "--size", str(args.size)] + files,
                        capture_output=True, text=True, check=True).stdout
print("# molshot stages, one thread, no overlap (s): " + ", ".join(l.replace("stage.", "").replace("\t", "=")[:18] for l in stages.splitlines() if l.startswith(("stage.", "setup"))))

for name in ("1crn.pdb", "1ffk.cif.gz"):
    path = os.path.join(args.corpus, name)
    if not os.path.exists(path):
        continue
    for mode in ("ball-and-stick", "spacefill"):
        ts = []
        for _ in range(3):
            out = subprocess.run([args.molshot, "measure-render", "--size", "1024", "--modes", mode, path, path, path],
                                 capture_output=True, text=True, check=True).stdout
            d = dict(l.split("\t") for l in out.splitlines())
            ts.append((float(d["stage.draw"]) + float(d["stage.readback"]) + float(d["stage.finish"])) / 3)
        print(f"RESULT suite=render case={name.split('.')[0]}-{mode}-1024 molshot={1 / median(ts):.1f}  # frames/s, draw + readback + edge smoothing, geometry uploaded once")

# What each depth cue costs: one `molshot render` (whole process) with it against the plain look,
# spacefill, median of 5; the difference is the effect's time (depth readback included).
def render_time(path, size, extra):
    ts = []
    for _ in range(5):
        t, _, _ = runners.timed([args.molshot, "render", path, "-o", os.path.join(tempfile.gettempdir(), "molshot-effect.png"),
                                 "--size", str(size), "--mode", "spacefill", "--look", "plain"] + extra)
        ts.append(t)
    return median(ts)

def present(names):
    """(name, path) of those corpus files that are there."""
    return [(n, os.path.join(args.corpus, n)) for n in names if os.path.exists(os.path.join(args.corpus, n))]

for name, path in present(("1crn.pdb", "1tii.pdb")):
    for size in (256, 1024):
        plain = render_time(path, size, [])
        for effect, extra in (("outline", ["--outline", "1"]), ("occlusion", ["--occlusion", "0.6"]),
                              ("illustrated", ["--look", "illustrated"])):
            t = render_time(path, size, extra)
            print(f"RESULT suite=render case=effect-{effect}-{name.split('.')[0]}-{size} molshot=+{1000 * (t - plain):.1f}ms  # over plain {1000 * plain:.0f} ms")

# Occlusion two ways, from stage times in one process (5 pictures of one structure, spacefill):
# screen-space (`DepthEffects`, per picture, in the finishing step) against per atom
# (`AtomOcclusion`, once per structure, in the geometry step), each over the plain look.
def stage_cost(path, size, settings):
    ts = []
    for _ in range(3):
        out = subprocess.run([args.molshot, "measure-render", "--size", str(size), "--modes", "spacefill", "--look", "plain"]
                             + [a for s in settings for a in ("--set", s)] + [path] * 5, capture_output=True, text=True, check=True).stdout
        d = dict(l.split("\t") for l in out.splitlines())
        ts.append(sum(float(d[f"stage.{k}"]) for k in ("geometry", "draw", "readback", "finish")) / 5)
    return median(ts)

for name, path in present(("1tii.pdb", "1ffk.cif.gz")):
    for size in (256, 1024):
        plain = stage_cost(path, size, [])
        screen = stage_cost(path, size, ["occlusion=0.6"])
        atoms = stage_cost(path, size, ["occlusion=0.6", "occlusion-method=atoms"])
        print(f"RESULT suite=render case=occlusion-{name.split('.')[0]}-{size} molshot=screen:+{1000 * (screen - plain):.1f}ms "
              f"atoms:+{1000 * (atoms - plain):.1f}ms  # a picture, over plain {1000 * plain:.0f} ms (geometry, draw, readback, finishing)")
