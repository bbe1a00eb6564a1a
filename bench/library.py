"""bench/run library: the molecule library over the corpus's structure files.
- import: MB/s of files imported into a new library, against `molshot info` reading the same
  files (parse and bonds, no writing);
- load: structures/s loaded with their bonds from the library, against parsing the files and
  perceiving bonds (one process, median of 5; target ratio >= 3);
- thumbnails from the library (`--library`) against from the files;
- the database's size against the files gzip'd."""
import argparse, csv, gzip, os, shutil, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()

rows = list(csv.DictReader(open(os.path.join(args.corpus, "MANIFEST.tsv")), delimiter="\t"))
files = [os.path.join(args.corpus, r["file"]) for r in rows]
megabytes = sum(os.path.getsize(f) for f in files) / 1e6

def timed(argv):
    t = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - t

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

work = tempfile.mkdtemp(prefix="bench-library-")
imports, infos = [], []
for i in range(args.rounds):
    db = os.path.join(work, f"import-{i}.sqlite")
    imports.append(timed([args.molshot, "library", "import", "--db", db] + files))
    infos.append(timed([args.molshot, "info"] + files))
db = os.path.join(work, "import-0.sqlite")
print(f"# library: {len(files)} files, {megabytes:.1f} MB as stored in the corpus; {args.rounds} rounds")
m, p = megabytes / median(imports), megabytes / median(infos)
print(f"RESULT suite=library case=import molshot={m:.1f} peer=info:{p:.1f} ratio={m / p:.2f}  # MB/s; import writes rows, originals and compact models, info only reads")

out = subprocess.run([args.molshot, "measure-load", "--db", db] + files, check=True, capture_output=True, text=True).stdout
d = dict(l.split("\t", 1) for l in out.splitlines())
n = int(d["structures"])
lib, fil = n / float(d["library"]), n / float(d["files"])
print(f"RESULT suite=library case=load molshot={lib:.1f} peer=file:{fil:.1f} ratio={lib / fil:.1f}  # structures/s with bonds; bonds {d['bonds']}")

from_files, from_library = [], []
for _ in range(args.rounds):
    for into, argv in ((from_files, files), (from_library, ["--library", "--db", db])):
        out_dir = tempfile.mkdtemp(prefix="bench-library-thumbs-", dir=work)
        into.append(timed([args.molshot, "thumbnails", "-o", out_dir, "--size", "256"] + argv))
        shutil.rmtree(out_dir, ignore_errors=True)
t_lib, t_fil = len(files) / median(from_library), len(files) / median(from_files)
print(f"RESULT suite=library case=thumbnails molshot={t_lib:.1f} peer=file:{t_fil:.1f} ratio={t_lib / t_fil:.2f}  # structures/s, both modes at 256")

subprocess.run([args.molshot, "measure-sql", "--db", db, "PRAGMA wal_checkpoint(TRUNCATE);"], check=True, capture_output=True)
size = os.path.getsize(db)
gz = 0
for f in files:
    data = open(f, "rb").read()
    gz += len(data) if data[:2] == b"\x1f\x8b" else len(gzip.compress(data, 6))
print(f"RESULT suite=library case=size molshot={size / 1e6:.1f} peer=gzip:{gz / 1e6:.1f} ratio={size / gz:.1f}  # MB: the database (rows, originals, compact models) against the files gzip'd")
shutil.rmtree(work, ignore_errors=True)
