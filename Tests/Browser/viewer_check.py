"""The web viewer in a real browser: Debian's chromium and chromium-driver driven by Selenium,
against `molshot serve` on 127.0.0.1 with a library of the test fixtures and their thumbnails.
Checks: the library grid shows the thumbnail files, pages forward and searches as you type; a
drag, the menus, a picked chain and the keyboard change the live picture; a download is a PNG of
the chosen size; a session closed for idleness wakes on the next drag; a bad id is a sentence; a
pathway node clicked or found by name is shown and highlighted; combining two chains says
"Congratulations!". Screenshots go to --shots. Exit status 1 if a check failed, with what failed."""
import argparse, json, os, shutil, subprocess, sys, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--molshot", required=True)
ap.add_argument("--root", required=True)
ap.add_argument("--shots", default=os.path.join(tempfile.gettempdir(), "molshot-viewer-shots"))
args = ap.parse_args()

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

fixtures = os.path.join(args.root, "Tests", "Fixtures")
scratch = tempfile.mkdtemp(prefix="molshot-viewer-")
db = os.path.join(scratch, "library.sqlite")
os.makedirs(args.shots, exist_ok=True)
files = ["1crn.pdb", "1bna.pdb", "1orc.pdb", "Caffeine.pdb", "Nanotube.pdb", "heme-site.pdb", "pdb1gdr.ent", "03F.sdf",
         "TYR.sdf", "Heme.sdf", "adrenalin.mol2", "SampleMolecule.xyz", "bcif/1A8O.bcif.gz", "1hpv.pdb"]
for f in files:
    subprocess.run([args.molshot, "library", "import", os.path.join(fixtures, f), "--db", db], check=True, capture_output=True)
