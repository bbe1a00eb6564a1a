#!/usr/bin/env python3
"""molshot serve under load from wrk on loopback, beside nginx serving the same thumbnail files.

case thumbnails-cached: GET one thumbnail file, molshot against nginx (ratio = molshot/nginx req/s;
  target >= 1.0). Molshot logs every request (to a file here); nginx's line is with `access_log off`,
  and `thumbnails-cached-logged` the same against nginx logging each request to a file, buffered
  as Molshot's log is (32 KB, flushed at least every 200 ms): the same work.
case image-cached: GET the same library image again and again (from the image cache).
case render-uncached: GET library images at 256x256, each with a new rotation, so each is drawn;
  per image time against `molshot render` drawing as many rotations in one process (ratio =
  CLI seconds per image / server seconds per image; target: the server within 1.2x, ratio >= 0.83).
case workers-uncached: the same uncached renders with --render-threads 2 against 1, in one run
  (ratio = renders/s with 2 / with 1; target >= 1.6 on 2 cores).
case workers-sessions: four live sessions flooded with events (molshot measure-live), total frames/s
  with --render-threads 2 against 1 (target >= 1.5), and the slowest session against their mean.
case memory: the server's resident memory halfway through a long uncached run and at its end
  (flat: ratio ~1; the first half lets the allocator's arenas fill).
case replicas: uncached pictures per second through nginx (docs/nginx.conf) in front of two replicas
  against one (ratio = two / one; on a 2-core machine the cores bound it: each replica's drawing
  already keeps more than one core busy with llvmpipe's threads).
case replicas-thumbnails-cached: a thumbnail through nginx's cache in front of the replicas (a HIT
  after the first) against nginx serving the same file from disk (ratio = cache / files, target >= 1.0).
case hostile-load: legitimate anonymous 256 px pictures while 16 clients send hostile uploads and
  replays, against the same without them (ratio = p99 with / without; target p99 <= 1 s, <= 1% failed).
SERVICE_ONLY=workers runs the two workers cases alone, SERVICE_ONLY=thumbnails the first case alone,
SERVICE_ONLY=replicas the replicas cases alone, SERVICE_ONLY=hostile the hostile-load case alone. Each prints requests/s, p50 and p99 latency and the server's peak RSS."""
import argparse, threading, os, re, shutil, subprocess, sys, tempfile, time

WRK = shutil.which("wrk")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def wrk(url, seconds, script=None, connections=16):
    cmd = [WRK, "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    if script:
        cmd += ["-s", script]
    done = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=seconds + 60)
    out = done.stdout + done.stderr
    found = re.search(r"Requests/sec:\s*([\d.]+)", out)
    if not found:
        raise RuntimeError(f"wrk {url}: {out}")
    rps = float(found.group(1))
    def pct(p):
        m = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out)
        if not m:
            return float("nan")
        v = float(m.group(1))
        return v / 1000 if m.group(2) == "us" else v if m.group(2) == "ms" else v * 1000
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, pct(50), pct(99), int(errors.group(1)) if errors else 0


def rss(pid, key="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024
    return 0.0


MIXED = {"done": 0}


def mixed_load(base, port, root, stop):
    """Uploads of 1hpv at new rotations, replays of crambin and live sessions, in turn, until `stop`."""
    import urllib.request
    hpv = open(os.path.join(root, "Tests", "Fixtures", "1hpv.pdb"), "rb").read()
    header = '{"type":"header","version":1,"viewport":{"width":200,"height":200}}'
    events = "\n".join([header] + ['{"t":%d,"type":"rotate","dx":10,"dy":0}\n{"t":%d,"type":"frame"}' % (i, i) for i in range(8)]) + "\n"
    try:
        import websockets.sync.client as ws
    except ImportError:
        ws = None
    n = 0
    while not stop.is_set():
        n += 1
        try:
            kind = n % 3
            if kind == 0:
                urllib.request.urlopen(urllib.request.Request(f"{base}/v1/render?name=1hpv.pdb&size=256&rotate={n % 360},{n // 360},0",
                                                              data=hpv, method="POST"), timeout=60).read()
            elif kind == 1:
                urllib.request.urlopen(urllib.request.Request(f"{base}/v1/replay?molecule=1&size=200", data=events.encode(), method="POST"),
                                       timeout=60).read()
            elif ws:
                with ws.connect(f"ws://127.0.0.1:{port}/v1/sessions?molecule=1&size=256&record=1", max_size=1 << 24) as c:
                    c.recv()
                    c.send(header)
                    for i in range(20): c.send('{"t":%d,"type":"rotate","dx":7,"dy":3}' % i)
                    c.send('{"t":30,"type":"frame"}')
                    # Frames are coalesced: wait for one frame's PNG, however many came before it.
                    while not isinstance(c.recv(timeout=30), bytes): pass
            MIXED["done"] += 1
        except Exception as e:  # a 503 under load is an answer, not a failure of this measure
            print(f"bench: mixed load: {e}", file=sys.stderr)
            time.sleep(0.2)


def start(molshot, db, *more):
    """`molshot serve` on a free port; returns the process and its base URL."""
    server = subprocess.Popen([molshot, "serve", "--db", db, "--port", "0", "--render-queue", "64", *more],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = re.search(r":(\d+)\s*$", server.stdout.readline()).group(1)
    return server, f"http://127.0.0.1:{port}"


def tree(pid):
    """The process and its descendants (the server's render processes)."""
    children = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                children.setdefault(int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1]), []).append(int(p))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def tree_cpu_seconds(pid, threads=None):
    """CPU seconds of a process and its descendants, or of their threads whose names start with one of `threads`."""
    total = 0.0
    for p in tree(pid):
        try:
            total += cpu_seconds(p) if threads is None else sum(cpu_seconds(p, t) for t in threads)
        except OSError:
            pass
    return total


