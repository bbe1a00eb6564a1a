"""bench/run library at scale (LIBRARY_ENTRIES=N, default 20000): a collection made from the
corpus's PDB and mmCIF files under 20,000 atoms, repeated with new ids (X + 3 base-36 digits
in HEADER, data_ and _entry.id) and every coordinate moved by a random -0.020..+0.020 A in
the file's own text (so no two entries are the same structure), each written gzip'd (level
6) as the PDB distributes them. Then, on that collection:
- size: the library against the gzip'd files;
- import: MB/s (gzip'd) into a new library against `molshot info` on the same files;
- load: structures/s from the library against the files (a sample of 300);
- query: p99 of `library list --query` (the whole process) and of /v1/molecules?query= on a
  running service (200 queries each, words from titles, authors and ligands)."""
import argparse, csv, gzip, os, random, re, shutil, socket, subprocess, sys, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--entries", type=int, default=int(os.environ.get("LIBRARY_ENTRIES", "20000")))
ap.add_argument("--keep", help="make the collection here and keep it (made again only if missing)")
a = ap.parse_args()
rng = random.Random(7)

rows = list(csv.DictReader(open(os.path.join(a.corpus, "MANIFEST.tsv")), delimiter="\t"))
sources = []
for r in rows:
    if r["format"] in ("PDB", "mmCIF") and int(r["atoms_model1"] or 0) < 20000:
        f = os.path.join(a.corpus, r["file"])
        data = open(f, "rb").read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        sources.append((r["format"], data.decode("latin-1")))
work = a.keep or tempfile.mkdtemp(prefix="bench-library-scale-")
os.makedirs(work, exist_ok=True)

