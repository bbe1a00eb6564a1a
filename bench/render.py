"""bench/run render: 256x256 thumbnails of every corpus structure in both modes, in one process
each, by molshot, PyMOL (ray) and JmolData; whole-process wall time, PNG files written by all.
Alternating rounds; the median of each is reported. Then molshot's time per stage and
1024x1024 figures for 1crn and 1ffk."""
import argparse, csv, json, os, shutil, subprocess, sys, tempfile, time

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

def timed(argv, **kw):
    t = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=kw.get("env", env))
    elapsed = time.perf_counter() - t
    if p.returncode != 0:
        print(f"# {argv[0]} failed: {p.stderr.strip()[-300:]}")
        return None, p.stdout
    return elapsed, p.stdout

def run_molshot(out):
    return timed([args.molshot, "measure-render", "--size", str(args.size), "--output", out] + files)

def run_pymol(out):
    with open(os.path.join(out, "files.json"), "w") as f:
        json.dump(files, f)
    e = dict(env, PEER_FILES=os.path.join(out, "files.json"), PEER_OUT=out, PEER_SIZE=str(args.size))
    return timed(["pymol", "-cq", os.path.join(here, "peers", "pymol_thumbnails.py")], env=e)

def run_jmol(out):
    script = os.path.join(out, "thumbnails.spt")
    with open(script, "w") as f:
        f.write("set antialiasImages true\nbackground white\n")
        for i, path in enumerate(files):
            f.write(f'load "{path}"\ndelete hydrogen or water\n')
            f.write(f'spacefill 23%\nwireframe 0.15\nwrite image {args.size} {args.size} png "{out}/{i:03d}.ball-and-stick.png"\n')
            f.write(f'spacefill 100%\nwireframe off\nwrite image {args.size} {args.size} png "{out}/{i:03d}.spacefill.png"\n')
        f.write("exit\n")
    return timed(["java", "-Xmx4g", "-jar", "/usr/share/jmol/JmolData.jar", "-n", "-s", script, "-x"])

runners = {"molshot": run_molshot, "pymol-ray": run_pymol, "jmol": run_jmol}
wanted = ["molshot"] + [{"pymol": "pymol-ray", "jmol": "jmol"}[p] for p in args.peers.split(",") if p]
for name in list(wanted[1:]):
    tool = "pymol" if name == "pymol-ray" else "java"
    if shutil.which(tool, path=env["PATH"]) is None or (name == "jmol" and not os.path.exists("/usr/share/jmol/JmolData.jar")):
        print(f"# {name} is not installed; skipped")
        wanted.remove(name)

times = {n: [] for n in wanted}
stages = ""
counts = {}
for _ in range(args.rounds):
    for name in wanted:
        out = tempfile.mkdtemp(prefix=f"bench-{name}-")
        t, stdout = runners[name](out)
        if name == "molshot":
            stages = stdout
        counts[name] = len([f for f in os.listdir(out) if f.endswith(".png")])
        shutil.rmtree(out, ignore_errors=True)
        if t is not None:
            times[name].append(t)

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

n = len(files)
print(f"# render: {n} structures x 2 modes at {args.size}x{args.size}, {args.rounds} alternating rounds, whole-process wall time")
for name in wanted:
    print(f"#   {name}: {counts.get(name, 0)} PNGs, median {median(times[name]):.2f} s" if times[name] else f"#   {name}: failed")
m = n / median(times["molshot"])
for name in wanted[1:]:
    if times[name]:
        p = n / median(times[name])
        print(f"RESULT suite=render case=thumbnails-{args.size} molshot={m:.1f} peer={name}:{p:.2f} ratio={m / p:.1f}")
if len(wanted) == 1:
    print(f"RESULT suite=render case=thumbnails-{args.size} molshot={m:.1f}")
print("# molshot stages (s, one round): " + ", ".join(l.replace("stage.", "").replace("\t", "=")[:18] for l in stages.splitlines() if l.startswith(("stage.", "setup"))))

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
            ts.append(float(d["stage.draw"]) / 3 + float(d["stage.readback"]) / 3)
        print(f"RESULT suite=render case={name.split('.')[0]}-{mode}-1024 molshot={1 / median(ts):.1f}  # frames/s, draw + readback, geometry uploaded once")
