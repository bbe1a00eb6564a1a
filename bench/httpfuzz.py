#!/usr/bin/env python3
"""An HTTP fuzz run against a live `molshot serve` on 127.0.0.1: every route with generated values
(0, negative, 1e308, NaN, inf, huge lists, long strings, bad UTF-8, deep JSON, odd methods and
heads), counting answers by status. Prints one RESULT line; exits 1 on a crash (the server gone),
an unexpected 5xx (anything but 503 and 507), or RSS past --max-rss-mb.

    bench/httpfuzz.py --molshot .build/release/molshot --root . --requests 100000
"""
import argparse, http.client, os, random, socket, subprocess, sys, tempfile, threading, time

ROUTES = [
    ("GET", "/healthz"), ("GET", "/metrics"), ("GET", "/openapi.yaml"),
    ("GET", "/v1/molecules"), ("POST", "/v1/molecules"), ("GET", "/v1/molecules/{id}"), ("DELETE", "/v1/molecules/{id}"),
    ("GET", "/v1/molecules/{id}/image"), ("POST", "/v1/render"), ("POST", "/v1/replay"), ("POST", "/v1/entities"),
    ("GET", "/v1/sessions"), ("GET", "/v1/sessions/{id}/events"), ("GET", "/v1/thumbnails/{name}"),
    ("GET", "/v1/pathways"), ("GET", "/v1/pathways/{id}"), ("GET", "/v1/pathways/{id}/node"), ("GET", "/v1/pathways/{id}/image"),
    ("GET", "/v1/pathways/{id}/tiles/{z}/{x}/{y}"), ("GET", "/"), ("GET", "/index.html"),
]
PARAMETERS = ["size", "mode", "scale", "region", "theme", "zoom", "rotate", "pan", "color", "background", "x", "y", "tolerance",
              "limit", "offset", "query", "fps", "molecule", "pathway", "name", "private", "show", "look", "outline", "occlusion",
              "antialias", "png-level", "record", "samples", "format", "depth-cue", "hydrogens", "waters", "view"]
NUMBERS = ["0", "-1", "1", "-0", "1e308", "-1e308", "1e-308", "NaN", "nan", "inf", "-inf", "Infinity", "99999999999999999999999",
           "9223372036854775807", "-9223372036854775808", "0x10", "1e20", "3.5", "", "64", "256", "4096", "8193", "1,2", "1,2,3",
           "nan,nan,nan", "1e308,1e308,1e308,1e308", "0,0,1e308,1e308", "-1e308,0,1e308,1e308", "64x64", "0x0", "1e308x1",
           ",".join(["1"] * 5000)]
WORDS = ["sbgn_glycolysis", "1", "1crn", "crambin", "..", "../../etc/passwd", "%2e%2e%2f", "%00", "%ff%fe", "a" * 5000,
         "\u00e9", "lib:1", "/etc/passwd", "ball-and-stick", "spacefill", "cartoon", "auto", "chain", "red", "#ff0000", "true"]


def value(rng):
    return rng.choice(NUMBERS + WORDS) if rng.random() < 0.8 else "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(1, 40)))


def quote(text):
    out = []
    for b in text.encode("utf-8", "surrogatepass"):
        out.append(chr(b) if (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b in b"-._~,") else "%%%02X" % b)
    return "".join(out)


def body(rng, root):
    kind = rng.randrange(9)
    if kind == 0: return b""
    if kind == 1: return open(os.path.join(root, "Tests/Fixtures/Caffeine.pdb"), "rb").read()
    if kind == 2: return b"[" * 5000 + b"]" * 5000
    if kind == 3: return b'{"requestKey":' + rng.choice([b'"CATEGORIES"', b'"DRILL","entities":[{"PERM_ID":"MOLECULE:1"}]', b'"DETAIL","IMAGES":"DATA","entities":[{"PERM_ID":"PATHWAY:sbgn_glycolysis"}]', b'1e308', b'null']) + b"}"
    if kind == 4: return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2000)))
    if kind == 5:
        return ('{"type":"header","version":1,"viewport":{"width":%s,"height":100}}\n{"t":%s,"type":"touch","phase":"began","id":1,"x":%s,"y":5}\n{"t":1,"type":"frame"}\n'
                % (rng.choice(NUMBERS[:12]), rng.choice(NUMBERS[:12]), rng.choice(NUMBERS[:12]))).encode()
    if kind == 6: return b"\x1f\x8b\x08\x00" + bytes(rng.randrange(256) for _ in range(200))
    if kind == 7: return b"ATOM      1  CA  ALA A   1    1e308   nan   inf  1.00  0.00           C\n" * 3
    return ("\ud800" * 3).encode("utf-8", "surrogatepass")


