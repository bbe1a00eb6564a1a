"""The service past one machine, checked end to end (Tests/ScaleOut/run): nginx, configured by
docs/nginx.conf, in front of two read-only replicas and a writer, all on 127.0.0.1.

  - 1,000 mixed requests through nginx (lists, records, pictures, sequences, uploads drawn, health),
    eight at a time, with replica A killed half way: every one answered 200 or 304;
  - an import shlex, on the writer through nginx, published by the writer as a snapshot (`serve --publish`:
    VACUUM INTO beside the replicas' file, then a rename over it), seen through nginx within 10 s;
  - replica A started again, replica B stopped for 4 s: requests answered by A meanwhile;
  - a ticket made by replica B taken by replica A (one --ticket-key file);
  - a token taken out of the shared tokens file refused by the writer and both replicas;
  - a live session through nginx (the WebSocket upgraded, a frame back);
  - nginx's cache: a public picture served from it the second time, never one asked with a token.
Prints one line per check; exits non-zero on the first that fails."""
import argparse, base64, shlex, concurrent.futures, http.client, json, os, shutil, signal, socket, struct, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--root", required=True)
args = ap.parse_args()
fixtures = os.path.join(args.root, "Tests", "Fixtures")
work = tempfile.mkdtemp(prefix="molshot-scaleout-")
procs = {}
stop = threading.Event()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fail(message):
    print(f"FAIL {message}")
    for name in ("a", "b", "writer"):
        log = os.path.join(work, f"{name}.log")
        if os.path.exists(log):
            print(f"--- {name}.log (last lines)")
            print("".join(open(log).readlines()[-15:]))
    raise SystemExit(1)


