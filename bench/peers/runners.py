"""Peers that make the same thumbnails as molshot: PyMOL (ray-traced) and JmolData, each in one
process over all files, PNGs written. Shared by bench/render.py and bench/thumbnails.py."""
import json, os, resource, shutil, subprocess, time

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))


def timed(argv, environment=None):
    """(wall seconds, CPU seconds of the child, stdout); wall is None if it failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, env=environment or env)
    elapsed = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        print(f"# {argv[0]} failed: {p.stderr.strip()[-300:]}")
        return None, cpu, p.stdout
    return elapsed, cpu, p.stdout


def pymol(files, out, size, modes="ball-and-stick,spacefill", assembly=None):
    """PyMOL's thumbnails of `files`; `assembly` ("1"): each mmCIF file's assembly of that id
    (PyMOL's `set assembly`, which it builds from mmCIF only), else the deposited model."""
    with open(os.path.join(out, "files.json"), "w") as f:
        json.dump(files, f)
    e = dict(env, PEER_FILES=os.path.join(out, "files.json"), PEER_OUT=out, PEER_SIZE=str(size), PEER_MODES=modes, PEER_ASSEMBLY=assembly or "")
    return timed(["pymol", "-cq", os.path.join(here, "pymol_thumbnails.py")], e)


def jmol(files, out, size, assembly=None):
    """JmolData's thumbnails; `assembly` ("1"): each file's biological assembly of that id
    (Jmol's `load ... FILTER "biomolecule N"`), else the deposited model."""
    script = os.path.join(out, "thumbnails.spt")
    with open(script, "w") as f:
        f.write("set antialiasImages true\nbackground white\n")
        for i, path in enumerate(files):
            f.write(f'load "{path}"' + (f' FILTER "biomolecule {assembly}"' if assembly else "") + '\ndelete hydrogen or water\n')
            f.write(f'spacefill 23%\nwireframe 0.15\nwrite image {size} {size} png "{out}/{i:03d}.ball-and-stick.png"\n')
            f.write(f'spacefill 100%\nwireframe off\nwrite image {size} {size} png "{out}/{i:03d}.spacefill.png"\n')
        f.write("exit\n")
    return timed(["java", "-Xmx4g", "-jar", "/usr/share/jmol/JmolData.jar", "-n", "-s", script, "-x"])


def available():
    """The peers installed here, by name."""
    found = {}
    if shutil.which("pymol", path=env["PATH"]):
        found["pymol-ray"] = pymol
    if shutil.which("java", path=env["PATH"]) and os.path.exists("/usr/share/jmol/JmolData.jar"):
        found["jmol"] = jmol
    return found


def baseline():
    """Another molshot binary to compare with in the same run (an earlier commit's build), from
    $MOLSHOT_BASELINE; it is reported as the peer "baseline"."""
    path = os.environ.get("MOLSHOT_BASELINE")
    return path if path and os.access(path, os.X_OK) else None
