#!/usr/bin/env python3
"""bench/run scale: how time and peak memory grow with the atoms, every command, on a ladder of
real structures from about 1,000 to 3 million atoms, with PyMOL beside the drawing commands.

The ladder: bench/ladder.py (1aki, 1igy, 1aon, 1f2n's capsid and 4 and 11 copies of it; made
once into --work and reused).

Per size, each a process of its own, its wall time and peak RSS (/usr/bin/time), at most
--timeout seconds: info; render spacefill, cartoon and surface at 1024 px; thumbnails (the
default picture, 256 px); export GLB; library import; library load (`measure-load`, in the
process, against parsing the file in the same process); the service's image route (one GET of
/v1/molecules/ID/image at 1024 px spacefill, the server's and its render process's peak RSS);
a live session's frames/s at 512 px (`measure-live`, one session, 3 s of rotate events).
PyMOL (load; ray spacefill and cartoon at 1024) on the same files, up to the first size where
it does not finish within --pymol-timeout (600 s).

Prints a table, then RESULT lines: slope-COMMAND (least squares of log time on log atoms over
the sizes from 13k up that finished), peak-bytes-per-atom-COMMAND (peak RSS / atoms at the
largest size finished), 3M-spacefill-1024, live-60k-512, live-capsid-512, capsid-cartoon-1024
with PyMOL as its peer."""
import argparse, json, math, os, shutil, signal, subprocess, sys, tempfile, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # the files, made once (bench/ladder.py)

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--work", default=ladder.WORK)
ap.add_argument("--sizes", default="1k,13k,59k,284k,1.1M,3.1M")
ap.add_argument("--commands", default="info,spacefill,cartoon,surface,thumbnails,export,import,load,service,live")
ap.add_argument("--timeout", type=float, default=900)
ap.add_argument("--pymol-timeout", type=float, default=600)
ap.add_argument("--no-pymol", action="store_true")
a = ap.parse_args()

os.makedirs(a.work, exist_ok=True)

def atoms_of(path):
    out = subprocess.run([a.molshot, "info", "--json", path], capture_output=True, text=True)
    if out.returncode == 0:
        try:
            d = json.loads(out.stdout)
            d = d[0] if isinstance(d, list) else d
            return int(d.get("atoms") or d["models"][0]["atoms"])
        except Exception:
            pass
    import gemmi
    return gemmi.read_structure(path)[0].count_atom_sites()

def timed(argv, timeout, env=None):
    """(seconds, peak MB, stdout) or (None, None, why)."""
    try:
        r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + argv, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, None, f"over {timeout:.0f} s"
    line = [l for l in r.stderr.splitlines() if l.startswith("TIME ")]
    if r.returncode != 0 or not line:
        why = (r.stderr.strip().splitlines() or ["?"])
        why = [l for l in why if not l.startswith("TIME ") and "exit status" not in l] or ["?"]
        return None, None, why[-1][:160]
    _, s, kb = line[-1].split()
    return float(s), int(kb) / 1024, r.stdout