def request(port, method, path, body=None, headers=None, timeout=60):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def wait_up(port, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            if request(port, "GET", "/healthz", timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    fail(f"nothing answers /healthz on port {port}")


ports = {"nginx": free_port(), "a": free_port(), "b": free_port(), "writer": free_port()}
writer_db, replica_db = os.path.join(work, "writer.sqlite"), os.path.join(work, "replica.sqlite")
tokens, key = os.path.join(work, "tokens.txt"), os.path.join(work, "ticket.key")


def molshot(*argv, **kw):
    return subprocess.run([args.molshot, *argv], check=True, capture_output=True, text=True, **kw)


def serve(name, db):
    log = open(os.path.join(work, f"{name}.log"), "a")
    # The writer publishes its snapshots for the replicas (--publish): as soon as it has changed
    # (--publish-seconds left at its 60 s ceiling, as the README runs it).
    more = ["--publish", replica_db] if name == "writer" else []
    procs[name] = subprocess.Popen([args.molshot, "serve", "--db", db, "--host", "127.0.0.1", "--port", str(ports[name]), "--tokens", tokens,
                                    "--ticket-key", key, "--render-threads", "1"] + more + ([] if name == "writer" else ["--trusted-proxy", "127.0.0.1"]), stdout=log, stderr=log)


try:
    for f in ["1crn.pdb", "1hpv.pdb", "1bna.pdb"]:
        molshot("library", "import", "--db", writer_db, os.path.join(fixtures, f))
    alice = molshot("serve", "token", "add", "alice", "--tokens", tokens).stdout.strip().split()[-1]
    bob = molshot("serve", "token", "add", "bob", "--tokens", tokens).stdout.strip().split()[-1]
    with open(key, "w") as k:
        k.write("# the replicas' ticket key\n" + os.urandom(32).hex() + "\n")
    serve("writer", writer_db)
    wait_up(ports["writer"])
    for _ in range(100):
        if os.path.exists(replica_db):
            break
        time.sleep(0.1)
    else:
        fail("the writer published no snapshot for the replicas (--publish)")
    serve("a", replica_db)
    serve("b", replica_db)
    for n in ("a", "b"):
        wait_up(ports[n])
    # nginx with docs/nginx.conf as written but for this run's ports: everything it writes (cache,
    # temporary bodies, log, pid) lies under its prefix.
    conf = open(os.path.join(args.root, "docs", "nginx.conf")).read()
    conf = (conf.replace("127.0.0.1:8081", f"127.0.0.1:{ports['a']}").replace("127.0.0.1:8082", f"127.0.0.1:{ports['b']}")
            .replace("127.0.0.1:8090", f"127.0.0.1:{ports['writer']}").replace("listen 8080;", f"listen 127.0.0.1:{ports['nginx']};"))
    conf_path = os.path.join(work, "nginx.conf")
    open(conf_path, "w").write(conf)
    prefix = os.path.join(work, "nginx")
    os.makedirs(prefix, exist_ok=True)
    # nginx's workers run as another user (nobody) where nginx starts as root: the prefix open to them.
    os.chmod(work, 0o755)
    os.chmod(prefix, 0o777)
    # As written, the file passes nginx -t as a normal user (nobody, where this check runs as root).
    test = ["/usr/sbin/nginx", "-t", "-p", prefix, "-c", conf_path]
    if os.geteuid() == 0:
        test = ["su", "-s", "/bin/sh", "nobody", "-c", " ".join(shlex.quote(a) for a in test)]
    checked = subprocess.run(test, capture_output=True, text=True)
    if checked.returncode != 0:
        fail(f"nginx -t on docs/nginx.conf as a normal user: {checked.stderr.strip()[-400:]}")
    print("ok   docs/nginx.conf passes nginx -t as a normal user, under a prefix it can write")
    nginx = ["/usr/sbin/nginx", "-p", prefix, "-c", conf_path, "-g", "daemon off;"]
    procs["nginx"] = subprocess.Popen(nginx, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "nginx.log"), "w"))
    wait_up(ports["nginx"])
    print(f"ok   nginx on :{ports['nginx']} in front of replicas :{ports['a']} :{ports['b']} and writer :{ports['writer']}")

    # 1. 1,000 mixed requests, replica A killed half way.
    upload = open(os.path.join(fixtures, "Caffeine.pdb"), "rb").read()
    mix = [("GET", "/v1/molecules", None), ("GET", "/v1/molecules/1", None), ("GET", "/v1/molecules/2/image?size=64", None),
           ("GET", "/v1/molecules/1/sequence", None), ("GET", "/healthz", None), ("POST", "/v1/render?size=64&name=caffeine.pdb", upload),
           ("GET", "/v1/molecules/3/image?size=96&mode=cartoon", None), ("GET", "/v1/molecules?query=crambin", None)]
    statuses, lock = {}, threading.Lock()

    def one(i):
        method, path, body = mix[i % len(mix)]
        answer = b""
        try:
            s, _, answer = request(ports["nginx"], method, path, body=body)
        except OSError as e:
            s = f"error {e}"
        with lock:
            statuses.setdefault(s, []).append(f"{method} {path}" + ("" if s in (200, 304) else f": {answer[:160]!r}"))
        return s

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(one, i) for i in range(500)]
        concurrent.futures.wait(futures[:450])
        procs["a"].send_signal(signal.SIGKILL)
        futures += [pool.submit(one, i) for i in range(500, 1000)]
        concurrent.futures.wait(futures)
    bad = {s: paths[:3] for s, paths in statuses.items() if s not in (200, 304)}
    if bad:
        fail(f"requests through nginx with a replica killed: {({s: len(p) for s, p in statuses.items()})}; not answered: {bad}")
    print(f"ok   1000 mixed requests through nginx, replica A killed after 450: all answered ({ {s: len(p) for s, p in statuses.items()} })")

    # 1b. A slow replica does not hold the others: replica B stopped (SIGSTOP) for 4 s while 200
    # pictures and reads go through nginx; most are answered at once by A (least_conn sends new
    # requests to the replica with fewer under way), and every one is answered once B goes on.
    serve("a", replica_db)
    wait_up(ports["a"])
    statuses.clear()
    procs["b"].send_signal(signal.SIGSTOP)
    resumer = threading.Timer(4.0, lambda: procs["b"].send_signal(signal.SIGCONT))
    resumer.start()
    times = []

    def timed(i):
        t = time.time()
        s = one(i)
        times.append(time.time() - t)
        return s

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(timed, range(200)))
    resumer.join()
    bad = {s: paths[:3] for s, paths in statuses.items() if s not in (200, 304)}
    fast = sum(1 for t in times if t < 1.0)
    if bad or fast < 150:
        fail(f"with replica B stopped for 4 s: {({s: len(p) for s, p in statuses.items()})}, {fast} of 200 within 1 s; not answered: {bad}")
    print(f"ok   replica B stopped for 4 s: all 200 answered, {fast} of them within 1 s (the others waited for B)")

    # 2. Read-your-writes: an import through nginx (to the writer), then its record read through
    # nginx (from a replica), 20 times; every read 200 within 2 s of the import's answer.
    mol2 = open(os.path.join(fixtures, "adrenalin.mol2"), "rb").read()

    def import_then(name, extra, what, then):
        """Imports the MOL2 as `name` through nginx, then asks `then(location)` until it answers 200:
        its answer's body and how long after the import's answer, or fail past 2 s."""
        s, headers, body = request(ports["nginx"], "POST", f"/v1/molecules?name={name}", body=mol2 + extra, headers={"Authorization": f"Bearer {alice}"})
        if s not in (200, 201):
            fail(f"import of {name} through nginx: {s} {body[:200]}")
        location = {h.lower(): v for h, v in headers.items()}.get("location") or f"/v1/molecules/{json.loads(body)['id']}"
        imported = time.time()
        while True:
            s, _, body = then(location)
            if s == 200:
                return location, body, time.time() - imported
            if time.time() - imported > 2:
                fail(f"{what} ({location}) not answered through nginx within 2 s of its import: {s} {body[:200]}")
            time.sleep(0.05)

    waits = [import_then(f"adrenalin-{k}.mol2", f"# copy {k}\n".encode(), f"import {k}",
                         lambda location: request(ports["nginx"], "GET", location))[2] for k in range(20)]
    # A private molecule: a ticket for it minted through nginx (by a replica) the moment its import returns.
    location, body, minted = import_then("adrenalin-private.mol2&private=true", b"# private\n", "a ticket for a private molecule",
                                         lambda location: request(ports["nginx"], "POST", f"/v1/tickets?scope={location}&seconds=60",
                                                                  headers={"Authorization": f"Bearer {alice}"}))
    ticket = json.loads(body)["ticket"]
    s, _, body = request(ports["nginx"], "GET", f"{location}?ticket={ticket}")
    if s != 200:
        fail(f"the private molecule through nginx with its ticket: {s} {body[:200]}")
    print(f"ok   a ticket for a private molecule minted through nginx {minted:.2f} s after its import returned, and taken")
    print(f"ok   20 imports through nginx each read back through nginx within 2 s (longest {max(waits):.2f} s, median "
          f"{sorted(waits)[10]:.2f} s: the writer publishes as soon as a write commits)")

    # 3. A ticket made by replica B taken by replica A (started again above).
    s, _, body = request(ports["b"], "POST", "/v1/tickets?scope=/v1/molecules&seconds=60", headers={"Authorization": f"Bearer {alice}"})
    if s != 200:
        fail(f"ticket from replica B: {s} {body[:200]}")
    ticket = json.loads(body)["ticket"]
    s, _, body = request(ports["a"], "GET", f"/v1/molecules?ticket={ticket}")
    if s != 200:
        fail(f"replica A refused replica B's ticket: {s} {body[:200]}")
    s, _, _ = request(ports["a"], "GET", f"/v1/molecules?ticket={ticket[:-4]}AAAA")
    if s != 403:
        fail(f"a forged ticket answered {s}, not 403")
    print("ok   a ticket made by replica B taken by replica A (one --ticket-key file); a forged one refused")

    # 4. A token revoked in the shared tokens file: refused by all.
    lines = [l for l in open(tokens).read().splitlines() if not l.startswith("alice ")]
    tmp = tokens + ".new"
    open(tmp, "w").write("\n".join(lines) + "\n")
    os.replace(tmp, tokens)
    time.sleep(1.0)
    for n in ("writer", "a", "b"):
        s, _, _ = request(ports[n], "POST", "/v1/tickets", headers={"Authorization": f"Bearer {alice}"})
        if s != 403:
            fail(f"{n} took a revoked token: {s}")
        s, _, _ = request(ports[n], "POST", "/v1/tickets", headers={"Authorization": f"Bearer {bob}"})
        if s != 200:
            fail(f"{n} refused a token still in the file: {s}")
    print("ok   a token removed from the tokens file refused by the writer and both replicas; the other still taken")

    # 5. A live session through nginx: the upgrade, and a frame.
    sock = socket.create_connection(("127.0.0.1", ports["nginx"]), timeout=30)
    nonce = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /v1/sessions?molecule=1&size=128x128 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {nonce}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        fail(f"live session through nginx: {head[:200]!r}")
    rest = head.split(b"\r\n\r\n", 1)[1]
    while len(rest) < 2:
        rest += sock.recv(4096)
    opcode = rest[0] & 0x0F
    sock.close()
    if opcode not in (1, 2):
        fail(f"live session through nginx: the first frame's opcode is {opcode}")
    print(f"ok   a live session through nginx: upgraded (101), first message {'text' if opcode == 1 else 'binary'}")

    # 6. nginx's cache: a public picture the second time from the cache; with a token, never.
    path = "/v1/molecules/1/image?size=80&mode=spacefill"
    statuses = [request(ports["nginx"], "GET", path)[1].get("X-Cache-Status") for _ in range(2)]
    if statuses[1] != "HIT":
        fail(f"a public picture twice through nginx: {statuses}")
    private = request(ports["nginx"], "GET", path, headers={"Authorization": f"Bearer {bob}"})[1].get("X-Cache-Status")
    if private == "HIT":
        fail("a request with a token was answered from nginx's cache")
    print(f"ok   nginx's cache: a public picture {statuses[0]} then {statuses[1]}; with a token {private}")
    # 7. The writer restarting: an import through nginx is 503 with Retry-After, reads go on; then taken.
    procs["writer"].terminate()
    procs["writer"].wait(timeout=30)
    pdb = open(os.path.join(fixtures, "1crn.pdb"), "rb").read()
    s, h, body = request(ports["nginx"], "POST", "/v1/molecules?name=again.pdb", body=pdb, headers={"Authorization": f"Bearer {bob}"})
    if s != 503 or "Retry-After" not in h:
        fail(f"an import while the writer is down: {s} {h} {body[:120]}")
    if request(ports["nginx"], "GET", "/v1/molecules/1")[0] != 200:
        fail("a read while the writer is down")
    serve("writer", writer_db)
    wait_up(ports["writer"])
    s, _, body = request(ports["nginx"], "POST", "/v1/molecules?name=caffeine.pdb", body=upload, headers={"Authorization": f"Bearer {bob}"})
    if s not in (200, 201):
        fail(f"an import once the writer is back: {s} {body[:200]}")
    print(f"ok   the writer restarting: an import through nginx 503 with Retry-After {h.get('Retry-After')}, reads 200; taken once it is back ({s})")

    # 8. Load shed without an outage: replicas with one picture's room each; 24 uncached anonymous
    # pictures at once are partly refused (503, Retry-After) by the replicas themselves, which
    # nginx hands to the client without counting a failure: plain reads beside them, and after
    # them, stay 200 (counted as failures, both replicas were marked down for 10 s).
    for n in ("a", "b"):
        procs[n].terminate()
        procs[n].wait(timeout=30)
        procs[n] = subprocess.Popen([args.molshot, "serve", "--db", replica_db, "--host", "127.0.0.1", "--port", str(ports[n]), "--tokens", tokens,
                                     "--ticket-key", key, "--render-threads", "1", "--render-queue", "1", "--trusted-proxy", "127.0.0.1"],
                                    stdout=open(os.path.join(work, f"{n}.log"), "a"), stderr=subprocess.STDOUT)
    for n in ("a", "b"):
        wait_up(ports[n])
    shed, reads = {}, {}

    def picture(i):
        s, h, _ = request(ports["nginx"], "GET", f"/v1/molecules/2/image?size={200 + i}&mode=spacefill&occlusion=1")
        with lock:
            shed.setdefault(s, []).append(h.get("Retry-After"))

    def read(i):
        # Past nginx's cache (a token's reads are never cached): each read reaches a replica.
        s, _, _ = request(ports["nginx"], "GET", "/v1/molecules/1" if i % 2 else "/healthz", headers={"Authorization": f"Bearer {bob}"})
        with lock:
            reads[s] = reads.get(s, 0) + 1

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        futures = [pool.submit(picture, i) for i in range(24)]
        time.sleep(0.05)
        futures += [pool.submit(read, i) for i in range(25)]
        concurrent.futures.wait(futures)
    after = [request(ports["nginx"], "GET", "/v1/molecules/1", headers={"Authorization": f"Bearer {bob}"})[0] for _ in range(10)]
    if 503 not in shed:
        fail(f"24 pictures at once on replicas with --render-queue 1 shed none: {({s: len(v) for s, v in shed.items()})}")
    if any(r is None for r in shed[503]) or set(shed) - {200, 503}:
        fail(f"pictures shed without Retry-After, or answered otherwise: {shed}")
    if set(reads) != {200} or set(after) != {200}:
        fail(f"reads beside shed pictures: {reads}, after them: {after} (a replica marked down for a 503?)")
    print(f"ok   load shed: {len(shed[503])} of 24 pictures 503 with Retry-After, {len(shed.get(200, []))} drawn; 25 reads beside them and 10 after all 200")

    # 9. A write sent straight to a replica's port is refused there, naming the writer.
    s, _, body = request(ports["a"], "POST", "/v1/molecules?name=direct.pdb", body=pdb, headers={"Authorization": f"Bearer {bob}"})
    if s != 403 or b"writer" not in body:
        fail(f"an import sent to a replica's own port: {s} {body[:200]}")
    print("ok   an import sent straight to a replica's port: 403 naming the writer")
    print("scale-out check: all passed")
finally:
    stop.set()
    for p in procs.values():
        if p.poll() is None:
            p.terminate()
    for p in procs.values():
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    shutil.rmtree(work, ignore_errors=True)
