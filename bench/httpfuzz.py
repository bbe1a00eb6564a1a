#!/usr/bin/env python3
"""An HTTP fuzz run against a live `molshot serve` on 127.0.0.1: every route with generated values
(0, negative, 1e308, NaN, inf, huge lists, long strings, bad UTF-8, deep JSON, odd methods and
heads), and cases that know the grammars (selections nested deep, `around` nested, many shows,
replays with events far in time and long type names, entities repeated, pictures past the sample
budget, ranges, raw heads nginx refuses; replays of millions of empty lines, lines past their bound,
movies past their pixels, resizes past the samples after heavy settings; checkerboard maps of
millions of triangles; atoms piled at one point; live sessions flooded with tiny lines), counting
answers by status. The server runs under an
address-space cap (RLIMIT_AS, --address-space-mb, 2 GB: a request that asked for more memory than
that would end it). Prints one RESULT line; exits 1 on a crash (the server gone), an unexpected 5xx
(anything but 503 and 507), or RSS past --max-rss-mb.

    bench/httpfuzz.py --molshot .build/release/molshot --root . --requests 100000
"""
import argparse, base64, gzip, http.client, os, random, resource, socket, struct, subprocess, sys, tempfile, threading, time

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


def selection(rng, depth=0):
    """A selection as the grammar reads it, sometimes far past its limits (at most a few KB:
    only the outermost level repeats its parts)."""
    kind = rng.randrange(8)
    if depth > 3 or kind == 0: return rng.choice(["all", "polymer", "chain A", "resi 1-10", "resn CYS", "name CA", "elem S", "water", "ligand"])
    if kind == 1: return "(" * (n := rng.choice([3, 33, 1000, 5000])) + "all" + ")" * n
    if kind == 2: return "(" + selection(rng, depth + 1) + " around " + rng.choice(["1", "5", "1e30", "1000"]) + ")"
    if kind == 3: return "within " + rng.choice(["0", "4", "1e30", "1e308", "nan"]) + " of " + selection(rng, depth + 1)
    if kind == 4: return "not " * rng.choice([1, 40, 600]) + selection(rng, depth + 1)
    if kind == 5: return " or ".join(selection(rng, 4) for _ in range(rng.choice([2, 300]) if depth == 0 else 2))
    if kind == 6: return "byres " + selection(rng, depth + 1)
    s = "resi 10"
    for _ in range(rng.choice([10, 30, 40])): s = "(" + s + " around 1)"
    return s


def pack(v):
    """MessagePack, as much of it as BinaryCIF uses (no package needed)."""
    import struct
    if v is None: return b"\xc0"
    if isinstance(v, bool): return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        if 0 <= v < 128: return bytes([v])
        if -(1 << 31) <= v < (1 << 31): return b"\xd2" + struct.pack(">i", v)
        if v >= 1 << 63: return b"\xcf" + struct.pack(">Q", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(v, float): return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, str): v = v.encode(); return b"\xdb" + struct.pack(">I", len(v)) + v
    if isinstance(v, bytes): return b"\xc6" + struct.pack(">I", len(v)) + v
    if isinstance(v, list): return b"\xdd" + struct.pack(">I", len(v)) + b"".join(pack(x) for x in v)
    return b"\xdf" + struct.pack(">I", len(v)) + b"".join(pack(k) + pack(x) for k, x in v.items())


