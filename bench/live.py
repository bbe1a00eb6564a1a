"""bench/run live: live sessions of `molshot serve` on loopback, driven by a scripted WebSocket
client, beside `molshot replay` of the same events at the same size (PNG frames), in one run:
- frames/s of one session while events stream in, against replay (and, for the record, when the
  client waits for each frame before its next event: no overlap of drawing and encoding then);
- event-to-frame latency (p50, p99) under a flood of events (500 a second for 3 s, several times
  more than frames can be drawn), in frame times of the session under that flood, and of replay
  (the target: p99 within 3, which only coalescing gives);
- four sessions flooding at once: each one's frames/s against their mean (fairness);
- frame formats: bytes a frame and frames/s under the flood for WebP and JPEG (quality 85, as the
  viewer asks) against PNG at 512 and 1024 px, and at devicePixelRatio 2 (a 512-point viewport drawn
  at 1024 px after a resize event), PNG the peer;
- turning at any size (level of detail: a residue-level stand-in drawn at half size while the view
  moves, the full picture when it stops): frames/s of one session at 512 px under 120 rotate
  events a second, on the scale ladder's files (bench/ladder.py: 1aon 58,870 atoms, 1f2n's capsid
  283,800, four capsids 1,135,200, eleven 3,121,800), as `case=turning-59k-512` and so on, the
  targets (60 frames/s up to the capsid, 24 at 1.1M, 10 at 3.1M) as the peer."""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ladder  # the scale ladder's files, made once

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--size", type=int, default=512)
ap.add_argument("--frames", type=int, default=40)
ap.add_argument("--part", choices=["all", "sessions", "formats", "turning"], default="all")
ap.add_argument("--sizes", default="59k,284k,1.1M,3.1M", help="the ladder's files the turning cases draw")
args = ap.parse_args()

from websockets.sync.client import connect

HEADER = json.dumps({"type": "header", "version": 1, "viewport": {"width": 512, "height": 512}})

def median(v):
    v = sorted(v)
    return v[len(v) // 2]

def percentile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]

def replay_fps(molecule, n):
    def run(k):
        d = tempfile.mkdtemp(prefix="bench-live-replay-")
        lines = [HEADER] + [line for i in range(k) for line in (json.dumps({"t": i / 60, "type": "rotate", "dx": 3, "dy": 1}),
                                                                  json.dumps({"t": i / 60, "type": "frame"}))]
        path = os.path.join(d, "events.jsonl")
        open(path, "w").write("\n".join(lines) + "\n")
        t = time.perf_counter()
        subprocess.run([args.molshot, "replay", path, "--molecule", molecule, "-o", os.path.join(d, "out"),
                        "--size", f"{args.size}x{args.size}"], check=True, capture_output=True)
        elapsed = time.perf_counter() - t
        shutil.rmtree(d, ignore_errors=True)
        return elapsed
    return median([(n - 1) / max(run(n) - run(1), 1e-6) for _ in range(3)])

class Session:
    def __init__(self, base, molecule, query=""):
        self.ws = connect(f"{base}/v1/sessions?molecule={molecule}&size={args.size}x{args.size}{query}", max_size=None).__enter__()
        hello = json.loads(self.ws.recv())
        assert hello["type"] == "session", hello
        self.events = 0
        self.t = 0.0
        self.send(HEADER, counted=False)
        self.wait(0)

    def send(self, line, counted=True):
        self.ws.send(line)
        if counted:
            self.events += 1

    def rotate(self):
        self.t += 0.001
        self.send('{"t":%.4f,"type":"rotate","dx":3,"dy":1}' % self.t)

    def next_frame(self):
        info = json.loads(self.ws.recv())
        if info["type"] != "frame":
            raise RuntimeError(info)
        png = self.ws.recv()
        assert len(png) == info["bytes"]
        return info

    def wait(self, events):
        while self.next_frame()["events"] < events:
            pass

    def close(self):
        self.ws.close()

def steady(base, molecule, n):
    s = Session(base, molecule)
    t = time.perf_counter()
    for _ in range(n):
        s.rotate()
        s.wait(s.events)
    fps = n / (time.perf_counter() - t)
    s.close()
    return fps

