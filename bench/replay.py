"""bench/run replay: frames/s of `molshot replay` at 512x512 for 1crn, a 5k-atom protein (1tii)
and 1ffk. A file of N rotate+frame events is replayed, and so is one with a single frame; the
difference is the cost of N-1 frames with the geometry uploaded once and only the camera
changing. Stage split per frame from `molshot measure-render` (draw, readback, PNG)."""
import argparse, os, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--frames", type=int, default=60)
ap.add_argument("--size", type=int, default=512)
args = ap.parse_args()

def events(n):
    lines = ['{"type":"header","version":1,"viewport":{"width":512,"height":512}}']
    for i in range(n):
        lines.append(f'{{"t":{i / 60:.4f},"type":"rotate","dx":3,"dy":1}}')
        lines.append(f'{{"t":{i / 60:.4f},"type":"frame"}}')
    return "\n".join(lines) + "\n"

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import runners
baseline = runners.baseline()

def replay_seconds(molecule, n, binary=args.molshot):
    d = tempfile.mkdtemp(prefix="bench-replay-")
    path = os.path.join(d, "events.jsonl")
    with open(path, "w") as f:
        f.write(events(n))
    t = time.perf_counter()
    subprocess.run([binary, "replay", path, "--molecule", molecule, "-o", os.path.join(d, "out"),
                    "--size", f"{args.size}x{args.size}"], check=True, capture_output=True)
    elapsed = time.perf_counter() - t
    subprocess.run(["rm", "-rf", d])
    return elapsed

print(f"# replay: {args.frames} frames of rotate events at {args.size}x{args.size}; frames/s from (time for N frames - time for 1) / (N-1)")
for name in ("1crn.pdb", "1tii.pdb", "1ffk.cif.gz"):
    molecule = os.path.join(args.corpus, name)
    if not os.path.exists(molecule):
        continue
    runs, base = [], []
    for _ in range(5 if baseline else 3):
        for binary, into in [(args.molshot, runs)] + ([(baseline, base)] if baseline else []):
            one = replay_seconds(molecule, 1, binary)
            many = replay_seconds(molecule, args.frames, binary)
            into.append((args.frames - 1) / max(many - one, 1e-6))
    runs.sort()
    base.sort()
    out = subprocess.run([args.molshot, "measure-render", "--size", str(args.size), "--modes", "ball-and-stick"] + [molecule] * 5,
                         check=True, capture_output=True, text=True).stdout
    d = dict(l.split("\t") for l in out.splitlines())
    split = ", ".join(f"{k}={float(d['stage.' + k]) / 5 * 1000:.1f} ms" for k in ("draw", "readback", "finish", "png"))
    peer = f" peer=baseline:{base[len(base) // 2]:.1f} ratio={runs[len(runs) // 2] / base[len(base) // 2]:.2f}" if baseline else ""
    print(f"RESULT suite=replay case={name.split('.')[0]}-{args.size} molshot={runs[len(runs) // 2]:.1f}{peer}  # frames/s; per frame: {split}")
