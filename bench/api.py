#!/usr/bin/env python3
"""Schemathesis against the live service: starts `molshot serve` on 127.0.0.1 over a library of
the test fixtures and the fixture pathways, and checks every operation of /openapi.yaml with
generated requests: no 5xx, status codes, content types, headers and bodies as the spec says.
Prints `RESULT suite=api case=schemathesis molshot=<failures> failures peer=none ratio=n/a`."""
import argparse, os, re, shutil, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--molshot", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--examples", type=int, default=30)
    a = ap.parse_args()
    st = shutil.which("schemathesis")
    if not st:
        print("bench: schemathesis is not installed (pip install schemathesis)", file=sys.stderr)
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="molshot-api-")
    db = os.path.join(work, "library.sqlite")
    fixtures = os.path.join(a.root, "Tests", "Fixtures")
    subprocess.run([a.molshot, "library", "import", os.path.join(fixtures, "1crn.pdb"), os.path.join(fixtures, "TYR.sdf"), "--db", db],
                   check=True, stdout=subprocess.DEVNULL)
    thumbs = os.path.join(work, "thumbs")
    subprocess.run([a.molshot, "thumbnails", "--library", "--db", db, "-o", thumbs, "--size", "64"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = subprocess.Popen([a.molshot, "serve", "--db", db, "--port", "0", "--thumbnails", thumbs,
                               "--pathways", os.path.join(fixtures, "pathways")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        port = re.search(r":(\d+)\s*$", line).group(1)
        checks = ("not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,"
                  "negative_data_rejection,unsupported_method")
        run = subprocess.run([st, "run", f"http://127.0.0.1:{port}/openapi.yaml", "--checks", checks,
                              "--max-examples", str(a.examples), "--phases", "examples,coverage,fuzzing"],
                             capture_output=True, text=True, timeout=900)
        sys.stderr.write(run.stdout[-6000:])
        found = re.search(r"(\d+) failures?", run.stdout.splitlines()[-1] if run.stdout else "")
        failures = int(found.group(1)) if found else (0 if run.returncode == 0 else -1)
        print(f"RESULT suite=api case=schemathesis molshot={failures} failures peer=none ratio=n/a")
        sys.exit(0 if failures == 0 else 1)
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