def bcif_upload(rng):
    """A BinaryCIF document whose sizes and encodings lie: rows past what its bytes could hold,
    runs that overflow through Delta, many columns of many rows, string arrays that point past
    their text, a document of millions of tiny values, nesting past any depth."""
    import struct
    i32 = lambda *v: struct.pack("<%di" % len(v), *v)
    byte_array = {"kind": "ByteArray", "type": 3}
    rows = rng.choice([1, 10, 1 << 20, 1 << 40, (1 << 63) - 1])
    kind = rng.randrange(6)
    if kind == 0:
        columns = [{"name": "Cartn_x", "data": {"data": i32(1, rows % (1 << 31)), "encoding": [{"kind": "RunLength", "srcType": 3, "srcSize": rows}, byte_array]}}]
    elif kind == 1:
        columns = [{"name": "id", "data": {"data": i32(0, 5), "encoding": [{"kind": "RunLength", "srcType": 3, "srcSize": 1},
                                                                            {"kind": "Delta", "origin": (1 << 63) - 6, "srcType": 3}, byte_array]}}]
    elif kind == 2:
        columns = [{"name": "c%d" % k, "data": {"data": i32(1, 10000000), "encoding": [{"kind": "RunLength", "srcType": 3, "srcSize": 10000000}, byte_array]}}
                   for k in range(40)]
        rows = 10000000
    elif kind == 3:
        columns = [{"name": "type_symbol", "data": {"data": i32(0), "encoding": [{"kind": "StringArray", "dataEncoding": [byte_array], "stringData": "",
                                                                                 "offsetEncoding": [byte_array], "offsets": i32(0, rng.choice([0, 9, -1]))}]}}]
        rows = 1
    elif kind == 4:
        return b"\x81\xaadataBlocks\xdd" + struct.pack(">I", 5000000) + b"\x01" * 5000000
    else:
        return b"\x81\xaadataBlocks" + b"\x91" * 100000 + b"\xc0"
    doc = {"dataBlocks": [{"header": "X", "categories": [{"name": "_atom_site", "rowCount": rows, "columns": columns}]}]}
    return pack(doc)


def assembly_upload(rng):
    """An mmCIF of one atom whose assemblies' expressions and tables reach past the limits."""
    expression = rng.choice(["-9223372036854775808-0", "0-9223372036854775807", "(1-46)(1-46)(1-46)", "(1-60)(61-88)", "(1-5)" * 9,
                             "1-100000", "(" * 50, "1," * 20000 + "1"])
    gen_rows = rng.choice([1, 300, 20000])
    assemblies = rng.choice([1, 20, 20000])
    text = ["data_X", "loop_", "_atom_site.group_PDB", "_atom_site.id", "_atom_site.type_symbol", "_atom_site.label_atom_id",
            "_atom_site.label_comp_id", "_atom_site.label_asym_id", "_atom_site.label_seq_id", "_atom_site.Cartn_x", "_atom_site.Cartn_y",
            "_atom_site.Cartn_z", "ATOM 1 C CA ALA A 1 1.0 0.0 0.0", "loop_", "_pdbx_struct_assembly.id"]
    text += [str(k + 1) for k in range(assemblies)]
    text += ["loop_", "_pdbx_struct_assembly_gen.assembly_id", "_pdbx_struct_assembly_gen.oper_expression", "_pdbx_struct_assembly_gen.asym_id_list"]
    text += ["%d '%s' A" % (k % assemblies + 1, expression) for k in range(gen_rows)]
    text += ["loop_", "_pdbx_struct_oper_list.id", "_pdbx_struct_oper_list.matrix[1][1]", "_pdbx_struct_oper_list.matrix[2][2]",
             "_pdbx_struct_oper_list.matrix[3][3]"]
    text += ["%d 1 1 1" % (k + 1) for k in range(100)]
    return ("\n".join(text) + "\n").encode()


def comp_upload(rng):
    """SBML comp whose instances multiply or copy millions of elements from a small file."""
    species = "".join('<species id="s%d" compartment="c"/>' % k for k in range(rng.choice([10, 10000])))
    instances = "".join('<comp:submodel comp:id="m%d" comp:modelRef="big"/>' % k for k in range(rng.choice([2, 999])))
    return ('<sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1" '
            'xmlns:comp="http://www.sbml.org/sbml/level3/version1/comp/version1"><model id="top"><comp:listOfSubmodels>%s'
            '</comp:listOfSubmodels></model><comp:listOfModelDefinitions><comp:modelDefinition id="big"><listOfSpecies>%s</listOfSpecies>'
            '</comp:modelDefinition></comp:listOfModelDefinitions></sbml>' % (instances, species)).encode()


