#!/usr/bin/env python3
"""Biological assemblies: 1f2n's 180-chain capsid (assembly 1, 283,800 atoms) drawn at 512 px from
the deposited file, beside PyMOL building the same assembly (`set assembly, 1` before `load`, then
`ray`), in the same run: wall time and peak memory (/usr/bin/time), each the best of --repeat runs.
Also assembly 1 of 1A8O (a dimer) and 1aon (GroEL-GroES, REMARK 350) in the same way.

  bench/run assembly
"""
import argparse, os, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--repeat", type=int, default=2)
ap.add_argument("--size", type=int, default=512)
a = ap.parse_args()

def timed(cmd, env=None):
    best = None
    for _ in range(a.repeat):
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            print(f"bench: {' '.join(cmd)} failed: {r.stderr[-400:]}", file=sys.stderr)
            return None
        seconds, kb = r.stderr.strip().splitlines()[-1].split()
        m = (float(seconds), int(kb) / 1024)
        best = m if best is None or m[0] < best[0] else best
    return best

work = tempfile.mkdtemp(prefix="molshot-assembly-")
pymol = "/usr/bin/pymol" if os.path.exists("/usr/bin/pymol") else None
cases = [("1f2n.cif", "spacefill", "spheres"), ("1f2n.cif", "cartoon", "cartoon"), ("1A8O.cif", "cartoon", "cartoon"), ("1aon.pdb.gz", "cartoon", "cartoon")]
for name, mode, pymol_rep in cases:
    path = os.path.join(a.corpus, name)
    if not os.path.exists(path):
        continue
    out = os.path.join(work, f"molshot-{name}-{mode}.png")
    mine = timed([a.molshot, "render", path, "--assembly", "1", "--mode", mode, "--size", str(a.size), "-o", out])
    theirs = None
    if pymol:
        script = os.path.join(work, "peer.pml")
        with open(script, "w") as f:
            f.write(f"set assembly, 1\nload {path}, m\nhide everything\nshow {pymol_rep}\nutil.cbc\norient\nset ray_opaque_background, 1\n"
                    f"ray {a.size}, {a.size}\npng {os.path.join(work, f'pymol-{name}-{mode}.png')}\n")
        # Debian's pymol runs with Debian's python3, first on PATH.
        theirs = timed([pymol, "-cq", script], env=dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", "")))
    case = f"{name.split('.')[0]}-assembly1-{mode}-{a.size}px"
    if mine:
        line = f"RESULT suite=assembly case={case} molshot={mine[0]:.2f}s,{mine[1]:.0f}MB"
        if theirs:
            line += f" peer=pymol:{theirs[0]:.2f}s,{theirs[1]:.0f}MB ratio={theirs[0] / mine[0]:.1f}x_time,{theirs[1] / mine[1]:.1f}x_memory"
        print(line, flush=True)
print(f"bench: pictures in {work}", file=sys.stderr)