def tree_peak_mb(pid):
    """The peak RSS of a process and its children now alive, from /proc (VmHWM)."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            for l in open(f"/proc/{p}/status"):
                if l.startswith("VmHWM:"):
                    total += int(l.split()[1])
            for t in os.listdir(f"/proc/{p}/task"):
                stack += [int(c) for c in open(f"/proc/{p}/task/{t}/children").read().split()]
        except OSError:
            pass
    return total / 1024

def service_and_live(path, atoms, scratch, want_service, want_live):
    db = os.path.join(scratch, "service.sqlite")
    r = subprocess.run([a.molshot, "library", "import", "--db", db, path], capture_output=True, text=True)
    if r.returncode != 0:
        return {"service": (None, None, r.stderr.strip()[-160:]), "live": (None, None, "no import")}
    server = subprocess.Popen([a.molshot, "serve", "--port", "0", "--db", db, "--max-atoms", str(max(atoms * 2, 2_000_000)),
                               "--render-seconds", str(int(a.timeout)), "--max-side", "2048"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = {}
    try:
        port = server.stdout.readline().strip().rsplit(":", 1)[-1]
        base = f"http://127.0.0.1:{port}"
        ident = json.loads(urllib.request.urlopen(f"{base}/v1/molecules?limit=1").read())
        ident = (ident.get("molecules") or ident.get("items") or ident.get("entries"))[0]
        ident = ident.get("id") or ident["record"]["id"]
        if want_service:
            t = time.perf_counter()
            try:
                body = urllib.request.urlopen(f"{base}/v1/molecules/{ident}/image?size=1024&mode=spacefill", timeout=a.timeout).read()
                seconds = time.perf_counter() - t
                out["service"] = (seconds, tree_peak_mb(server.pid), "") if body[:4] == b"\x89PNG" else (None, None, "not a PNG")
            except Exception as e:
                out["service"] = (None, None, str(e)[:160])
        if want_live:
            try:
                r = subprocess.run([a.molshot, "measure-live", "--url", f"ws://127.0.0.1:{port}/v1/sessions?molecule={ident}&size=512x512",
                                    "--sessions", "1", "--seconds", "3", "--rate", "120"], capture_output=True, text=True, timeout=a.timeout)
                fps = None
                for line in r.stdout.splitlines():
                    f = line.split("\t")
                    if f[0] == "session":
                        d = dict(zip(f[2::2], f[3::2]))
                        fps = int(d["frames"]) / float(d["seconds"])
                out["live"] = (fps, tree_peak_mb(server.pid), "") if fps else (None, None, (r.stderr.strip() or "no frames")[-160:])
            except subprocess.TimeoutExpired:
                out["live"] = (None, None, "timed out")
    except Exception as e:
        out.setdefault("service", (None, None, str(e)[:160]))
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    return out

def pymol_run(path, rep, scratch):
    script = os.path.join(scratch, "peer.pml")
    with open(script, "w") as f:
        f.write(f"load {path}, m\nhide everything\nshow {rep}\nutil.cbc\norient\nset ray_opaque_background, 1\n"
                f"ray 1024, 1024\npng {os.path.join(scratch, f'pymol-{rep}.png')}\n")
    return timed(["/usr/bin/pymol", "-cq", script], a.pymol_timeout, env=dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", "")))

files = ladder.files(a.corpus, a.work, a.sizes.split(","))
commands = a.commands.split(",")
rows = {}      # (size, command) -> (seconds or fps, peak MB, note)
atoms = {}
pymol_ok = {"spheres": not a.no_pymol and os.path.exists("/usr/bin/pymol"), "cartoon": not a.no_pymol and os.path.exists("/usr/bin/pymol")}
for size, path in files.items():
    n = atoms[size] = atoms_of(path)
    print(f"# {size}: {os.path.basename(path)}, {n:,} atoms", flush=True)
    scratch = tempfile.mkdtemp(prefix=f"scale-{size}-", dir=a.work)
    def run(cmd, argv):
        if cmd in commands:
            rows[(size, cmd)] = timed(argv, a.timeout)
            s, m, why = rows[(size, cmd)]
            print(f"#   {cmd}: " + (f"{s:.2f} s, {m:.0f} MB" if s is not None else f"failed: {why}"), flush=True)
    run("info", [a.molshot, "info", path])
    for mode in ("spacefill", "cartoon", "surface"):
        # --assembly model: the file's atoms as they are, as PyMOL loads it (the same work).
        run(mode, [a.molshot, "render", path, "--assembly", "model", "--mode", mode, "--size", "1024", "-o", os.path.join(scratch, f"{mode}.png")])
    if "thumbnails" in commands:
        src = os.path.join(scratch, "in")
        os.makedirs(src)
        os.symlink(path, os.path.join(src, os.path.basename(path)))
        run("thumbnails", [a.molshot, "thumbnails", src, "-o", os.path.join(scratch, "thumbs")])
    run("export", [a.molshot, "export", path, "--assembly", "model", "-o", os.path.join(scratch, "out.glb")])
    db = os.path.join(scratch, "library.sqlite")
    run("import", [a.molshot, "library", "import", "--db", db, path])
    if "load" in commands and rows.get((size, "import"), (None,))[0] is not None:
        s, m, out = timed([a.molshot, "measure-load", "--db", db, "--repeats", "1", path], a.timeout)
        if s is not None:
            d = dict(l.split("\t", 1) for l in out.splitlines())
            rows[(size, "load")] = (float(d["library"]), m, f"parse {float(d['files']):.2f} s")
            print(f"#   load: {float(d['library']):.2f} s from the library, {float(d['files']):.2f} s parsing the file", flush=True)
        else:
            rows[(size, "load")] = (None, None, out)
    if "service" in commands or "live" in commands:
        got = service_and_live(path, n, scratch, "service" in commands, "live" in commands)
        for k, v in got.items():
            rows[(size, k)] = v
            print(f"#   {k}: " + (f"{v[0]:.2f} {'frames/s' if k == 'live' else 's'}, {v[1]:.0f} MB" if v[0] is not None else f"failed: {v[2]}"), flush=True)
    for rep, key in (("spheres", "pymol-spacefill"), ("cartoon", "pymol-cartoon")):
        if pymol_ok[rep]:
            rows[(size, key)] = pymol_run(path, rep, scratch)
            s, m, why = rows[(size, key)]
            print(f"#   {key}: " + (f"{s:.2f} s, {m:.0f} MB" if s is not None else f"failed: {why}"), flush=True)
            if s is None:
                pymol_ok[rep] = False
    shutil.rmtree(scratch, ignore_errors=True)

# The table.
cols = [c for c in commands] + [k for k in ("pymol-spacefill", "pymol-cartoon") if any((s, k) in rows for s in files)]
print("\n| command | " + " | ".join(f"{s} ({atoms[s]:,})" for s in files) + " |")
print("|---|" + "---|" * len(files))
for c in cols:
    cells = []
    for s in files:
        v = rows.get((s, c))
        if v is None:
            cells.append("")
        elif v[0] is None:
            cells.append("fails: " + v[2][:40])
        elif c == "live":
            cells.append(f"{v[0]:.1f}/s")
        else:
            cells.append(f"{v[0]:.2f} s, {v[1]:.0f} MB")
    print(f"| {c} | " + " | ".join(cells) + " |")
print()

def slope(points):
    if len(points) < 2:
        return None
    xs, ys = [math.log(p[0]) for p in points], [math.log(p[1]) for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else None

for c in cols:
    # A live session's cost is its frame time, 1 / frames/s.
    pts = [(atoms[s], 1 / rows[(s, c)][0] if c == "live" else rows[(s, c)][0]) for s in files if atoms[s] >= 10_000 and rows.get((s, c), (None,))[0]]
    k = slope(pts)
    done = [s for s in files if rows.get((s, c), (None,))[0] is not None]
    if k is not None:
        first = [s for s in files if atoms[s] == pts[0][0]][0]
        print(f"RESULT suite=scale case=slope-{c} molshot={k:.2f}  # log time / log atoms over {len(pts)} sizes from {first} to {done[-1]} (target <= 1.1)")
    if done and rows[(done[-1], c)][1]:
        big = done[-1]
        print(f"RESULT suite=scale case=peak-bytes-per-atom-{c} molshot={rows[(big, c)][1] * 2**20 / atoms[big]:.0f}  # at {big} ({atoms[big]:,} atoms)")
if "3.1M" in files and rows.get(("3.1M", "spacefill"), (None,))[0]:
    print(f"RESULT suite=scale case=3M-spacefill-1024 molshot={rows[('3.1M', 'spacefill')][0]:.1f}  # seconds (target < 30)")
for s, case in (("59k", "live-60k-512"), ("284k", "live-capsid-512")):
    v = rows.get((s, "live"))
    if v and v[0]:
        print(f"RESULT suite=scale case={case} molshot={v[0]:.1f}  # frames/s of a live session over loopback (target {24 if s == '59k' else 10})")
for mode in ("spacefill", "cartoon"):
    for s in files:
        mine, theirs = rows.get((s, mode)), rows.get((s, f"pymol-{mode}"))
        if mine and theirs and mine[0] and theirs[0]:
            print(f"RESULT suite=scale case={s}-{mode}-1024 work=model molshot={mine[0]:.2f}s,{mine[1]:.0f}MB peer=pymol:{theirs[0]:.2f}s,{theirs[1]:.0f}MB "
                  f"ratio={theirs[0] / mine[0]:.1f}")
v, p = rows.get(("284k", "cartoon")), rows.get(("284k", "pymol-cartoon"))
if v and v[0]:
    print(f"RESULT suite=scale case=capsid-cartoon-1024 work=model molshot={v[0]:.2f}" + (f" peer=pymol:{p[0]:.2f} ratio={p[0] / v[0]:.1f}" if p and p[0] else ""))