def frame_bytes(base, molecule, size, fmt, scale=1, n=12):
    """Mean bytes of `n` frames of a session turning, in format `fmt`, at `size` px (or a
    `size / scale`-point viewport resized to `scale` pixels a point)."""
    query = f"&frames={fmt}&quality=85" if fmt != "png" else ""
    ws = connect(f"{base}/v1/sessions?molecule={molecule}&size={size}x{size}{query}", max_size=None).__enter__()
    assert json.loads(ws.recv())["type"] == "session"
    points = size // scale
    ws.send(json.dumps({"type": "header", "version": 1, "viewport": {"width": points, "height": points}}))
    if scale != 1:
        ws.send(json.dumps({"t": 0, "type": "resize", "width": points, "height": points, "scale": scale}))
    sizes, events = [], 0
    for i in range(n):
        ws.send('{"t":%.3f,"type":"rotate","dx":7,"dy":2}' % (0.01 * (i + 1)))
        events += 1 + (1 if scale != 1 and i == 0 else 0)
        while True:
            info = json.loads(ws.recv())
            if info["type"] != "frame":
                raise RuntimeError(info)
            data = ws.recv()
            if info["events"] >= events:
                assert info["width"] == size, info
                sizes.append(len(data))
                break
    ws.close()
    return sum(sizes) / len(sizes)

def flood(base, molecule, sessions, seconds=3.0, rate=500, query="", size=None):
    """`molshot measure-live`: a Swift client with a writer and a reader thread per session sends
    `rate` rotate events a second to each session and notes each frame's arrival and the events it
    shows. Returns every frame's delay from the last event it shows, and each session's frames/s."""
    size = size or args.size
    out = subprocess.run([args.molshot, "measure-live", "--url", f"{base}/v1/sessions?molecule={molecule}&size={size}x{size}{query}",
                          "--sessions", str(sessions), "--seconds", str(seconds), "--rate", str(rate)],
                         check=True, capture_output=True, text=True).stdout
    latencies, rates = [], []
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] != "session":
            continue
        d = dict(zip(f[2::2], f[3::2]))
        rates.append(int(d["frames"]) / float(d["seconds"]))
        latencies += [float(x) / 1000 for x in d["delays_ms"].split(",") if x]
    return latencies, rates

def settle_seconds(base, molecule, trials=3):
    """Median seconds from the last of ten rotate events (10 ms apart) to the full frame that
    shows them (`moving` false), the still picture level of detail promises within a second."""
    ws = connect(f"{base}/v1/sessions?molecule={molecule}&size=512x512", max_size=None).__enter__()
    assert json.loads(ws.recv())["type"] == "session"
    ws.send(HEADER)
    def frame():
        while True:
            m = ws.recv()
            if isinstance(m, str) and json.loads(m)["type"] == "frame":
                ws.recv()
                return json.loads(m)
    frame()
    times = []
    for k in range(trials):
        for j in range(10):
            ws.send(json.dumps({"t": k + j * 0.01, "type": "rotate", "dx": 5, "dy": 2}))
            time.sleep(0.01)
        last = time.perf_counter()
        while True:
            info = frame()
            if not info["moving"] and info["events"] == 10 * (k + 1):
                break
        times.append(time.perf_counter() - last)
    ws.close()
    return median(times)