def b36(k):
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(digits[(k // 36 ** i) % 36] for i in (2, 1, 0))

def moved(text):
    v = float(text)
    return v + rng.randint(-20, 20) / 1000

def pdb_copy(text, new_id):
    out = []
    for line in text.split("\n"):
        if line.startswith("HEADER") and len(line) >= 66:
            line = line[:62] + new_id + line[66:]
        elif line.startswith(("ATOM  ", "HETATM")) and len(line) >= 54:
            try:
                xyz = "".join("%8.3f" % moved(line[30 + 8 * i:38 + 8 * i]) for i in range(3))
                line = line[:30] + xyz + line[54:]
            except ValueError:
                pass
        out.append(line)
    return "\n".join(out)

def cif_copy(text, new_id):
    out, tags, in_site = [], [], False
    for line in text.split("\n"):
        if line.startswith("data_"):
            line = "data_" + new_id
        elif line.startswith("_entry.id"):
            line = "_entry.id   " + new_id
        elif line.startswith("_atom_site."):
            tags.append(line.split()[0]); in_site = True
        elif in_site and tags and line and not line.startswith(("#", "_", "loop_")):
            spans = [m.span() for m in re.finditer(r"\S+", line)]
            if len(spans) == len(tags):
                # The moved values in place of the old, the columns' padding kept.
                for t in ("_atom_site.Cartn_x", "_atom_site.Cartn_y", "_atom_site.Cartn_z"):
                    if t in tags:
                        i = tags.index(t)
                        a0, a1 = spans[i]
                        try: v = "%.3f" % moved(line[a0:a1])
                        except ValueError: continue
                        end = a1
                        while len(v) > end - a0 and end < len(line) - 1 and line[end] == " " and line[end + 1] == " ":
                            end += 1
                        v = v.ljust(end - a0)
                        line = line[:a0] + v + line[end:]
                        shift = len(v) - (end - a0) + (end - a1)
                        spans = [(x + (len(v) - (end - a0)), y + (len(v) - (end - a0))) if k > i else (x, y) for k, (x, y) in enumerate(spans)]
        elif in_site and (line.startswith(("#", "loop_")) or line.startswith("_") and not line.startswith("_atom_site.")):
            in_site, tags = False, []
        out.append(line)
    return "\n".join(out)

files = []
t0 = time.time()
for k in range(a.entries):
    fmt, text = sources[k % len(sources)]
    new_id = "X" + b36(k)
    name = os.path.join(work, f"{new_id.lower()}.{'pdb' if fmt == 'PDB' else 'cif'}.gz")
    files.append(name)
    if not os.path.exists(name):
        body = (pdb_copy if fmt == "PDB" else cif_copy)(text, new_id)
        with open(name + ".part", "wb") as f:
            f.write(gzip.compress(body.encode("latin-1"), 6))
        os.rename(name + ".part", name)
gz = sum(os.path.getsize(f) for f in files)
print(f"# library at scale: {len(files)} entries from {len(sources)} corpus files, {gz / 1e6:.0f} MB gzip'd (made in {time.time() - t0:.0f} s)")
listing = os.path.join(work, "files.txt")
open(listing, "w").write("\n".join(files) + "\n")

def timed(argv, **kw):
    t = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    return time.perf_counter() - t

db = os.path.join(tempfile.mkdtemp(prefix="bench-library-db-"), "library.sqlite")
t_import = timed([a.molshot, "library", "import", "--db", db, "@" + listing])
t_info = timed([a.molshot, "info"] + files)
subprocess.run([a.molshot, "measure-sql", "--db", db, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True, capture_output=True)
size = os.path.getsize(db)
print(f"RESULT suite=library case=scale-size molshot={size / 1e6:.0f} peer=gzip:{gz / 1e6:.0f} ratio={size / gz:.2f}  # MB at {len(files)} entries; target <= 1.0")
print(f"RESULT suite=library case=scale-import molshot={gz / 1e6 / t_import:.1f} peer=info:{gz / 1e6 / t_info:.1f} ratio={t_info / t_import:.2f}  # MB/s of gzip'd files; target >= 0.5")

sample = rng.sample(files, min(300, len(files)))
out = subprocess.run([a.molshot, "measure-load", "--db", db, "--repeats", "3"] + sample, check=True, capture_output=True, text=True).stdout
d = dict(l.split("\t", 1) for l in out.splitlines())
n = int(d["structures"])
print(f"RESULT suite=library case=scale-load molshot={n / float(d['library']):.0f} peer=file:{n / float(d['files']):.0f} ratio={float(d['files']) / float(d['library']):.1f}  # structures/s, {n} sampled; target >= 10")

words = ["protein", "hydrolase", "kinase", "hendrickson", "HEM", "DNA", "x0a1", "lysozyme", "crambin", "complex"]
def p99(times):
    times = sorted(times)
    return times[min(len(times) - 1, int(len(times) * 0.99))]
cli = [timed([a.molshot, "library", "list", "--db", db, "--limit", "20", "--query", words[i % len(words)]]) for i in range(200)]
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
server = subprocess.Popen([a.molshot, "serve", "--port", str(port), "--db", db], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read(); break
        except Exception:
            time.sleep(0.1)
    http = []
    for i in range(200):
        t = time.perf_counter()
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/molecules?limit=20&query={words[i % len(words)]}", timeout=10).read()
        http.append(time.perf_counter() - t)
finally:
    server.terminate(); server.wait()
print(f"RESULT suite=library case=scale-query-cli molshot={p99(cli) * 1000:.1f} ratio={p99(cli) * 1000 / 50:.2f}  # ms p99 of the whole `library list --query` process at {len(files)} entries; target < 50 ms")
print(f"RESULT suite=library case=scale-query-http molshot={p99(http) * 1000:.1f} ratio={p99(http) * 1000 / 50:.2f}  # ms p99 of /v1/molecules?query= at {len(files)} entries; target < 50 ms")
shutil.rmtree(os.path.dirname(db), ignore_errors=True)
if not a.keep:
    shutil.rmtree(work, ignore_errors=True)
