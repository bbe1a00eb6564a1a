"""bench/run movie: a turntable MP4 (a 360 degree turn about y, 4 s at 30 frames a second, 512x512,
cartoon) of corpus structures by `molshot movie`, against PyMOL making the same movie in the same
run (`mset 1 xN; movie.roll 1, N, 1, y; movie.produce OUT.mp4, mode=ray`: PyMOL's own path to MP4,
ray-traced headless, through the ffmpeg program); frames a second of whole processes. Then peak
memory of molshot writing 300 and 3,000 frames (256 px, spacefill): flat when the ratio is near 1."""
import argparse, os, resource, shutil, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--corpus", required=True)
ap.add_argument("--seconds", type=float, default=4)
args = ap.parse_args()
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
import runners

fps = 30
frames = int(args.seconds * fps)
out = tempfile.mkdtemp(prefix="bench-movie-")


def probe(path):
    p = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                        "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True)
    return p.stdout.strip()


def peak(argv):
    """(wall seconds, peak RSS in MB) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - t
    if status != 0:
        print(f"# {argv[:3]} failed: {p.stderr.read().decode()[-300:]}")
        return None, None
    return elapsed, usage.ru_maxrss / 1024


have_pymol = shutil.which("pymol", path=runners.env["PATH"]) is not None and shutil.which("ffmpeg") is not None
try:
    print(f"# movie: {frames} frames (360 degrees about y, {fps} frames/s), 512x512 cartoon, whole process")
    for name in ("1crn.pdb", "1hpv.pdb", "1tii.pdb"):
        path = os.path.join(args.corpus, name)
        if not os.path.exists(path):
            continue
        stem = name.split(".")[0]
        mine_file = os.path.join(out, f"{stem}.mp4")
        t, _, _ = runners.timed([args.molshot, "movie", path, "-o", mine_file, "--mode", "cartoon", "--size", "512",
                                 "--seconds", str(args.seconds), "--fps", str(fps)])
        if t is None:
            continue
        mine = frames / t
        line = f"RESULT suite=movie case={stem}-turn-mp4-512 molshot={mine:.1f}fps"
        if have_pymol:
            theirs_file = os.path.join(out, f"{stem}-pymol.mp4")
            script = (f"hide everything; show cartoon; set ray_opaque_background, 1; bg_color white; orient; viewport 512, 512; "
                      f"mset 1 x{frames}; movie.roll(1, {frames}, 1, 'y'); "
                      f"movie.produce('{theirs_file}', mode='ray', width=512, height=512, quiet=1, encoder='ffmpeg')")
            pt, _, _ = runners.timed(["pymol", "-cq", path, "-d", script])
            if pt is not None and os.path.exists(theirs_file):
                theirs = frames / pt
                line += f" peer=pymol-ray:{theirs:.2f}fps ratio={mine / theirs:.1f}  # molshot {probe(mine_file)}; pymol {probe(theirs_file)}"
            else:
                line += "  # PyMOL made no movie"
        print(line, flush=True)
    # Memory stays flat with the movie's length.
    crambin = os.path.join(args.corpus, "1crn.pdb")
    if os.path.exists(crambin):
        short = peak([args.molshot, "movie", crambin, "-o", os.path.join(out, "short.mp4"), "--mode", "spacefill", "--size", "256",
                      "--seconds", "10", "--fps", "30"])
        long = peak([args.molshot, "movie", crambin, "-o", os.path.join(out, "long.mp4"), "--mode", "spacefill", "--size", "256",
                     "--seconds", "100", "--fps", "30"])
        if short[1] and long[1]:
            print(f"RESULT suite=movie case=peak-rss-3000-vs-300-frames molshot={long[1]:.0f}MB peer=300-frames:{short[1]:.0f}MB "
                  f"ratio={long[1] / short[1]:.2f}  # flat when near 1; 3,000 frames in {long[0]:.1f} s ({3000 / long[0]:.0f} frames/s)")
        gif = peak([args.molshot, "movie", crambin, "-o", os.path.join(out, "long.gif"), "--mode", "spacefill", "--size", "256",
                    "--seconds", "60", "--fps", "50"])
        if gif[1] and short[1]:
            print(f"RESULT suite=movie case=peak-rss-gif-3000-frames molshot={gif[1]:.0f}MB peer=mp4-300-frames:{short[1]:.0f}MB "
                  f"ratio={gif[1] / short[1]:.2f}  # GIF frames spooled to disk, not held")
finally:
    shutil.rmtree(out, ignore_errors=True)