scratch = tempfile.mkdtemp(prefix="bench-live-")
db = os.path.join(scratch, "library.sqlite")
server = None
try:
    names = [n for n in ("1crn.pdb", "1tii.pdb") if os.path.exists(os.path.join(args.corpus, n))]
    targets = {"59k": 60, "284k": 60, "1.1M": 24, "3.1M": 10}
    turning = []
    try:
        import gemmi  # noqa: F401 (the ladder is made with it)
        have_gemmi = True
    except ImportError:
        have_gemmi = False
    if args.part in ("all", "turning") and have_gemmi and os.path.exists(os.path.join(args.corpus, "1f2n.cif")):
        made = ladder.files(args.corpus, sizes=[z for z in args.sizes.split(",") if z])
        turning = [(size, made[size]) for size in made]
    for n in names:
        subprocess.run([args.molshot, "library", "import", os.path.join(args.corpus, n), "--db", db], check=True, capture_output=True)
    for _, path in turning:
        subprocess.run([args.molshot, "library", "import", path, "--db", db], check=True, capture_output=True)
    server = subprocess.Popen([args.molshot, "serve", "--port", "0", "--db", db, "--max-sessions", "8", "--max-atoms", "4000000"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    port = server.stdout.readline().strip().rsplit(":", 1)[-1]
    base = f"ws://127.0.0.1:{port}"
    print(f"# live: sessions at {args.size}x{args.size} over loopback, PNG frames; replay of the same rotate events beside them")
    for name in names if args.part in ("all", "sessions") else []:
        molecule = name.split(".")[0]
        path = os.path.join(args.corpus, name)
        replay = replay_fps(path, args.frames)
        roundtrip = median([steady(base, molecule, args.frames) for _ in range(3)])
        latencies, rates = flood(base, molecule, 1)
        one = rates[0]
        print(f"RESULT suite=live case={molecule}-{args.size}-one-session molshot={one:.1f} peer=replay:{replay:.1f} ratio={one / replay:.2f}"
              f"  # frames/s while events stream in (500/s for 3 s; target ratio >= 0.8); {roundtrip:.1f} frames/s when each frame is waited for before the next event")
        # A frame time: the session's own frame interval under the same flood; replay's (which
        # pipelines deeper, not being bound by latency) is given beside it.
        frame_time, replay_frame = 1 / one, 1 / replay
        p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
        print(f"RESULT suite=live case={molecule}-{args.size}-flood-latency molshot=p50:{p50 * 1000:.0f}ms,p99:{p99 * 1000:.0f}ms "
              f"peer=frame-time:{frame_time * 1000:.1f}ms ratio={p99 / frame_time:.2f}"
              f"  # p99 event-to-frame delay in the session's frame times under 500 events/s (target <= 3); "
              f"{p99 / replay_frame:.2f} of replay's {replay_frame * 1000:.1f} ms frame time")
        latencies, rates = flood(base, molecule, 4)
        mean = sum(rates) / len(rates)
        print(f"RESULT suite=live case={molecule}-{args.size}-four-sessions molshot={sum(rates):.1f} peer=replay:{replay:.1f} "
              f"ratio={min(rates) / mean:.2f}  # frames/s of all four; ratio = slowest session / mean (target >= 0.7); "
              f"each {', '.join(f'{r:.1f}' for r in rates)}; p99 latency {percentile(latencies, 99) * 1000:.0f} ms")
    # Frame formats, PNG the peer: bytes a frame and frames/s under the flood.
    for name in names if args.part in ("all", "formats") else []:
        molecule = name.split(".")[0]
        for size, scale in ((512, 1), (1024, 1), (1024, 2)):
            label = f"{size}" if scale == 1 else f"{size // scale}-dpr{scale}"
            png_bytes = frame_bytes(base, molecule, size, "png", scale)
            png_fps = flood(base, molecule, 1, seconds=2, size=size)[1][0] if scale == 1 else None
            for fmt in ("webp", "jpeg"):
                b = frame_bytes(base, molecule, size, fmt, scale)
                print(f"RESULT suite=live case={molecule}-{label}-{fmt}-bytes molshot={b / 1024:.1f}KB peer=png:{png_bytes / 1024:.1f}KB "
                      f"ratio={png_bytes / b:.2f}  # mean bytes a frame while turning (quality 85); ratio = PNG's / {fmt}'s")
                if png_fps:
                    fps = flood(base, molecule, 1, seconds=2, size=size, query=f"&frames={fmt}&quality=85")[1][0]
                    print(f"RESULT suite=live case={molecule}-{label}-{fmt}-fps molshot={fps:.1f} peer=png:{png_fps:.1f} ratio={fps / png_fps:.2f}"
                          f"  # frames/s under 500 events/s over loopback (encoding is off the render thread)")
    for size, path in turning:
        molecule = os.path.basename(path).split(".")[0]
        target = targets[size]
        fps = median([flood(base, molecule, 1, seconds=4, rate=120, size=512)[1][0] for _ in range(3)])
        still = settle_seconds(base, molecule)
        print(f"RESULT suite=live case=turning-{size}-512 molshot={fps:.1f} peer=target:{target} ratio={fps / target:.2f}"
              f"  # frames/s of one session at 512 px turning (120 rotate events/s over loopback), coarse while moving (median of 3); "
              f"the full frame {still:.2f} s after the last event (target <= 1)")
finally:
    if server:
        server.terminate()
        server.wait()
    shutil.rmtree(scratch, ignore_errors=True)
