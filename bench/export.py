"""bench/run export: `molshot export` of 1crn and 1ffk to GLB (ball-and-stick, medium detail), whole
process, against PyMOL saving the same structure's sticks and spheres (`show sticks; show spheres;
set sphere_scale 0.25; save OUT.dae` and `.obj`) in the same run; then the files molshot wrote,
in every format, opened with trimesh, pygltflib and pycollada (PyPI; installed when missing)."""
import argparse, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--rounds", type=int, default=3)
args = ap.parse_args()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import runners

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

out = tempfile.mkdtemp(prefix="bench-export-")
have_pymol = shutil.which("pymol", path=runners.env["PATH"]) is not None
try:
    print("# export: whole-process seconds, median of rounds; PyMOL shows sticks and quarter spheres (its ball-and-stick) and saves")
    for name in ("1crn.pdb", "1ffk.cif.gz"):
        path = os.path.join(args.corpus, name)
        if not os.path.exists(path):
            continue
        stem = name.split(".")[0]
        # --assembly model: the deposited model, as PyMOL loads the file (the same work).
        mine = [runners.timed([args.molshot, "export", path, "--assembly", "model", "-o", os.path.join(out, f"{stem}.glb")])[0] for _ in range(args.rounds)]
        m = median([t for t in mine if t is not None])
        if not have_pymol:
            print(f"RESULT suite=export case={stem}-glb molshot={m:.3f}s  # PyMOL not installed")
            continue
        for ext in ("dae", "obj"):
            script = f"hide everything; show sticks; show spheres; set sphere_scale, 0.25; save {os.path.join(out, stem + '-pymol.' + ext)}"
            theirs = [runners.timed(["pymol", "-cq", path, "-d", script])[0] for _ in range(args.rounds)]
            theirs = [t for t in theirs if t is not None]
            if not theirs:
                print(f"RESULT suite=export case={stem}-glb molshot={m:.3f}s  # PyMOL failed to save .{ext}")
                continue
            p = median(theirs)
            note = ""
            if ext == "obj":
                # What PyMOL's file holds: headless, sticks and spheres are never tessellated.
                faces = sum(1 for line in open(os.path.join(out, stem + "-pymol.obj")) if line.startswith("f "))
                note = f"; PyMOL's OBJ holds {faces} triangles (molshot's GLB: the meshes drawn)"
            print(f"RESULT suite=export case={stem}-glb-vs-{ext} work=model molshot={m:.3f}s peer=pymol-{ext}:{p:.3f}s ratio={p / m:.1f}  # target >= 5{note}")
    # The files open in standard tools.
    try:
        import trimesh, pygltflib, collada
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "trimesh", "pygltflib", "pycollada"], check=False)
        import trimesh, pygltflib, collada
    crambin = os.path.join(args.corpus, "1crn.pdb")
    ok = True
    for ext in ("glb", "gltf", "dae", "obj", "stl"):
        f = os.path.join(out, "check." + ext)
        subprocess.run([args.molshot, "export", crambin, "-o", f], check=True, capture_output=True)
        scene = trimesh.load(f)
        faces = sum(len(g.faces) for g in scene.geometry.values()) if hasattr(scene, "geometry") else len(scene.faces)
        opened = faces > 0
        if ext in ("glb", "gltf"):
            opened = opened and len(pygltflib.GLTF2().load(f).meshes) > 0
        if ext == "dae":
            opened = opened and len(collada.Collada(f).geometries) > 0
        ok = ok and opened
        print(f"# {ext}: {'opens' if opened else 'DOES NOT OPEN'} ({faces} triangles in trimesh)")
    print(f"RESULT suite=export case=standard-tools molshot={'all-open' if ok else 'FAILED'}")
finally:
    shutil.rmtree(out, ignore_errors=True)
