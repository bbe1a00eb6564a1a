"""The web viewer in a real browser: Debian's chromium and chromium-driver driven by Selenium,
against `molshot serve` on 127.0.0.1 with a library of the test fixtures. Checks: the library
page shows nine thumbnails and pages forward; a drag on a molecule page changes its image; a
click on a pathway node shows the node's name; combining two chains says "Congratulations!".
Screenshots go to --shots. Exit status 1 on the first failed check, with what failed."""
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

fixtures = os.path.join(args.root, "Tests", "Fixtures")
scratch = tempfile.mkdtemp(prefix="molshot-viewer-")
db = os.path.join(scratch, "library.sqlite")
os.makedirs(args.shots, exist_ok=True)
files = ["1crn.pdb", "1bna.pdb", "1orc.pdb", "Caffeine.pdb", "Nanotube.pdb", "heme-site.pdb", "pdb1gdr.ent", "03F.sdf",
         "TYR.sdf", "Heme.sdf", "adrenalin.mol2", "SampleMolecule.xyz"]
for f in files:
    subprocess.run([args.molshot, "library", "import", os.path.join(fixtures, f), "--db", db], check=True, capture_output=True)
server = subprocess.Popen([args.molshot, "serve", "--port", "0", "--db", db, "--pathways", os.path.join(fixtures, "pathways")],
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

def loaded_images(css):
    return driver.execute_script(f"return [...document.querySelectorAll('{css}')].filter(i => i.complete && i.naturalWidth > 0).length")

try:
    # The library: nine thumbnails, then the next page.
    driver.get(base + "/")
    wait(lambda: loaded_images("#grid img") == 9)
    check("the library page shows nine thumbnails", loaded_images("#grid img") == 9)
    check("the page label says 1 of 2", driver.find_element(By.ID, "page").text == "1 of 2")
    driver.save_screenshot(os.path.join(args.shots, "library-1.png"))
    driver.find_element(By.ID, "next").click()
    wait(lambda: driver.find_element(By.ID, "page").text == "2 of 2" and loaded_images("#grid img") == len(files) - 9)
    check("Next shows page 2 with the other three", driver.find_element(By.ID, "page").text == "2 of 2"
          and loaded_images("#grid img") == len(files) - 9)
    driver.save_screenshot(os.path.join(args.shots, "library-2.png"))

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
    wait(lambda: "spacefill" in driver.find_element(By.ID, "mode").text)
    check("a double click changes the mode", "spacefill" in driver.find_element(By.ID, "mode").text)
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, "molecule-spacefill.png"))

    # A pathway: click where a node is; its name shows.
    pid = "sbgn_glycolysis"
    driver.get(f"{base}/#/pathway/{pid}")
    wait(lambda: loaded_images("#map img") > 0 and driver.execute_script("return window.molshotMap") is not None)
    check("the pathway page shows tiles", loaded_images("#map img") > 0)
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
        driver.save_screenshot(os.path.join(args.shots, "pathway-tap.png"))

    # Combination building: both DNA strands of 1bna form one complex.
    dna = json.load(urllib.request.urlopen(base + "/v1/molecules?query=1bna"))["molecules"][0]
    driver.get(f"{base}/#/combine/{dna['id']}")
    wait(lambda: len(driver.find_elements(By.CSS_SELECTOR, "input.chain")) == 2 and driver.find_element(By.ID, "view").get_attribute("src"))
    for box in driver.find_elements(By.CSS_SELECTOR, "input.chain"):
        box.click()
    driver.find_element(By.ID, "combine").click()
    wait(lambda: driver.find_element(By.ID, "caption").text.startswith("Congratulations"))
    check("combining A and B says Congratulations!", driver.find_element(By.ID, "caption").text.startswith("Congratulations"))
    time.sleep(0.5)
    driver.save_screenshot(os.path.join(args.shots, "combine.png"))
finally:
    driver.quit()
    server.terminate()
    server.wait()
    shutil.rmtree(scratch, ignore_errors=True)

print(f"screenshots in {args.shots}")
sys.exit(1 if failed else 0)