def request(rng, root):
    method, template = rng.choice(ROUTES)
    if rng.random() < 0.05: method = rng.choice(["PUT", "PATCH", "OPTIONS", "HEAD", "TRACE", "DELETE"])
    path = template
    for part in ("{id}", "{name}", "{z}", "{x}"):
        path = path.replace(part, quote(value(rng)))
    path = path.replace("{y}", quote(value(rng)) + rng.choice([".png", ""]))
    query = "&".join("%s=%s" % (rng.choice(PARAMETERS), quote(value(rng))) for _ in range(rng.randrange(0, 5)))
    if rng.random() < 0.02: query += "&q=" + "x" * 50000
    headers = {}
    if rng.random() < 0.3: headers["Authorization"] = rng.choice(["Bearer x", "Bearer", "Basic Zm9vOmJhcg==", "bearer " + "a" * 3000])
    if rng.random() < 0.1: headers["If-None-Match"] = rng.choice(["*", 'W/"x"', '"' + "a" * 100 + '"'])
    if rng.random() < 0.1: headers["Range"] = rng.choice(["bytes=0-0", "bytes=-1", "bytes=99999999999999999999-", "bytes=5-1", "bytes=0-1,2-3"])
    if rng.random() < 0.1: headers["Accept"] = "application/json"
    data = body(rng, root) if method in ("POST", "PUT", "PATCH") else None
    return method, path + ("?" + query if query else ""), headers, data


def rss_mb(pid):
    try:
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"): return int(line.split()[1]) / 1024
    except OSError:
        return -1
    return -1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--molshot", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--requests", type=int, default=100000)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-rss-mb", type=float, default=1500)
    a = p.parse_args()
    scratch = tempfile.mkdtemp(prefix="molshot-httpfuzz-")
    db = os.path.join(scratch, "library.sqlite")
    subprocess.run([a.molshot, "library", "import", "--db", db, os.path.join(a.root, "Tests/Fixtures/1crn.pdb")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = subprocess.Popen([a.molshot, "serve", "--port", "0", "--db", db, "--pathways", os.path.join(a.root, "Tests/Fixtures/pathways"),
                               "--max-side", "1024", "--render-seconds", "10"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=a.root)
    line = server.stdout.readline().decode()
    port = int(line.rsplit(":", 1)[1])
    counts, unexpected, lock = {}, [], threading.Lock()
    per = a.requests // a.threads
    peak = [0.0]
    start = time.time()

    def worker(k):
        rng = random.Random(a.seed * 1000 + k)
        conn = None
        for _ in range(per):
            method, path, headers, data = request(rng, a.root)
            status = "error"
            try:
                if conn is None: conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request(method, path, body=data, headers=headers)
                r = conn.getresponse()
                r.read()
                status = r.status
                if r.getheader("Connection", "").lower() == "close": conn.close(); conn = None
            except (OSError, http.client.HTTPException):
                if conn: conn.close()
                conn = None
            with lock:
                counts[status] = counts.get(status, 0) + 1
                if isinstance(status, int) and status >= 500 and status not in (503, 507):
                    unexpected.append((status, method, path[:120]))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(a.threads)]
    for t in threads: t.start()
    while any(t.is_alive() for t in threads):
        peak[0] = max(peak[0], rss_mb(server.pid))
        time.sleep(0.5)
    seconds = time.time() - start
    alive = server.poll() is None
    healthy = False
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10); c.request("GET", "/healthz"); healthy = c.getresponse().status == 200
    except OSError:
        pass
    server.terminate(); server.wait(30)
    total = sum(counts.values())
    print("statuses: " + " ".join("%s:%d" % (k, v) for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))), file=sys.stderr)
    for u in unexpected[:20]: print("unexpected: %s %s %s" % u, file=sys.stderr)
    crashes = 0 if alive and healthy else 1
    print("RESULT suite=httpfuzz case=all-routes requests=%d seconds=%.1f crashes=%d unexpected5xx=%d peak_rss_mb=%.0f"
          % (total, seconds, crashes, len(unexpected), peak[0]))
    sys.exit(1 if crashes or unexpected or peak[0] > a.max_rss_mb else 0)


if __name__ == "__main__":
    main()
