"""bench/run live: live sessions of `molshot serve` on loopback, driven by a scripted WebSocket
client, beside `molshot replay` of the same events at the same size (PNG frames), in one run:
- frames/s of one session while events stream in, against replay (and, for the record, when the
  client waits for each frame before its next event: no overlap of drawing and encoding then);
- event-to-frame latency (p50, p99) under a flood of events (500 a second for 3 s, several times
  more than frames can be drawn), in frame times of replay (the target: p99 within 3, which only
  coalescing gives);
- four sessions flooding at once: each one's frames/s against their mean (fairness)."""
import argparse, json, os, shutil, subprocess, sys, tempfile, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--size", type=int, default=512)
ap.add_argument("--frames", type=int, default=40)
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
    def __init__(self, base, molecule):
        self.ws = connect(f"{base}/v1/sessions?molecule={molecule}&size={args.size}x{args.size}", max_size=None).__enter__()
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

def flood(sessions, seconds=3.0, rate=500):
    """Each session gets `rate` rotate events a second from its own thread; a reader per session
    notes each frame's arrival and the events it shows."""
    sent = [dict() for _ in sessions]   # event number -> time sent
    frames = [[] for _ in sessions]     # (arrival, events shown)
    done = threading.Event()
    def writer(k):
        s, start, i = sessions[k], time.perf_counter(), 0
        while time.perf_counter() - start < seconds:
            i += 1
            s.rotate()
            sent[k][s.events] = time.perf_counter()
            pause = start + i / rate - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
        sent[k]["last"] = s.events
    def reader(k):
        s = sessions[k]
        while True:
            info = s.next_frame()
            frames[k].append((time.perf_counter(), info["events"]))
            if "last" in sent[k] and info["events"] >= sent[k]["last"]:
                return
    threads = [threading.Thread(target=f, args=(k,)) for k in range(len(sessions)) for f in (writer, reader)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    elapsed = time.perf_counter() - t0
    latencies = []
    for k in range(len(sessions)):
        for arrival, shown in frames[k]:
            if shown in sent[k]:
                latencies.append(arrival - sent[k][shown])
    rates = [len(f) / elapsed for f in frames]
    return latencies, rates

scratch = tempfile.mkdtemp(prefix="bench-live-")
db = os.path.join(scratch, "library.sqlite")
server = None
try:
    names = [n for n in ("1crn.pdb", "1tii.pdb") if os.path.exists(os.path.join(args.corpus, n))]
    for n in names:
        subprocess.run([args.molshot, "library", "import", os.path.join(args.corpus, n), "--db", db], check=True, capture_output=True)
    server = subprocess.Popen([args.molshot, "serve", "--port", "0", "--db", db, "--max-sessions", "8"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    port = server.stdout.readline().strip().rsplit(":", 1)[-1]
    base = f"ws://127.0.0.1:{port}"
    print(f"# live: sessions at {args.size}x{args.size} over loopback, PNG frames; replay of the same rotate events beside them")
    for name in names:
        molecule = name.split(".")[0]
        path = os.path.join(args.corpus, name)
        replay = replay_fps(path, args.frames)
        roundtrip = median([steady(base, molecule, args.frames) for _ in range(3)])
        s = Session(base, molecule)
        latencies, rates = flood([s])
        s.close()
        one = rates[0]
        print(f"RESULT suite=live case={molecule}-{args.size}-one-session molshot={one:.1f} peer=replay:{replay:.1f} ratio={one / replay:.2f}"
              f"  # frames/s while events stream in (500/s for 3 s; target ratio >= 0.8); {roundtrip:.1f} frames/s when each frame is waited for before the next event")
        frame_time = 1 / replay
        p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
        print(f"RESULT suite=live case={molecule}-{args.size}-flood-latency molshot=p50:{p50 * 1000:.0f}ms,p99:{p99 * 1000:.0f}ms "
              f"peer=replay-frame:{frame_time * 1000:.0f}ms ratio={p99 / frame_time:.2f}"
              f"  # p99 event-to-frame latency in replay frame times under 500 events/s (target <= 3)")
        four = [Session(base, molecule) for _ in range(4)]
        latencies, rates = flood(four)
        for s in four:
            s.close()
        mean = sum(rates) / len(rates)
        print(f"RESULT suite=live case={molecule}-{args.size}-four-sessions molshot={sum(rates):.1f} peer=replay:{replay:.1f} "
              f"ratio={min(rates) / mean:.2f}  # frames/s of all four; ratio = slowest session / mean (target >= 0.7); "
              f"each {', '.join(f'{r:.1f}' for r in rates)}; p99 latency {percentile(latencies, 99) * 1000:.0f} ms")
finally:
    if server:
        server.terminate()
        server.wait()
    shutil.rmtree(scratch, ignore_errors=True)
