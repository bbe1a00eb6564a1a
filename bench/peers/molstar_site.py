"""Mol* 5.11's own ligand view of a binding site, as a peer picture: the viewer bundle from the PyPI
wheel `molstar-cli` (its static/molstar), in Debian's headless chromium (WebGL on SwiftShader)
driven by Selenium, the structure loaded from a local HTTP server and the ligand focused as a click
on it does (`managers.structure.focus.setFromLoci`: the ligand, its surroundings as ball-and-stick
and Mol*'s non-covalent interactions; the camera on it). Used by bench/sites.py where it all runs
here; `available()` says why not otherwise."""
import functools, http.server, json, os, shutil, socketserver, subprocess, sys, tempfile, threading, time, zipfile

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" href="molstar.css">
<style>*{margin:0;padding:0} html,body{width:100%;height:100%;overflow:hidden} #app{position:absolute;inset:0}</style></head>
<body><div id="app"></div><script src="molstar.js"></script>
<script>
window.siteView = async function (file, schema) {
  const t0 = performance.now();
  const viewer = await molstar.Viewer.create('app', { layoutIsExpanded: false, layoutShowControls: false, layoutShowRemoteState: false,
    layoutShowSequence: false, layoutShowLog: false, layoutShowLeftPanel: false, viewportShowExpand: false, viewportShowControls: false,
    viewportShowSettings: false, viewportShowSelectionMode: false, viewportShowAnimation: false, viewportShowTrajectoryControls: false });
  const text = await (await fetch(file)).text();
  await viewer.loadStructureFromData(text, 'pdb');
  const p = viewer.plugin;
  viewer.structureInteractivity({ elements: schema, action: 'select' });
  const s = p.managers.structure.hierarchy.current.structures[0].cell.obj.data;
  const loci = p.managers.structure.selection.getLoci(s);
  p.managers.interactivity.lociSelects.deselectAll();
  if (!loci.elements || loci.elements.length === 0) throw new Error('the site selects nothing');
  await p.managers.structure.focus.setFromLoci(loci);
  p.managers.camera.focusLoci(loci, { durationMs: 0 });
  await p.canvas3d.commit(true);
  return performance.now() - t0;
};
</script></body></html>"""


@functools.lru_cache(maxsize=1)
def bundle():
    """The folder holding molstar.js (fetched once from PyPI into ~/.cache/molshot-bench)."""
    cache = os.path.expanduser("~/.cache/molshot-bench/molstar")
    if os.path.exists(os.path.join(cache, "molstar.js")):
        return cache
    work = tempfile.mkdtemp(prefix="molstar-wheel-")
    r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", work, "molstar-cli"], capture_output=True, text=True)
    wheels = [f for f in os.listdir(work) if f.endswith(".whl")]
    if r.returncode != 0 or not wheels:
        raise RuntimeError("pip could not fetch molstar-cli: " + r.stderr[-200:])
    with zipfile.ZipFile(os.path.join(work, wheels[0])) as z:
        z.extractall(work)
    shutil.copytree(os.path.join(work, "molstar_cli", "static", "molstar"), cache)
    return cache


def available():
    """None where Mol* can draw here, else why not."""
    if not shutil.which("chromium") or not shutil.which("chromedriver"):
        return "no chromium and chromedriver (Tests/Browser/run installs them)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "no selenium (Tests/Browser/run installs it)"
    try:
        bundle()
    except Exception as e:  # noqa: BLE001
        return str(e)
    return None


class Peer:
    """One chromium for many pictures; each picture a fresh page (a fresh viewer)."""

    def __init__(self, width, height):
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        self.root = tempfile.mkdtemp(prefix="molstar-site-")
        for f in os.listdir(bundle()):
            src = os.path.join(bundle(), f)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(self.root, f))
        with open(os.path.join(self.root, "page.html"), "w") as f:
            f.write(PAGE)
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=self.root)
        handler.log_message = lambda *a: None
        self.server = socketserver.TCPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        o = Options()
        for a in ["--headless=new", "--no-sandbox", "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--ignore-gpu-blocklist",
                  f"--window-size={width},{height}"]:
            o.add_argument(a)
        self.driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=o)
        self.driver.set_script_timeout(600)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def picture(self, pdb_path, schema, out):
        """Draws the site; returns (seconds in the page, seconds from page load to the picture saved)."""
        name = os.path.basename(pdb_path)
        shutil.copy(pdb_path, os.path.join(self.root, name))
        t = time.perf_counter()
        self.driver.get(f"http://127.0.0.1:{self.server.server_address[1]}/page.html")
        ms = self.driver.execute_async_script(
            "const cb = arguments[arguments.length-1]; siteView(arguments[0], arguments[1]).then(cb, e => cb('ERR ' + e.message));", name, schema)
        if isinstance(ms, str):
            raise RuntimeError(ms)
        self.driver.find_element("id", "app").screenshot(out)
        return ms / 1000, time.perf_counter() - t

    def close(self):
        self.driver.quit()
        self.server.shutdown()