thumbs = os.path.join(scratch, "thumbs")
subprocess.run([args.molshot, "thumbnails", "--library", "--db", db, "-o", thumbs, "--size", "256"], check=True, capture_output=True)
# Sessions idle for 4 s are closed, so that waking one is checked without a long wait.
server = subprocess.Popen([args.molshot, "serve", "--port", "0", "--db", db, "--pathways", os.path.join(fixtures, "pathways"),
                           "--thumbnails", thumbs, "--session-idle-seconds", "4", "--allow-origin", "*",
                           # The turntable checks' movies (200 frames) take longer than 30 s in a debug build.
                           "--render-seconds", "120"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=args.root)
base = "http://127.0.0.1:" + server.stdout.readline().strip().rsplit(":", 1)[-1]

options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
    options.add_argument(a)
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
failed = []

def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failed.append(what)

def wait(condition, seconds=30):
    """`condition()` until it is true or `seconds` pass; an element replaced while the page draws
    again (StaleElementReference) is asked for again, not taken as the answer."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception:
            pass
        time.sleep(0.1)
    return None

PIXELS = """
const img = arguments[0], c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
let sum = 0, yellow = 0, grey = 0, hbond = 0;
for (let i = 0; i < d.length; i += 4) {
  sum = (sum * 31 + d[i] + 3 * d[i + 1] + 7 * d[i + 2]) % 1000000007;
  if (d[i] > 200 && d[i + 1] > 180 && d[i + 2] < 90) yellow++;
  if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) < 10 && d[i] > 90 && d[i] < 240) grey++;
  // Mol*'s hydrogen-bond blue, #2B83BA.
  if (Math.abs(d[i] - 0x2B) < 25 && Math.abs(d[i + 1] - 0x83) < 25 && Math.abs(d[i + 2] - 0xBA) < 25) hbond++;
}
return {sum, yellow, grey, hbond, width: c.width};
"""

def pixels(element):
    return driver.execute_script(PIXELS, element)

def changed(element, before, seconds=20):
    """The picture in `element` once it differs from `before` (and is live), or None."""
    return wait(lambda: (lambda p: p if p["sum"] != before["sum"] and element.get_attribute("data-state") == "live" else None)(pixels(element)), seconds)

def loaded_images(css):
    return driver.execute_script(f"return [...document.querySelectorAll('{css}')].filter(i => i.complete && i.naturalWidth > 0).length")

try:
    # The library: nine thumbnails (the files molshot thumbnails made), then the next page.
    driver.get(base + "/")
    wait(lambda: loaded_images("#grid img") == 9)
    check("the library page shows nine thumbnails", loaded_images("#grid img") == 9)
    grid_ms = wait(lambda: driver.execute_script("return window.molshotGridMs"))
    print(f"      the first page of the grid loaded in {grid_ms} ms")
    requested = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check("the grid's images come from /v1/thumbnails/", sum("/v1/thumbnails/" in r for r in requested) == 9
          and not any("/image?" in r for r in requested))
    check("the page label says 1 of 2", driver.find_element(By.ID, "page").text == "1 of 2")
    driver.save_screenshot(os.path.join(args.shots, "library-1.png"))
    driver.find_element(By.ID, "next").click()
    wait(lambda: driver.find_element(By.ID, "page").text == "2 of 2" and loaded_images("#grid img") == len(files) - 9)
    check("Next shows page 2 with the other three", driver.find_element(By.ID, "page").text == "2 of 2"
          and loaded_images("#grid img") == len(files) - 9)
    driver.save_screenshot(os.path.join(args.shots, "library-2.png"))
    search = driver.find_element(By.ID, "search")
    search.send_keys("heme")
    wait(lambda: driver.find_element(By.ID, "page").text == "1 of 1" and len(driver.find_elements(By.CSS_SELECTOR, "#grid a")) == 2)
    names = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#grid .name")]
    check("typing a search shows what matches", sorted(names) == ["Heme", "heme-site"])

    # A bad id: a sentence, no JSON.
    driver.get(f"{base}/#/molecule/999")
    error = wait(lambda: driver.find_element(By.ID, "error"))
    check("a bad id shows a sentence and no JSON", error is not None and "no such entry" in error.text and "{" not in driver.find_element(By.TAG_NAME, "body").text)
    driver.save_screenshot(os.path.join(args.shots, "molecule-bad-id.png"))

    # A molecule: a drag turns it.
    molecules = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1crn"))["molecules"]
    driver.get(f"{base}/#/molecule/{molecules[0]['id']}")
    view = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("src") else None)
    check("the molecule page shows a frame", view is not None)
    first = view.get_attribute("src") if view else None
    driver.save_screenshot(os.path.join(args.shots, "molecule-before.png"))
    ActionChains(driver).move_to_element(view).click_and_hold().move_by_offset(60, 10).move_by_offset(60, 10).release().perform()
    wait(lambda: view.get_attribute("src") != first and int(view.get_attribute("data-events") or 0) >= 3)
    check("a drag changes the image", view.get_attribute("src") != first and int(view.get_attribute("data-events") or 0) >= 3)
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, "molecule-after-drag.png"))
    before = view.get_attribute("src")
    ActionChains(driver).double_click(view).perform()
    # The page opens in auto (a cartoon for 1crn); a double tap goes on to ball-and-stick.
    wait(lambda: "ball-and-stick" in driver.find_element(By.ID, "mode").text)
    check("a double click changes the mode", "ball-and-stick" in driver.find_element(By.ID, "mode").text)
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, "molecule-ball-and-stick.png"))

    # The menus and the keyboard change the live picture.
    before = pixels(view)
    Select(driver.find_element(By.ID, "mode-menu")).select_by_value("cartoon")
    after = changed(view, before)
    check("the representation menu changes the picture", after is not None and "cartoon" in driver.find_element(By.ID, "mode").text)
    before = pixels(view)
    Select(driver.find_element(By.ID, "color-menu")).select_by_value("residue")
    check("the colour menu changes the picture", changed(view, before) is not None)
    check("the address keeps the view's choices", "mode=cartoon" in driver.current_url and "color=residue" in driver.current_url)
    before = pixels(view)
    view.send_keys(Keys.ARROW_RIGHT)
    check("an arrow key turns the molecule", changed(view, before) is not None)
    driver.save_screenshot(os.path.join(args.shots, "molecule-menus.png"))
    # A download at the size chosen.
    Select(driver.find_element(By.ID, "download-size")).select_by_value("1024")
    driver.find_element(By.ID, "download-png").click()
    got = wait(lambda: driver.execute_script("return window.molshotDownload"))
    check("Download PNG gives a 1024 px PNG", got is not None and got.get("width") == 1024 and got.get("height") == 1024)
    # A 10 s turntable as a GIF, made by the server from the view as it is: it plays in chromium
    # (two moments of the animation drawn to a canvas differ); then as WebM, which a <video> plays.
    Select(driver.find_element(By.ID, "download-size")).select_by_value("256")
    Select(driver.find_element(By.ID, "movie-format")).select_by_value("gif")
    driver.find_element(By.ID, "record-movie").click()
    movie = wait(lambda: driver.execute_script("return window.molshotMovie"), 90)
    check("Record 10 s turntable gives a GIF", movie is not None and movie.get("type") == "image/gif" and movie.get("bytes", 0) > 10000)
    # Chromium's own GIF decoder (WebCodecs' ImageDecoder): an animation of every frame, looping,
    # whose frames differ as it turns; and the <img> shows it.
    plays = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
          const data = await (await fetch(document.getElementById('movie-link').href)).arrayBuffer();
          const decoder = new ImageDecoder({data, type: 'image/gif'});
          await decoder.tracks.ready;
          const track = decoder.tracks.selectedTrack;
          await decoder.completed;
          const c = document.createElement('canvas'), g = c.getContext('2d');
          const sum = async k => { const f = (await decoder.decode({frameIndex: k})).image; c.width = f.displayWidth; c.height = f.displayHeight;
            g.drawImage(f, 0, 0); f.close(); const d = g.getImageData(0, 0, c.width, c.height).data; let s = 0;
            for (let i = 0; i < d.length; i += 16) s = (s * 31 + d[i] + 3 * d[i + 1]) % 1000000007; return s; };
          const img = new Image(); img.src = document.getElementById('movie-link').href; await img.decode();
          done({width: img.naturalWidth, frames: track.frameCount, animated: track.animated, loops: track.repetitionCount,
                first: await sum(0), later: await sum(Math.floor(track.frameCount / 4))});
        })().catch(e => done({error: String(e)}));
    """)
    check("the turntable GIF plays in chromium (an animation of 200 frames that turn)",
          plays.get("width") == 256 and plays.get("animated") and (plays.get("frames") or 0) >= 190
          and plays.get("first") != plays.get("later"))
    driver.execute_script("window.molshotMovie = null")
    Select(driver.find_element(By.ID, "movie-format")).select_by_value("webm")
    driver.find_element(By.ID, "record-movie").click()
    movie = wait(lambda: driver.execute_script("return window.molshotMovie"), 90)
    check("the turntable as WebM", movie is not None and movie.get("type") == "video/webm")
    video = driver.execute_async_script("""
        const done = arguments[arguments.length - 1], v = document.createElement('video');
        v.muted = true; v.onerror = () => done({error: String(v.error && v.error.code)});
        v.onloadedmetadata = () => done({width: v.videoWidth, duration: v.duration});
        v.src = document.getElementById('movie-link').href;
    """)
    check("chromium reads the WebM: 256 px wide, about 10 s", video.get("width") == 256 and 9 <= (video.get("duration") or 0) <= 11)
    print(f"      GIF {plays}, WebM {video}")
    # Idle: the session is closed after 4 s; the next drag wakes it where it was and turns the molecule.
    asleep = wait(lambda: view.get_attribute("data-state") == "paused", 15)
    check("an idle session is closed and the page says so", asleep is not None and "sleep" in driver.find_element(By.ID, "notice").text)
    before = pixels(view)
    ActionChains(driver).move_to_element(view).click_and_hold().move_by_offset(50, 0).move_by_offset(50, 0).release().perform()
    woke = changed(view, before)
    check("the next drag reconnects and turns the molecule", woke is not None)
    if woke is None:
        print("      state:", view.get_attribute("data-state"), "notice:", driver.find_element(By.ID, "notice").text, "status:", driver.find_element(By.ID, "status").text)

    # At 200% zoom (a 640 px wide window at twice the scale) the page reads without sideways scrolling.
    driver.set_window_size(640, 900)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 640, "height": 900, "deviceScaleFactor": 2, "mobile": False})
    time.sleep(0.5)
    wide = driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    check("at 200% zoom nothing needs sideways scrolling", wide[0] <= wide[1] + 1)
    driver.save_screenshot(os.path.join(args.shots, "molecule-zoom-200.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.set_window_size(1280, 900)

    # A link with the view's choices opens the same view.
    kept = driver.current_url
    driver.get("about:blank")
    driver.get(kept)
    wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live")
    check("opening the address restores the menus", Select(driver.find_element(By.ID, "mode-menu")).first_selected_option.get_attribute("value") == "cartoon"
          and Select(driver.find_element(By.ID, "color-menu")).first_selected_option.get_attribute("value") == "residue")

    # Picking and measuring: a click names the atom under it, a second gives the distance, a third the angle;
    # the residue is marked in the sequence.
    view = driver.find_element(By.ID, "view")
    for i, dx in enumerate([0, 40, 80]):
        ActionChains(driver).move_to_element_with_offset(view, dx - 20, 0).click().perform()
        wait(lambda: driver.find_element(By.ID, "picked").get_attribute("data-picks") == str(i + 1), 15)
        time.sleep(0.5)
    text = driver.find_element(By.ID, "picked").text
    check("a click names the atom under it", "chain A" in text)
    check("two picks give a distance and three an angle", "distance 1–2" in text and " Å" in text and "angle 1–2–3" in text and "°" in text)
    check("three picks list three atoms, each numbered", len(driver.find_elements(By.CSS_SELECTOR, "#picked .pick-atom")) == 3
          and all(f"{k}: " in text for k in (1, 2, 3)))
    check("the picked residue is marked in the sequence", len(driver.find_elements(By.CSS_SELECTOR, "#sequences .picked")) == 1)
    driver.save_screenshot(os.path.join(args.shots, "molecule-picked.png"))
    # The picks are drawn over the view where the server says the atoms are: the first near the first click.
    marks = wait(lambda: driver.find_element(By.ID, "marks").get_attribute("data-marks") == "3", 15)
    circles = driver.execute_script("return [...document.querySelectorAll('#marks circle')].map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')])")
    size = driver.execute_script("const b = document.getElementById('view').getBoundingClientRect(); return [b.width, b.height]")
    check("picked atoms are marked in the view, with dashed distance lines",
          marks is not None and len(circles) == 3 and len(driver.find_elements(By.CSS_SELECTOR, "#marks line")) == 2
          and abs(circles[0][0] - (size[0] / 2 - 20)) < 25 and abs(circles[0][1] - size[1] / 2) < 25)
    check("marks stay inside the view", all(0 <= x <= size[0] and 0 <= y <= size[1] for x, y in circles))
    # A double click changes the mode and picks nothing.
    mode_before = Select(driver.find_element(By.ID, "mode-menu")).first_selected_option.get_attribute("value")
    ActionChains(driver).move_to_element_with_offset(view, 30, 10).double_click().perform()
    switched = wait(lambda: Select(driver.find_element(By.ID, "mode-menu")).first_selected_option.get_attribute("value") != mode_before, 15)
    time.sleep(1.0)
    check("a double click changes the mode without a pick",
          switched is not None and driver.find_element(By.ID, "picked").get_attribute("data-picks") == "3")
    Select(driver.find_element(By.ID, "mode-menu")).select_by_value(mode_before)
    wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 15)
    check("the live frames come as WebP", view.get_attribute("data-format") == "webp")
    # Picks come from taps only: every menu changed after them (each opens the session again and
    # sends the gestures so far) leaves the same atoms picked; one pick can be removed.
    def pick_atoms():
        return [e.text.rstrip("×").strip() for e in driver.find_elements(By.CSS_SELECTOR, "#picked .pick-atom")]
    before_menus = pick_atoms()
    for menu in ["color-menu", "mode-menu", "slab-menu", "color-menu"]:
        choice = Select(driver.find_element(By.ID, menu))
        current = choice.first_selected_option.get_attribute("value")
        other = next(o.get_attribute("value") for o in choice.options if o.get_attribute("value") != current)
        choice.select_by_value(other)
        wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 15)
        time.sleep(1.0)
    check("changing every menu after three picks leaves the same three atoms picked",
          pick_atoms() == before_menus and driver.find_element(By.ID, "picked").get_attribute("data-picks") == "3")
    driver.find_elements(By.CSS_SELECTOR, "#picked .remove-pick")[1].click()
    check("a pick can be removed from the list", pick_atoms() == [before_menus[0].replace("1: ", "1: ", 1), before_menus[2].replace("3: ", "2: ", 1)]
          and driver.find_element(By.ID, "picked").get_attribute("data-picks") == "2" and "distance 1–2" in driver.find_element(By.ID, "picked").text)
    Select(driver.find_element(By.ID, "slab-menu")).select_by_value("auto")
    wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 15)
    # The pointer resting over an atom names it beside the pointer.
    ActionChains(driver).move_to_element_with_offset(view, -20, 0).pause(0.1).move_by_offset(1, 0).perform()
    tip = wait(lambda: driver.find_element(By.ID, "hover") if driver.find_element(By.ID, "hover").is_displayed() else None, 10)
    check("hovering over an atom names it", tip is not None and "chain A" in tip.text)
    # The view's element changes size: the frames follow (same session), at the element's pixels.
    events_before = int(view.get_attribute("data-events") or 0)
    driver.execute_script("document.querySelector('.viewport').style.width = '300px'; document.querySelector('.viewport').style.height = '200px'")
    resized = wait(lambda: driver.execute_script("return document.getElementById('view').naturalWidth") == 300
                   and driver.execute_script("return document.getElementById('view').naturalHeight") == 200, 15)
    check("a resized view gets frames of its new size without a new session", resized is not None and view.get_attribute("data-pixels") == "300x200")
    driver.save_screenshot(os.path.join(args.shots, "molecule-resized.png"))
    driver.execute_script("document.querySelector('.viewport').style.width = ''; document.querySelector('.viewport').style.height = ''")
    wait(lambda: driver.execute_script("return document.getElementById('view').naturalWidth") == 512, 15)

    # The address keeps the camera: the same picture opens from it in a new page.
    ActionChains(driver).move_to_element(view).click_and_hold().move_by_offset(-70, 30).release().perform()
    wait(lambda: "view=" in driver.current_url, 10)
    time.sleep(1)
    shared_url = driver.current_url
    SIGNATURE = """
const img = arguments[0], c = document.createElement('canvas'); c.width = 32; c.height = 32;
const g = c.getContext('2d'); g.drawImage(img, 0, 0, 32, 32); return [...g.getImageData(0, 0, 32, 32).data];"""
    first_look = driver.execute_script(SIGNATURE, view)
    driver.get("about:blank")
    driver.get(shared_url)
    again = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("data-state") == "live" else None)
    time.sleep(0.5)
    second_look = driver.execute_script(SIGNATURE, again) if again else []
    difference = sum(abs(a - b) for a, b in zip(first_look, second_look)) / max(1, len(first_look))
    check(f"a shared address restores the camera (mean difference {difference:.1f} of 255)", "view=" in shared_url and again is not None and difference < 6)
    driver.save_screenshot(os.path.join(args.shots, "molecule-restored.png"))

    # A high-density screen: the frames are drawn at devicePixelRatio times the element's size.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 2, "mobile": False})
    driver.get("about:blank")
    driver.get(shared_url)
    sharp = wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live"
                 and driver.execute_script("const i = document.getElementById('view'); return i.naturalWidth === 2 * Math.round(i.getBoundingClientRect().width)"), 20)
    check("at devicePixelRatio 2 the frames have twice the element's pixels", sharp is not None)
    driver.save_screenshot(os.path.join(args.shots, "molecule-dpr2.png"))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # Chains in the panel: picking one draws it in yellow.
    dna = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1bna"))["molecules"][0]
    driver.get(f"{base}/#/molecule/{dna['id']}")
    view = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("data-state") == "live" else None)
    before = pixels(view)
    check("a chain's button counts its nucleotides, not its waters",
          "12 residues" in driver.find_element(By.CSS_SELECTOR, "button.chain[data-chain='A']").text)
    driver.find_element(By.CSS_SELECTOR, "button.chain[data-chain='A']").click()
    after = changed(view, before)
    check("a chain picked in the panel keeps its colours and the rest is dimmed", after is not None and after["grey"] > before["grey"] + 500)
    # A colour chosen under the highlight: the pixels change and the dimmed rest takes colour again.
    if after is not None:
        recoloured = None
        Select(driver.find_element(By.ID, "color-menu")).select_by_value("rainbow")
        recoloured = changed(view, after)
        check("a colour chosen under a highlight changes the pixels (the highlight gives way)",
              recoloured is not None and recoloured["grey"] < after["grey"] - 500
              and driver.find_element(By.CSS_SELECTOR, "button.chain[data-chain='A']").get_attribute("aria-pressed") == "false")
        after = recoloured or after
    check("the sequence panel shows both chains", wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "#sequences .sequence:not(.entity-sequence)")) == 2) is not None)
    time.sleep(0.3)
    driver.save_screenshot(os.path.join(args.shots, "molecule-chain-picked.png"))

    # An entry with an assembly (1A8O, a dimer, as BinaryCIF): the assembly menu lists it, the model draws
    # half as much, chains sit under their entity and the selenomethionines are modified residues.
    capsid = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1A8O"))["molecules"][0]
    driver.get(f"{base}/#/molecule/{capsid['id']}")
    view = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("data-state") == "live" else None)
    options = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#assembly-menu option")]
    check("the assembly menu lists auto, the model and assembly 1", options == ["auto", "model", "1"])
    check("chains are listed under their entity", "HIV CAPSID" in driver.find_element(By.CSS_SELECTOR, "#parts .entity").text)
    check("modified residues are named", "MSE (MET)" in driver.find_element(By.ID, "modified").text)
    before = pixels(view)
    Select(driver.find_element(By.ID, "assembly-menu")).select_by_value("model")
    check("choosing the deposited model changes the picture", changed(view, before) is not None)
    driver.save_screenshot(os.path.join(args.shots, "molecule-assembly-model.png"))

    # Zoom to a ligand: the inhibitor of HIV protease (1hpv) is picked, then zoomed to; the address says so.
    hpv = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1hpv"))["molecules"][0]
    driver.get(f"{base}/#/molecule/{hpv['id']}")
    view = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("data-state") == "live" else None)
    ligand = wait(lambda: driver.find_element(By.CSS_SELECTOR, "button.ligand[data-ligand='478']"), 10)
    if ligand:
        ligand.click()
        wait(lambda: driver.find_element(By.ID, "zoom-part").is_displayed(), 10)
        time.sleep(0.5)
        before = pixels(view)
        driver.find_element(By.ID, "zoom-part").click()
        zoomed = changed(view, before)
        check("Zoom to it fits the view to the picked ligand and the address says so", zoomed is not None and "focus=resn" in driver.current_url)
        # One button draws the highlighted ligand's interactions over the live view; the depth menu clips it.
        shown = wait(lambda: driver.find_element(By.ID, "interactions").is_displayed(), 10)
        if shown and zoomed:
            driver.find_element(By.ID, "interactions").click()
            lines = changed(view, zoomed)
            check("one button shows the picked ligand's interactions in the live view",
                  lines is not None and lines["hbond"] > zoomed["hbond"] + 30 and "interactions=resn" in driver.current_url)
            driver.save_screenshot(os.path.join(args.shots, "molecule-interactions.png"))
            before = pixels(view)
            Select(driver.find_element(By.ID, "slab-menu")).select_by_value("8")
            check("the depth menu clips the view to a slab", changed(view, before) is not None and "slab=8" in driver.current_url)
            # One button makes the binding-site figure: the partners (interacting resn 478) as sticks, the
            # ligand's carbons magenta over a muted cartoon, the lines in the scene; the address says so.
            Select(driver.find_element(By.ID, "slab-menu")).select_by_value("auto")
            before = changed(view, pixels(view)) or pixels(view)
            driver.find_element(By.ID, "site").click()
            site = changed(view, before)
            magenta = driver.execute_script("""
                const img = document.getElementById('view'), c = document.createElement('canvas');
                c.width = img.naturalWidth; c.height = img.naturalHeight;
                const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                const d = g.getImageData(0, 0, c.width, c.height).data; let n = 0;
                for (let i = 0; i < d.length; i += 4) if (d[i] > 150 && d[i + 2] > 120 && d[i + 1] < 110) n++;
                return n;""")
            check("the binding-site button draws the ligand's site: its partners, magenta carbons, the lines",
                  site is not None and "site=resn" in driver.current_url and magenta > 300 and site["hbond"] > 20)
            driver.save_screenshot(os.path.join(args.shots, "molecule-site.png"))
        else:
            check("one button shows the picked ligand's interactions in the live view", False)
        # The entry's image set as a strip: the model by chain and by entity, the entity, the ligand, B-factors.
        strip = wait(lambda: loaded_images("#image-set img") >= 5, 60)
        kinds = driver.execute_script("return [...document.querySelectorAll('#image-set a')].map(a => a.className)")
        check("the molecule page shows the entry's image set, its ligand among them", strip is not None and "set-ligand" in kinds)
        driver.execute_script("document.getElementById('image-set').scrollIntoView()")
        driver.save_screenshot(os.path.join(args.shots, "molecule-image-set.png"))
        # A click on a picture of the set shows its view live: the B-factor putty, then the entity.
        if strip is not None:
            tabs = len(driver.window_handles)
            before = pixels(view)
            driver.execute_script("arguments[0].click()", driver.find_element(By.CSS_SELECTOR, "#image-set a.set-bfactor"))
            putty = changed(view, before) and wait(lambda: "mode=putty" in driver.current_url and "color=bfactor" in driver.current_url
                                                   and driver.find_element(By.ID, "mode-menu").get_attribute("value") == "putty", 30)
            check("a click on the set's B-factor picture shows a live putty by B-factor, in the same tab",
                  putty is not None and len(driver.window_handles) == tabs)
            driver.execute_script("arguments[0].click()", driver.find_element(By.CSS_SELECTOR, "#image-set a.set-entity"))
            entity = wait(lambda: "highlight=entity" in driver.current_url and "highlighted" in driver.find_element(By.ID, "mode").text, 30)
            check("a click on an entity's picture highlights the entity live, and no part button stays pressed", entity is not None
                  and not driver.find_elements(By.CSS_SELECTOR, "#parts button[aria-pressed='true']"))
            driver.save_screenshot(os.path.join(args.shots, "molecule-image-set-clicked.png"))
        if zoomed is None:
            print("      state:", view.get_attribute("data-state"), "notice:", driver.find_element(By.ID, "notice").text, "url:", driver.current_url)
        driver.save_screenshot(os.path.join(args.shots, "molecule-zoom-to-ligand.png"))
    else:
        check("1hpv lists its inhibitor", False)

    # The pathway list names maps by their titles (the file's name where it names itself only "map1").
    driver.get(f"{base}/#/pathways")
    titles = wait(lambda: [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#pathways a")], 15) or []
    check("the pathway list shows the maps' titles", "RECON1.Glycolysis TCA PPP" in titles and "Hexokinase step" in titles
          and "sbgn glycolysis" in titles)
    check("the pathway list gives GPML 2021's title= (WP78: TCA Cycle)", "TCA Cycle" in titles)
    driver.save_screenshot(os.path.join(args.shots, "pathway-list.png"))

    # WP78's overview fills the panel (the whole map at the scale that fits it, not the first
    # level's 256 px tile in a corner); its names stay in their boxes (PathwayTests' RaisedLabelTests).
    driver.get(f"{base}/#/pathway/gpml2021_WP78_70014_tca_cycle")
    wait(lambda: loaded_images("#map img") > 0 and driver.execute_script("return window.molshotMap") is not None)
    m = driver.execute_script("return window.molshotMap") or {}
    if m:
        filled = max(m["bounds"]["width"] * m["scale"] / m["width"], m["bounds"]["height"] * m["scale"] / m["height"])
        left = -m["ox"]
        check(f"WP78's overview fills the panel ({filled:.2f} of it, from {left:.0f} px)", 0.9 <= filled <= 1.0 and left >= -1)
        check("WP78's page is titled from the file", "TCA Cycle" in driver.find_element(By.CSS_SELECTOR, ".side h2").text)
    else:
        check("WP78's map opens", False)
    driver.save_screenshot(os.path.join(args.shots, "pathway-wp78-overview.png"))

    # A pathway: click where a node is; its name shows.
    pid = "sbgn_glycolysis"
    driver.get(f"{base}/#/pathway/{pid}")
    wait(lambda: loaded_images("#map img") > 0 and driver.execute_script("return window.molshotMap") is not None)
    check("the pathway page shows tiles", loaded_images("#map img") > 0)
    # One wheel notch zooms about 1.1x (smoothly, the tiles stretched between levels), not a whole level.
    before_scale = driver.execute_script("return window.molshotMap.scale")
    driver.execute_script("const m = document.getElementById('map'), b = m.getBoundingClientRect();"
                          "m.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, deltaMode: 0, clientX: b.left + b.width / 2, clientY: b.top + b.height / 2, bubbles: true, cancelable: true}))")
    ratio = driver.execute_script("return window.molshotMap.scale") / before_scale
    check(f"a wheel notch zooms the map about 1.1x ({ratio:.3f})", 1.05 < ratio < 1.2)
    driver.execute_script("const m = document.getElementById('map'), b = m.getBoundingClientRect();"
                          "m.dispatchEvent(new WheelEvent('wheel', {deltaY: 100, deltaMode: 0, clientX: b.left + b.width / 2, clientY: b.top + b.height / 2, bubbles: true, cancelable: true}))")
    wait(lambda: loaded_images("#map img") > 0)
    state = driver.execute_script("return window.molshotMap")
    target = None
    # Find a node inside the view by asking the service along a grid of points.
    for gy in range(40, state["height"] - 40, 24):
        for gx in range(40, state["width"] - 40, 24):
            x = state["bounds"]["x"] + (state["ox"] + gx) / state["scale"]
            y = state["bounds"]["y"] + (state["oy"] + gy) / state["scale"]
            try:
                node = json.load(urllib.request.urlopen(f"{base}/v1/pathways/{pid}/node?x={x}&y={y}&tolerance=0"))
            except Exception:
                continue
            if node["kind"] == "metabolite" and node["name"]:
                target = (gx, gy, node)
                break
        if target:
            break
    check("a node is in view", target is not None)
    if target:
        gx, gy, node = target
        area = driver.find_element(By.ID, "map")
        ActionChains(driver).move_to_element_with_offset(area, gx - state["width"] // 2, gy - state["height"] // 2).click().perform()
        wait(lambda: driver.find_elements(By.ID, "node-name"))
        shown = driver.find_elements(By.ID, "node-name")
        check(f"a click on {node['name']} shows its name", bool(shown) and shown[0].text in (node["name"], node["label"], node["id"]))
        check("the clicked node is highlighted on the map", driver.find_element(By.ID, "highlight").is_displayed())
        linked = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#linked li")]
        check("its neighbours are listed with their kind", bool(linked) and all("(" in t for t in linked))
        driver.save_screenshot(os.path.join(args.shots, "pathway-tap.png"))
    # Find a node by name: it is centred and highlighted.
    find = driver.find_element(By.ID, "node-search")
    find.send_keys("glucose")
    find.send_keys(Keys.ENTER)
    wait(lambda: driver.execute_script("return window.molshotMap.picked") == "glyph0")
    state = driver.execute_script("return window.molshotMap")
    box = driver.execute_script("const r = document.getElementById('highlight').getBoundingClientRect(), m = document.getElementById('map').getBoundingClientRect();"
                                "return [r.left + r.width / 2 - m.left, r.top + r.height / 2 - m.top]")
    check("a pathway search centres and highlights the node", state["picked"] == "glyph0"
          and abs(box[0] - state["width"] / 2) < 4 and abs(box[1] - state["height"] / 2) < 4)
    driver.save_screenshot(os.path.join(args.shots, "pathway-search.png"))

    # Combination building: both DNA strands of 1bna form one complex.
    dna = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1bna"))["molecules"][0]
    driver.get(f"{base}/#/combine/{dna['id']}")
    wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "input.chain")) == 2 and driver.find_element(By.ID, "view").get_attribute("src"))
    labels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".chains label")]
    check("the combination screen labels the chains", [l.split(" · ")[0] for l in labels] == ["Chain A", "Chain B"]
          and all(l.endswith(" residues") for l in labels))
    for box in driver.find_elements(By.CSS_SELECTOR, "input.chain"):
        box.click()
    driver.find_element(By.ID, "combine").click()
    wait(lambda: driver.find_element(By.ID, "caption").text.startswith("Congratulations"))
    check("combining A and B says Congratulations!", driver.find_element(By.ID, "caption").text.startswith("Congratulations"))
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, "combine.png"))

    # Another site: a page served from a second origin reads an image's pixels through fetch() and a
    # canvas (CORS, --allow-origin), and molshot-embed.js turns its <div data-molshot> into a live view.
    other = tempfile.mkdtemp(prefix="molshot-other-origin-")
    with open(os.path.join(other, "index.html"), "w") as f:
        f.write(f"""<!doctype html><html><body>
<div data-molshot="{base}/v1/molecules/1?mode=cartoon" style="width:320px;height:320px"></div>
<canvas id="c" width="64" height="64"></canvas>
<script src="{base}/molshot-embed.js"></script>
<script>
fetch("{base}/v1/molecules/1/image?size=64").then(r => r.blob()).then(b => createImageBitmap(b)).then(i => {{
  const g = document.getElementById("c").getContext("2d"); g.drawImage(i, 0, 0);
  const d = g.getImageData(0, 0, 64, 64).data; let coloured = 0;
  for (let k = 0; k < d.length; k += 4) if (d[k] < 250 || d[k + 1] < 250 || d[k + 2] < 250) coloured++;
  window.pixelsRead = coloured;
}}).catch(e => {{ window.pixelsRead = "error " + e; }});
</script></body></html>""")
    site = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", other],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = site.stdout.readline()
        site_port = line.split("port ")[1].split(" ")[0]
        driver.get(f"http://127.0.0.1:{site_port}/")
        read = wait(lambda: driver.execute_script("return window.pixelsRead"), 20)
        check("a page of another origin reads an image's pixels (fetch, canvas)", isinstance(read, int) and read > 50)
        frames = wait(lambda: driver.find_elements(By.CSS_SELECTOR, "div[data-molshot] iframe"), 10)
        check("molshot-embed.js makes the div a view", bool(frames) and frames[0].get_attribute("width") == "320")
        if frames:
            driver.switch_to.frame(frames[0])
            live = wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 30)
            check("the embedded view is live, with the look its address asks for",
                  live is not None and "cartoon" in driver.find_element(By.ID, "mode").get_attribute("textContent"))
            driver.switch_to.default_content()
            # The host element resized by its page: the embed follows it.
            driver.execute_script("document.querySelector('div[data-molshot]').style.width = '420px';"
                                  "document.querySelector('div[data-molshot]').style.height = '260px';")
            grown = wait(lambda: frames[0].get_attribute("width") == "420" and frames[0].get_attribute("height") == "260", 10)
            check("a resized host resizes the embed", bool(grown))
        driver.save_screenshot(os.path.join(args.shots, "embedded.png"))
    finally:
        site.terminate()
        shutil.rmtree(other, ignore_errors=True)

    # A server that needs a token to read: the viewer asks for one, then the grid's images and the live
    # view (which cannot send a header) read with tickets.
    tokens = os.path.join(scratch, "tokens.txt")
    token = subprocess.run([args.molshot, "serve", "token", "add", "viewer", "--tokens", tokens], check=True, capture_output=True, text=True).stdout.strip()
    locked = subprocess.Popen([args.molshot, "serve", "--port", "0", "--db", db, "--thumbnails", thumbs, "--tokens", tokens, "--token-to-read"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=args.root)
    try:
        locked_base = "http://127.0.0.1:" + locked.stdout.readline().strip().rsplit(":", 1)[-1]
        driver.get(locked_base + "/")
        asked = wait(lambda: driver.find_element(By.ID, "token"), 15)
        check("a server that needs a token asks for one", asked is not None)
        if asked:
            asked.send_keys(token)
            driver.find_element(By.ID, "use-token").click()
            wait(lambda: loaded_images("#grid img") == 9, 30)
            check("with the token the grid's images load (tickets in their addresses)", loaded_images("#grid img") == 9)
            # With a token, the library page uploads a file through the import route and opens it.
            upload = wait(lambda: driver.find_element(By.ID, "upload"), 10)
            if upload:
                upload.send_keys(os.path.join(args.root, "Tests", "Fixtures", "03F.v3000.sdf"))
                opened = wait(lambda: "#/molecule/" in driver.current_url and driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 30)
                new_id = driver.current_url.split("#/molecule/")[-1].split("?")[0]
                record = json.load(urllib.request.urlopen(urllib.request.Request(f"{locked_base}/v1/molecules/{new_id}",
                                                                                  headers={"Authorization": "Bearer " + token})))
                check("with a token the library page uploads a molecule and opens its view",
                      opened is not None and "03F" in record.get("name", "") and record.get("atoms", 0) > 0)
                urllib.request.urlopen(urllib.request.Request(f"{locked_base}/v1/molecules/{new_id}", method="DELETE",
                                                              headers={"Authorization": "Bearer " + token}))
                driver.get(locked_base + "/")
            else:
                check("with a token the library page uploads a molecule and opens its view", False)
            first = json.load(urllib.request.urlopen(urllib.request.Request(locked_base + "/v1/molecules?query=1crn",
                                                                             headers={"Authorization": "Bearer " + token})))["molecules"][0]
            driver.get(f"{locked_base}/#/molecule/{first['id']}")
            live = wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 30)
            check("with the token the live view opens (a ticket in the WebSocket's address)", live is not None)
            driver.save_screenshot(os.path.join(args.shots, "token-protected.png"))
            # A private molecule embedded on another site: a ticket scoped to it by name, the embed
            # naming it by id; a visitor with no token sees its live view.
            issued = json.load(urllib.request.urlopen(urllib.request.Request(
                locked_base + "/v1/tickets?scope=/v1/molecules/" + first["name"] + "&seconds=600", method="POST",
                headers={"Authorization": "Bearer " + token})))
            driver.execute_script("sessionStorage.clear()")
            other = tempfile.mkdtemp(prefix="molshot-private-embed-")
            with open(os.path.join(other, "index.html"), "w") as f:
                f.write(f"""<!doctype html><html><body>
<div data-molshot="{locked_base}/v1/molecules/{first['id']}?mode=cartoon" data-molshot-ticket="{issued['ticket']}" style="width:300px;height:300px"></div>
<script src="{locked_base}/molshot-embed.js"></script></body></html>""")
            site = subprocess.Popen([sys.executable, "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", other],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                site_port = site.stdout.readline().split("port ")[1].split(" ")[0]
                driver.get(f"http://127.0.0.1:{site_port}/")
                frames = wait(lambda: driver.find_elements(By.CSS_SELECTOR, "div[data-molshot] iframe"), 10)
                live, asked = None, []
                if frames:
                    driver.switch_to.frame(frames[0])
                    live = wait(lambda: driver.find_element(By.ID, "view").get_attribute("data-state") == "live", 30)
                    asked = driver.find_elements(By.ID, "token")
                    driver.switch_to.default_content()
                check("a private molecule embedded from another origin with a ticket shows its live view (no token asked)",
                      live is not None and not asked)
                driver.save_screenshot(os.path.join(args.shots, "private-embed.png"))
            finally:
                site.terminate()
                shutil.rmtree(other, ignore_errors=True)
    finally:
        locked.terminate()
        locked.wait()

    # An embed of a molecule this server does not share speaks to the visitor, with no way into the library.
    driver.get(f"{base}/embed.html#/molecule/987654321")
    said = wait(lambda: driver.find_element(By.ID, "error").text, 15)
    check("an embed of what is not shared says so to the visitor, with no link into the library",
          said == "This molecule is not shared here." and not driver.find_elements(By.CSS_SELECTOR, "main a"))

    # The server restarts under an open view: the page reconnects by itself (no touch) and says so meanwhile.
    molecules = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1crn"))["molecules"]
    driver.get(f"{base}/#/molecule/{molecules[0]['id']}")
    view = wait(lambda: driver.find_element(By.ID, "view") if driver.find_element(By.ID, "view").get_attribute("data-state") == "live" else None)
    port = base.rsplit(":", 1)[-1]
    server.terminate()
    server.wait()
    gone = wait(lambda: view.get_attribute("data-state") == "reconnecting", 15)
    check("a stopped server is said to be reconnecting, not asleep", gone is not None and "reconnecting" in driver.find_element(By.ID, "notice").text)
    server = subprocess.Popen([args.molshot, "serve", "--port", port, "--db", db, "--pathways", os.path.join(fixtures, "pathways"),
                               "--thumbnails", thumbs, "--session-idle-seconds", "4", "--allow-origin", "*",
                           # The turntable checks' movies (200 frames) take longer than 30 s in a debug build.
                           "--render-seconds", "120"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=args.root)
    server.stdout.readline()
    back = wait(lambda: view.get_attribute("data-state") == "live", 30)
    check("the view comes back by itself once the server is up again", back is not None)
finally:
    driver.quit()
    server.terminate()
    server.wait()
    shutil.rmtree(scratch, ignore_errors=True)

print(f"screenshots in {args.shots}")
sys.exit(1 if failed else 0)