def ws_frame(payload, opcode=1):
    """One masked client frame (RFC 6455)."""
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 65536
                                      else bytes([0x80 | 127]) + n.to_bytes(8, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def checkerboard_map(n):
    """A gzip CCP4/MRC map of n^3 alternating 0 and 1: at level 0.5 every cube is cut."""
    header = bytearray(1024)
    struct.pack_into("<3i", header, 0, n, n, n); struct.pack_into("<i", header, 12, 2); struct.pack_into("<3i", header, 28, n, n, n)
    struct.pack_into("<3f", header, 40, n, n, n); struct.pack_into("<3f", header, 52, 90, 90, 90); struct.pack_into("<3i", header, 64, 1, 2, 3)
    header[208:212] = b"MAP "; header[212:216] = bytes([0x44, 0x44, 0, 0])
    values = b"".join(struct.pack("<f", (x + y + z) % 2) for z in range(n) for y in range(n) for x in range(n))
    return gzip.compress(bytes(header) + values, 6)


HOSTILE = {}


def hostile(name, make):
    if name not in HOSTILE:
        HOSTILE[name] = make()
    return HOSTILE[name]


def grammar_request(rng, root):
    """A request built to reach past one of the service's limits."""
    kind = rng.randrange(15)
    header = '{"type":"header","version":1,"viewport":{"width":100,"height":100}}\n'
    if kind == 10:
        # Replays: millions of empty lines; one line past the event message bytes; a movie past its pixels.
        return rng.choice([
            ("POST", "/v1/replay?molecule=1&size=32", {}, header.encode() + b"\n" * rng.choice([300000, 24 << 20])),
            ("POST", "/v1/replay?molecule=1&size=32", {}, header.encode() + b" " * ((1 << 20) + 1)),
            ("POST", "/v1/replay?molecule=1&format=" + rng.choice(["mp4", "webm", "gif"]) + "&size=" + rng.choice(["4096", "2049x2048", "64"]), {},
             (header + '{"type":"frame","t":0.1}\n{"type":"frame","t":0.2}\n').encode())])
    if kind == 11:
        # A resize past the samples or the side, after heavy settings, and after the first frame.
        side = rng.choice(["4096", "8192", "1e308", "-5", "300"])
        return ("POST", "/v1/replay?molecule=1&size=16&antialias=4&occlusion=1&outline=16&fps=" + rng.choice(["10", "60"]), {},
                (header + '{"type":"frame","t":0.1}\n{"type":"resize","t":0.2,"width":%s,"height":%s}\n{"type":"frame","t":0.3}\n' % (side, side)).encode())
    if kind == 12:
        # Maps: a checkerboard whose surface is millions of triangles.
        return ("POST", "/v1/render?size=64&level=" + rng.choice(["0.5", "0.1", "1.5s", "1000A3"]) + "&name=x.map.gz", {},
                hostile("map%d" % (kind,), lambda: checkerboard_map(120)))
    if kind == 13:
        # Atoms piled at one point (bond perception's one cell, every sphere filling the picture).
        return ("POST", "/v1/render?size=256&name=pile.pdb.gz", {}, hostile("pile", lambda: gzip.compress("".join(
            "HETATM%5d  C   LIG A   1       1.000   2.000   3.000  1.00  0.00           C\n" % (i % 100000) for i in range(50000)).encode(), 6)))
    if kind == 14:
        # A live session flooded with tiny lines, heavy settings and a resize past them.
        key = base64.b64encode(os.urandom(16))
        upgrade = (b"GET /v1/sessions?molecule=1&size=16&antialias=4&occlusion=1&outline=16 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                   b"Connection: Upgrade\r\nSec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n\r\n")
        lines = rng.choice([b"x\n" * 60000, header.encode() + b'{"type":"resize","t":0.2,"width":4096,"height":4096}\n', b"\n" * 60000])
        return "RAW", upgrade + ws_frame(header.encode()) + ws_frame(lines), {}, None
    if kind == 7:
        return "POST", "/v1/render?name=x.bcif&size=32", {}, bcif_upload(rng)
    if kind == 8:
        return "POST", "/v1/render?name=x.cif&size=32&assembly=" + rng.choice(["1", "2", "auto"]), {}, assembly_upload(rng)
    if kind == 9:
        return "POST", "/v1/render?name=x.xml&size=32", {}, comp_upload(rng)
    if kind == 0:
        shows = "&".join("show=" + quote(rng.choice(["cartoon", "spacefill", "sticks"]) + ": " + selection(rng)) for _ in range(rng.choice([1, 2, 20])))
        return "GET", "/v1/molecules/1/image?size=64&" + shows, {}, None
    if kind == 1:
        t = rng.choice(["1e300", "1e20", "11", "0.5", "-1", "1e-300"])
        kind_name = rng.choice(["rotate", "x" * 100000, "pinch"])
        events = '{"type":"header","version":1,"viewport":{"width":100,"height":100}}\n'
        events += ('{"type":"%s","t":%s,"dx":1,"dy":0,"scale":2}\n' % (kind_name, t)) * (1 if len(kind_name) > 100 else rng.choice([1, 2000]))
        return "POST", "/v1/replay?molecule=1&size=32&fps=" + rng.choice(["60", "1", "0.001", "1e308"]), {}, events.encode()
    if kind == 2:
        ids = ['{"PERM_ID":"%s","REFCON":{}}' % rng.choice(["MOLECULE:1", "CHAIN:1:A", "PATHWAY:sbgn_glycolysis", "MOLECULE:%d" % rng.randrange(1000)])
               for _ in range(rng.choice([1, 150, 1500]))]
        return "POST", "/v1/entities", {}, ('{"requestKey":"%s","IMAGES":"DATA","entities":[%s]}' % (rng.choice(["DETAIL", "DRILL"]), ",".join(ids))).encode()
    if kind == 3:
        q = "size=%s&antialias=%s&occlusion=%s&outline=%s" % (rng.choice(["64", "1024", "4096"]), rng.choice(["1", "2", "4"]),
                                                               rng.choice(["0", "1"]), rng.choice(["0", "16", "64"]))
        return "GET", "/v1/molecules/1/image?" + q, {}, None
    if kind == 4:
        return "GET", rng.choice(["/index.html", "/"]), {"Range": rng.choice(["bytes=99999-", "bytes=-5", "bytes=0-1,2-3", "items=0-5", "bytes=0-99999999999999999999999"])}, None
    if kind == 5:
        return "POST", "/v1/render?name=x.json&size=32", {}, b"[" * 100000 + b"]" * 100000
    return "RAW", rng.choice([b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
                              b"GET / HTTP/1.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n",
                              b"POST /v1/render HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"]), {}, None


def raw_exchange(port, data):
    """One raw request; the status of the answer, or "error"."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(data)
            head = s.recv(64)
        return int(head.split(b" ")[1]) if head.startswith(b"HTTP/1.1 ") else "error"
    except (OSError, ValueError, IndexError):
        return "error"


def request(rng, root):
    if rng.random() < 0.15: return grammar_request(rng, root)
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
    p.add_argument("--address-space-mb", type=int, default=2048)
    p.add_argument("--server-log", help="the server's standard error goes here (else nowhere)")
    a = p.parse_args()
    scratch = tempfile.mkdtemp(prefix="molshot-httpfuzz-")
    db = os.path.join(scratch, "library.sqlite")
    subprocess.run([a.molshot, "library", "import", "--db", db, os.path.join(a.root, "Tests/Fixtures/1crn.pdb")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    def cap():
        # The server and its render processes under the address-space cap.
        limit = a.address_space_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    server = subprocess.Popen([a.molshot, "serve", "--port", "0", "--db", db, "--pathways", os.path.join(a.root, "Tests/Fixtures/pathways"),
                               "--max-side", "1024", "--render-seconds", "10"],
                              stdout=subprocess.PIPE, stderr=open(a.server_log, "w") if a.server_log else subprocess.DEVNULL,
                              cwd=a.root, preexec_fn=cap)
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
            if method == "RAW":
                status = raw_exchange(port, path)
                with lock:
                    counts[status] = counts.get(status, 0) + 1
                    if isinstance(status, int) and status >= 500 and status not in (503, 505, 507):
                        unexpected.append((status, "RAW", path[:60]))
                continue
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
    print("RESULT suite=httpfuzz case=all-routes requests=%d seconds=%.1f crashes=%d unexpected5xx=%d peak_rss_mb=%.0f address_space_mb=%d"
          % (total, seconds, crashes, len(unexpected), peak[0], a.address_space_mb))
    sys.exit(1 if crashes or unexpected or peak[0] > a.max_rss_mb else 0)


if __name__ == "__main__":
    main()