def cpu_seconds(pid, thread=None):
    """CPU seconds of a process, or of its threads whose name starts with `thread`."""
    tick = os.sysconf("SC_CLK_TCK")
    def of(stat):
        f = open(stat).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    if thread is None:
        return of(f"/proc/{pid}/stat")
    total = 0.0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            if open(f"/proc/{pid}/task/{t}/comm").read().startswith(thread):
                total += of(f"/proc/{pid}/task/{t}/stat")
        except OSError:
            pass
    return total


def workers(a, db, script):
    """Uncached renders and four live sessions, with one render worker and with two; with one, the
    CPU time a picture takes in all and on the render thread (the part one worker does in turn).
    With MOLSHOT_BASELINE (an earlier binary), that binary with its defaults too, as the peer "baseline"."""
    renders, sessions = {}, {}
    baseline = os.environ.get("MOLSHOT_BASELINE")
    runs = [(1, a.molshot, ["--render-threads", "1"]), (2, a.molshot, ["--render-threads", "2"])]
    if baseline:
        runs.append(("baseline", baseline, []))
    for n, binary, more in runs:
        server, base = start(binary, db, *more, "--max-sessions", "8")
        try:
            subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/v1/molecules/1/image?size=256"], check=True)
            # Render processes draw every molecule: their CPU and their render threads' count too.
            gl = ("molshot-serve-d", "molshot-render", "llvmpipe-")
            before = (tree_cpu_seconds(server.pid), tree_cpu_seconds(server.pid, gl))
            renders[n] = wrk(base, a.seconds, script, connections=8)
            if n == 1:
                done = renders[1][0] * a.seconds
                per_image = ((tree_cpu_seconds(server.pid) - before[0]) / done, (tree_cpu_seconds(server.pid, gl) - before[1]) / done)
            out = subprocess.run([a.molshot, "measure-live", "--url", f"{base.replace('http', 'ws')}/v1/sessions?molecule=1&size=512x512",
                                  "--sessions", "4", "--seconds", str(max(3, a.seconds // 2)), "--rate", "500"],
                                 check=True, capture_output=True, text=True).stdout
            rates = []
            for line in out.splitlines():
                f = line.split("\t")
                if f[0] == "session":
                    d = dict(zip(f[2::2], f[3::2]))
                    rates.append(int(d["frames"]) / float(d["seconds"]))
            sessions[n] = rates
        finally:
            server.terminate(); server.wait()
    one, two = renders[1], renders[2]
    print(f"RESULT suite=service case=workers-uncached molshot={two[0]:.1f}req/s p50={two[1]:.1f}ms p99={two[2]:.1f}ms with 2 workers "
          f"peer=one-worker:{one[0]:.1f}req/s p50={one[1]:.1f}ms p99={one[2]:.1f}ms ratio={two[0] / one[0]:.2f}  # target >= 1.6")
    cores = os.cpu_count()
    total, serial = per_image
    serial = max(serial, 1e-6)
    print(f"# one worker: {total * 1000:.2f} ms of CPU a picture, {serial * 1000:.2f} ms of it GL work (its render thread and llvmpipe's), "
          f"which one worker does in turn: one worker draws at most {1 / serial:.0f} pictures/s, the machine's {cores} cores {cores / total:.0f}/s")
    for c in (16, 64):
        print(f"# projection for {c} cores: the cores allow {c / total:.0f} pictures/s, one worker {1 / serial:.0f}/s; "
              f"--render-threads {max(1, -(-c * serial // total)):.0f} or more reaches the cores' rate (cores x render-thread share)")
    s1, s2 = sum(sessions[1]), sum(sessions[2])
    print(f"RESULT suite=service case=workers-sessions molshot={s2:.1f}frames/s with 2 workers (each {', '.join(f'{r:.1f}' for r in sessions[2])}) "
          f"peer=one-worker:{s1:.1f}frames/s (each {', '.join(f'{r:.1f}' for r in sessions[1])}) ratio={s2 / s1:.2f}  # target >= 1.5; "
          f"slowest/mean {min(sessions[2]) / (s2 / 4):.2f} with 2, {min(sessions[1]) / (s1 / 4):.2f} with 1")
    if baseline:
        b, sb = renders["baseline"], sum(sessions["baseline"])
        print(f"RESULT suite=service case=workers-uncached-vs-baseline molshot={two[0]:.1f}req/s with 2 workers "
              f"peer=baseline:{b[0]:.1f}req/s p50={b[1]:.1f}ms p99={b[2]:.1f}ms ratio={two[0] / b[0]:.2f}")
        print(f"RESULT suite=service case=workers-sessions-vs-baseline molshot={s2:.1f}frames/s with 2 workers "
              f"peer=baseline:{sb:.1f}frames/s ratio={s2 / sb:.2f}")


def replicas(a, db, thumbs, thumb, script, work, files_base):
    """nginx with docs/nginx.conf in front of one replica, then two (the same library, read-only);
    uncached pictures through it, and a thumbnail through its cache."""
    import socket

    def free():
        s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

    # Each of wrk's threads its own rotations, so that nginx's cache never answers one (the
    # threads would otherwise ask for the same pictures in the same order).
    unique = os.path.join(work, "rotate-unique.lua")
    open(unique, "w").write("""counter = 1
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/v1/molecules/1/image?size=256&rotate=" .. (n % 360) .. "," .. (id * 100 + math.floor(n / 360)) .. ",0")
end
""")
    script = unique
    results = {}
    for count in (1, 2):
        ports = [free() for _ in range(count)]
        servers = [subprocess.Popen([a.molshot, "serve", "--db", db, "--port", str(p), "--render-queue", "64", "--thumbnails", thumbs,
                                     "--render-threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for p in ports]
        nport = free()
        conf = open(os.path.join(a.root, "docs", "nginx.conf")).read()
        conf = conf.replace("127.0.0.1:8081", f"127.0.0.1:{ports[0]}").replace("listen 8080;", f"listen 127.0.0.1:{nport};")
        if count == 2:
            conf = conf.replace("127.0.0.1:8082", f"127.0.0.1:{ports[1]}")
        else:
            conf = "\n".join(l for l in conf.splitlines() if "127.0.0.1:8082" not in l)
        cache = os.path.join(work, f"nginx-cache-{count}")
        os.makedirs(cache, exist_ok=True); os.chmod(work, 0o755); os.chmod(cache, 0o777)
        conf = conf.replace("/var/cache/nginx/molshot", cache)
        path = os.path.join(work, f"replicas-{count}.conf")
        open(path, "w").write(conf)
        user = "user root root; " if os.geteuid() == 0 else ""
        nginx = subprocess.Popen([NGINX, "-c", path, "-p", work, "-g", f"{user}daemon off; pid {work}/nginx-{count}.pid; error_log {work}/nginx-{count}.err;"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{nport}"
        try:
            # Every replica up, then nginx.
            for p in ports + [nport]:
                for _ in range(100):
                    if subprocess.run(["curl", "-sf", "-o", "/dev/null", f"http://127.0.0.1:{p}/healthz"]).returncode == 0:
                        break
                    time.sleep(0.1)
            subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/v1/molecules/1/image?size=256"], check=True)
            results[count] = wrk(base, a.seconds, script, connections=8)
            if count == 2:
                subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/v1/thumbnails/{thumb}"], check=True)
                cached = wrk(f"{base}/v1/thumbnails/{thumb}", a.seconds)
                files = wrk(f"{files_base}/v1/thumbnails/{thumb}", a.seconds)
        finally:
            nginx.terminate(); nginx.wait()
            for s in servers:
                s.terminate(); s.wait()
    one, two = results[1], results[2]
    if one[3] or two[3]:
        print(f"# not 2xx/3xx: {one[3]} with one replica, {two[3]} with two")
    print(f"RESULT suite=service case=replicas molshot={two[0]:.1f}req/s p50={two[1]:.1f}ms p99={two[2]:.1f}ms through nginx, 2 replicas "
          f"peer=one-replica:{one[0]:.1f}req/s p50={one[1]:.1f}ms p99={one[2]:.1f}ms ratio={two[0] / one[0]:.2f}  "
          f"# uncached pictures; {os.cpu_count()} cores bound it")
    print(f"RESULT suite=service case=replicas-thumbnails-cached molshot={cached[0]:.0f}req/s p50={cached[1]:.2f}ms p99={cached[2]:.2f}ms "
          f"through nginx's cache peer=nginx-files:{files[0]:.0f}req/s p50={files[1]:.2f}ms p99={files[2]:.2f}ms ratio={cached[0] / files[0]:.2f}  # target >= 1.0")


def hostile_call(base, method, path, body=None, timeout=60, source="127.0.0.1"):
    """One request from address `source` (any 127.x address is this machine's loopback, so each
    attacker is a client of its own as the server tells them apart); its status, -1 for no answer."""
    import http.client, urllib.parse
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path, body=body)
        answer = connection.getresponse()
        answer.read()
        return answer.status
    except Exception:
        return -1
    finally:
        connection.close()


def hostile_attacker(base, k, attack, seconds, answers):
    """Attacker k (address 127.0.0.(2+k)): `attack` again as soon as it is answered, for `seconds`."""
    method, path, body = attack
    end, counts = time.time() + seconds, {}
    while time.time() < end:
        status = hostile_call(base, method, path, body, timeout=120, source=f"127.0.0.{2 + k}")
        counts[status] = counts.get(status, 0) + 1
    answers.put(counts)


def hostile_load(a, db):
    """case hostile-load: legitimate anonymous 256 px pictures, each drawn (a new rotation each), one
    after another for --seconds, alone and then while 16 clients send the worst uploads and
    replays they can (100,000 atoms at one point, gzipped; an event file of 24 MiB of newlines; a
    4096 px movie; a resize to 4096 after heavy settings), each again as soon as it is answered.
    Each attacker is a process of its own with an address of its own (127.0.0.2 to 127.0.0.17),
    the legitimate client this one (127.0.0.1): the attackers' Python never holds the legitimate
    client's interpreter lock, and the server sees 17 clients, as it would from 17 machines.
    Prints the legitimate pictures' p50 and p99 with attackers against without (target p99 <= 1 s,
    at most 1% failed) and the attackers' answers by status."""
    import gzip, multiprocessing
    server, base = start(a.molshot, db)
    pile = gzip.compress("".join(f"HETATM{i % 100000:5d}  C   LIG A   1       1.000   2.000   3.000  1.00  0.00           C\n"
                                 for i in range(100000)).encode(), 6)
    header = b'{"type":"header","version":1,"viewport":{"width":100,"height":100}}\n'
    attacks = [
        ("POST", "/v1/render?size=256&name=pile.pdb.gz", pile),
        ("POST", "/v1/replay?molecule=1&size=32", header + b"\n" * (24 << 20)),
        ("POST", "/v1/replay?molecule=1&size=4096&format=mp4", header + b'{"type":"frame","t":0.1}\n{"type":"frame","t":0.2}\n'),
        ("POST", "/v1/replay?molecule=1&size=16&antialias=4&occlusion=1&outline=16",
         header + b'{"type":"frame","t":0.1}\n{"type":"resize","t":0.2,"width":4096,"height":4096}\n{"type":"frame","t":0.3}\n'),
    ]

    def legitimate(seconds, offset):
        times, failed, n = [], 0, 0
        end = time.time() + seconds
        while time.time() < end:
            n += 1
            t = time.time()
            status = hostile_call(base, "GET", f"/v1/molecules/1/image?size=256&rotate={(offset + n) % 360},{(offset + n) // 360},0")
            times.append(time.time() - t)
            failed += status != 200
        times.sort()
        return times[len(times) // 2] * 1000, times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, failed, len(times)

    try:
        hostile_call(base, "GET", "/v1/molecules/1/image?size=256")
        quiet = legitimate(a.seconds, 0)
        answers = multiprocessing.Queue()
        attackers = [multiprocessing.Process(target=hostile_attacker, args=(base, k, attacks[k % len(attacks)], a.seconds + 1, answers), daemon=True)
                     for k in range(16)]
        for p in attackers:
            p.start()
        time.sleep(1)
        loud = legitimate(a.seconds, 1000)
        totals = {}
        for _ in attackers:
            for status, n in answers.get(timeout=300).items():
                totals[status] = totals.get(status, 0) + n
        for p in attackers:
            p.join(timeout=60)
        alive = hostile_call(base, "GET", "/healthz") == 200
        peak = rss(server.pid, "VmHWM")
        print(f"RESULT suite=service case=hostile-load molshot=p50={loud[0]:.0f}ms p99={loud[1]:.0f}ms failed={loud[2]}/{loud[3]} "
              f"with 16 attackers (their answers {dict(sorted(totals.items()))}; server up: {alive}; peak RSS {peak:.0f} MB) "
              f"peer=no-attackers:p50={quiet[0]:.0f}ms p99={quiet[1]:.0f}ms failed={quiet[2]}/{quiet[3]} ratio={loud[1] / max(quiet[1], 1e-9):.2f} "
              f"(p99 with attackers / without; target p99 <= 1000 ms, failed <= 1%)")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--molshot", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--seconds", type=int, default=int(os.environ.get("SERVICE_SECONDS", "10")))
    ap.add_argument("--memory-seconds", type=int, default=int(os.environ.get("SERVICE_MEMORY_SECONDS", "60")))
    a = ap.parse_args()
    if not WRK:
        print("bench: wrk is not installed (apt-get install wrk)", file=sys.stderr)
        sys.exit(1)
    work = tempfile.mkdtemp(prefix="molshot-service-")
    db, thumbs, cache = (os.path.join(work, n) for n in ("library.sqlite", "thumbs", "cache"))
    crambin = os.path.join(a.root, "Tests", "Fixtures", "1crn.pdb")
    subprocess.run([a.molshot, "library", "import", crambin, "--db", db], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([a.molshot, "thumbnails", crambin, "-o", thumbs, "--size", "256"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    thumb = sorted(n for n in os.listdir(thumbs) if n.endswith(".png") and not n.startswith("contact"))[0]
    script = os.path.join(work, "rotate.lua")
    open(script, "w").write("""n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/v1/molecules/1/image?size=256&rotate=" .. (n % 360) .. "," .. math.floor(n / 360) .. ",0")
end
""")
    if os.environ.get("SERVICE_ONLY") == "workers":
        workers(a, db, script)
        shutil.rmtree(work, ignore_errors=True)
        return
    if os.environ.get("SERVICE_ONLY") == "hostile":
        hostile_load(a, db)
        shutil.rmtree(work, ignore_errors=True)
        return
    # Its log (a line a request) into a file, as nginx's below.
    server_log = open(os.path.join(work, "molshot.log"), "w")
    server = subprocess.Popen([a.molshot, "serve", "--db", db, "--port", "0", "--thumbnails", thumbs, "--cache", cache,
                               "--render-queue", "64"], stdout=subprocess.PIPE, stderr=server_log, text=True)
    nginx = None
    try:
        port = re.search(r":(\d+)\s*$", server.stdout.readline()).group(1)
        base = f"http://127.0.0.1:{port}"
        conf = os.path.join(work, "nginx.conf")
        # nginx cannot listen on port 0: take a free port first.
        import socket
        # Two ports, one after the other: the second's server logs.
        while True:
            s = socket.socket(); s.bind(("127.0.0.1", 0)); nport = s.getsockname()[1]; s.close()
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", nport + 1)); break
            except OSError:
                pass
            finally:
                t.close()
        user = "user root root; " if os.geteuid() == 0 else ""
        with open(conf, "w") as f:
            f.write(f"""{user}worker_processes 2; daemon off; pid {work}/nginx.pid; error_log {work}/nginx.err;
events {{ worker_connections 1024; }}
http {{ access_log off; sendfile on; types {{ image/png png; }}
  server {{ listen 127.0.0.1:{nport}; location /v1/thumbnails/ {{ alias {thumbs}/; etag on; expires max; }} }}
  server {{ listen 127.0.0.1:{nport + 1}; access_log {work}/nginx-access.log combined buffer=32k flush=200ms;
    location /v1/thumbnails/ {{ alias {thumbs}/; etag on; expires max; }} }} }}
""")
        nginx = subprocess.Popen([NGINX, "-c", conf, "-p", work, "-e", os.path.join(work, "nginx.err")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if subprocess.run(["curl", "-s", "-o", "/dev/null", f"http://127.0.0.1:{nport}/v1/thumbnails/{thumb}"]).returncode == 0:
                break
            time.sleep(0.1)
        else:
            sys.stderr.write(open(os.path.join(work, "nginx.err")).read() if os.path.exists(os.path.join(work, "nginx.err")) else "nginx did not start\n")
        # Warm both, and the image cache.
        subprocess.run(["curl", "-s", "-o", "/dev/null", f"{base}/v1/molecules/1/image?size=256"], check=True)
        if os.environ.get("SERVICE_ONLY") == "replicas":
            replicas(a, db, thumbs, thumb, script, work, f"http://127.0.0.1:{nport}")
            return
        m = wrk(f"{base}/v1/thumbnails/{thumb}", a.seconds)
        n = wrk(f"http://127.0.0.1:{nport}/v1/thumbnails/{thumb}", a.seconds)
        peak = rss(server.pid, "VmHWM")
        print(f"RESULT suite=service case=thumbnails-cached molshot={m[0]:.0f}req/s p50={m[1]:.2f}ms p99={m[2]:.2f}ms "
              f"peer=nginx:{n[0]:.0f}req/s p50={n[1]:.2f}ms p99={n[2]:.2f}ms ratio={m[0] / n[0]:.2f} rss={peak:.0f}MB")
        logged = wrk(f"http://127.0.0.1:{nport + 1}/v1/thumbnails/{thumb}", a.seconds)
        m2 = wrk(f"{base}/v1/thumbnails/{thumb}", a.seconds)
        print(f"RESULT suite=service case=thumbnails-cached-logged molshot={m2[0]:.0f}req/s p50={m2[1]:.2f}ms p99={m2[2]:.2f}ms "
              f"peer=nginx-logged:{logged[0]:.0f}req/s p50={logged[1]:.2f}ms p99={logged[2]:.2f}ms ratio={m2[0] / logged[0]:.2f}")
        if os.environ.get("SERVICE_ONLY") == "thumbnails":
            return
        c = wrk(f"{base}/v1/molecules/1/image?size=256", a.seconds)
        print(f"RESULT suite=service case=image-cached molshot={c[0]:.0f}req/s p50={c[1]:.2f}ms p99={c[2]:.2f}ms "
              f"peer=none ratio=n/a rss={rss(server.pid, 'VmHWM'):.0f}MB")
        u = wrk(base, a.seconds, script, connections=4)
        workers(a, db, script)
        replicas(a, db, thumbs, thumb, script, work, f"http://127.0.0.1:{nport}")
        hostile_load(a, db)
        # The CLI drawing as many different rotations of the same molecule in one process.
        count = 40
        args = [a.molshot, "render", crambin, "--size", "256"]
        for i in range(count):
            args += ["-o", os.path.join(work, f"cli-{i}.png"), "--rotate", f"{i * 7},{i},0"]
        t = time.perf_counter(); subprocess.run(args, check=True); cli = (time.perf_counter() - t) / count
        server_each = 1 / u[0]
        print(f"RESULT suite=service case=render-uncached molshot={server_each * 1000:.1f}ms/image ({u[0]:.1f}req/s p50={u[1]:.1f}ms "
              f"p99={u[2]:.1f}ms) peer=molshot-render:{cli * 1000:.1f}ms/image ratio={cli / server_each:.2f} "
              f"rss={rss(server.pid, 'VmHWM'):.0f}MB")
        # Memory: warm for half the time (allocator arenas fill), then the second half must not grow.
        # Beside wrk's uncached renders: uploads, replays and live sessions, one after another.
        stop = threading.Event()
        mixed = threading.Thread(target=mixed_load, args=(base, port, a.root, stop))
        mixed.start()
        start = rss(server.pid)
        wrk(base, a.memory_seconds // 2, script, connections=4)
        half = rss(server.pid)
        wrk(base, a.memory_seconds - a.memory_seconds // 2, script, connections=4)
        end = rss(server.pid)
        stop.set(); mixed.join()
        print(f"RESULT suite=service case=memory molshot={end:.0f}MB at {a.memory_seconds}s of uncached renders, uploads, "
              f"replays and sessions ({MIXED['done']} of those) peer=halfway:{half:.0f}MB (start {start:.0f}MB) ratio={end / half:.2f}")
    finally:
        server.terminate(); server.wait()
        if nginx:
            nginx.terminate(); nginx.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
