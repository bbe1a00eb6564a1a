// Molshot's web viewer: plain JavaScript over the service's routes, no build step.
// Pages (by the address's hash): #/?page=N&q=TEXT&sort=S&per=N the library; #/molecule/ID a live
// view (a WebSocket session: gestures in, frames out) with its controls and panels;
// #/combine/ID the combination building screen; #/pathways and #/pathway/ID the tile pyramid.
"use strict";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
let leave = () => {};  // closes what the current page opened

function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function say(text) { statusLine.textContent = text; }

/// A server that needs a token to read (--token-to-read): the token is asked for once and kept for
/// this tab (sessionStorage); requests send it as a header, and where a browser cannot send one (an
/// image's address, a WebSocket's) a short-lived ticket from POST /v1/tickets goes in the address.
const auth = { token: sessionStorage.getItem("molshot-token"), ticket: null, expires: 0 };

/// A ticket given in the page's address (embed.html#/molecule/ID?ticket=..., as molshot-embed.js
/// passes the one a data-molshot address or a data-molshot-ticket attribute carries): a private view
/// shown to whoever has the page. Every request carries it where there is no token.
const givenTicket = new URLSearchParams(location.hash.split("?")[1] || "").get("ticket");
if (givenTicket && !auth.token) { auth.ticket = givenTicket; auth.expires = Infinity; }

/// `url` as a request goes out: with the ticket in it where there is no token to send.
function address(url) { return auth.token ? url : withTicket(url); }

function authorized(options = {}) {
  return auth.token ? { ...options, headers: { ...(options.headers || {}), Authorization: `Bearer ${auth.token}` } } : options;
}

/// A ticket valid for a while yet, fetched when there is a token and none is.
async function ensureTicket() {
  if (!auth.token || (auth.ticket && auth.expires - Date.now() / 1000 > 120)) return;
  const t = await json("/v1/tickets?scope=/v1/&seconds=3600", { method: "POST" });
  auth.ticket = t.ticket;
  auth.expires = t.expires;
}

/// `url` with the ticket in it, where there is one.
function withTicket(url) {
  return auth.ticket ? `${url}${url.includes("?") ? "&" : "?"}ticket=${encodeURIComponent(auth.ticket)}` : url;
}

/// The service's answer as JSON; a failure as an Error whose message is the service's sentence.
async function json(url, options) {
  let r;
  try { r = await fetch(address(url), authorized(options)); } catch (e) { throw new Error("The server cannot be reached. Is molshot serve running?"); }
  if (!r.ok) {
    let message = `the server answered ${r.status}`;
    try { const body = await r.json(); message = (body.error && body.error.message) || message; } catch (e) { /* not JSON */ }
    const error = new Error(message);
    error.status = r.status;
    throw error;
  }
  return r.json();
}

/// A failure shown in the page as a sentence; a server that needs a token asks for one.
function showError(what, error) {
  if (error && (error.status === 401 || error.status === 403) && !main.querySelector("#token")) {
    const input = el("input", { type: "password", id: "token", placeholder: "Token", "aria-label": "Token", autocomplete: "off" });
    const use = el("button", { id: "use-token" }, "Use the token");
    use.addEventListener("click", () => {
      auth.token = input.value.trim();
      auth.ticket = null;
      sessionStorage.setItem("molshot-token", auth.token);
      route();
    });
    main.replaceChildren(el("p", { class: "error", role: "alert", id: "error" },
      `${what}: this server needs a token to read (${error.message}). Give one (molshot serve token add NAME makes one); it is kept for this tab only.`),
      el("p", {}, input, " ", use));
    return;
  }
  // Embedded in someone else's page, the visitor is told what they see, not the library's workings.
  if (document.body.classList.contains("embed")) {
    const shown = error && (error.status === 404 || error.status === 401 || error.status === 403)
      ? "This molecule is not shared here." : "This view cannot be shown just now.";
    main.replaceChildren(el("p", { class: "error", role: "alert", id: "error" }, shown));
    return;
  }
  const text = error && error.status === 404 ? `${what}: there is no such entry in this library.` : `${what}: ${error.message || error}.`;
  main.replaceChildren(el("p", { class: "error", role: "alert", id: "error" }, text.replace(/\.\.$/, ".")),
    el("p", {}, el("a", { href: "#/" }, "Back to the library")));
}

function route() {
  leave();
  leave = () => {};
  main.replaceChildren();
  say("");
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
  const pages = { molecule: [moleculePage, "This molecule cannot be shown"], combine: [combinePage, "This molecule cannot be shown"],
                  pathways: [pathwaysPage, "The pathway maps cannot be listed"], pathway: [pathwayPage, "This map cannot be shown"] };
  const [page, what] = pages[parts[0]] || [libraryPage, "The library cannot be listed"];
  page(parts[1], params).catch(e => showError(what, e));
}

// MARK: Library

async function libraryPage(_, params) {
  const started = performance.now();
  const state = { page: Math.max(1, parseInt(params.get("page") || "1", 10)), q: params.get("q") || "",
                  sort: params.get("sort") || "id", per: parseInt(params.get("per") || "9", 10) };
  if (![9, 18, 36].includes(state.per)) state.per = 9;
  const search = el("input", { type: "search", id: "search", placeholder: "Search names and titles", value: state.q, "aria-label": "Search" });
  const sort = el("select", { id: "sort", "aria-label": "Order" },
    ...[["id", "Order added"], ["newest", "Newest first"], ["name", "Name"], ["atoms", "Largest first"]]
      .map(([v, t]) => el("option", { value: v, ...(v === state.sort ? { selected: "" } : {}) }, t)));
  const per = el("select", { id: "per", "aria-label": "Molecules a page" },
    ...[9, 18, 36].map(n => el("option", { value: n, ...(n === state.per ? { selected: "" } : {}) }, `${n} a page`)));
  const prev = el("button", { id: "prev" }, "Previous"), next = el("button", { id: "next" }, "Next");
  const label = el("span", { id: "page" });
  const grid = el("div", { id: "grid" });
  // An upload, for whoever holds a token that may import (the same import as POST /v1/molecules).
  const upload = el("input", { type: "file", id: "upload", "aria-label": "Upload a molecule",
                               accept: ".pdb,.ent,.cif,.mmcif,.bcif,.sdf,.mol,.mol2,.xyz,.pqr,.gz" });
  upload.addEventListener("change", async () => {
    const file = upload.files[0];
    if (!file) return;
    say(`Uploading ${file.name}…`);
    try {
      const r = await fetch(`/v1/molecules?name=${encodeURIComponent(file.name)}`, authorized({ method: "POST", body: await file.arrayBuffer() }));
      const text = await r.text();
      if (!r.ok) { say(`${file.name} was not imported: ${text.trim() || r.status}`); return; }
      say(`${file.name} imported.`);
      location.hash = `#/molecule/${encodeURIComponent(JSON.parse(text).id)}`;
    } catch (e) {
      say(`${file.name} was not imported: ${e.message || e}`);
    }
  });
  const uploading = auth.token ? [el("label", { class: "upload" }, "Upload a molecule ", upload)] : [];
  main.append(el("div", { class: "toolbar" }, search, sort, per, prev, label, next, ...uploading), grid);
  const address = () => `#/?page=${state.page}&sort=${state.sort}&per=${state.per}` + (state.q ? `&q=${encodeURIComponent(state.q)}` : "");
  let shown = 0;
  async function load() {
    const asked = ++shown;
    const answer = await json(`/v1/molecules?offset=${(state.page - 1) * state.per}&limit=${state.per}&sort=${state.sort}`
                              + (state.q ? `&query=${encodeURIComponent(state.q)}` : ""));
    if (asked !== shown) return;  // a newer search answered first
    const pages = Math.max(1, Math.ceil(answer.total / state.per));
    label.textContent = `${state.page} of ${pages}`;
    prev.disabled = state.page <= 1;
    next.disabled = state.page >= pages;
    grid.replaceChildren();
    const images = [];
    await ensureTicket();
    for (const m of answer.molecules) {
      // The file molshot thumbnails made, where there is one; else a picture drawn now.
      const src = withTicket(m.thumbnail || `/v1/molecules/${m.id}/image?size=256`);
      const img = el("img", { src, alt: m.name, loading: "eager", "data-source": m.thumbnail ? "thumbnail" : "rendered", width: 256, height: 256 });
      // A busy server answers 503 with Retry-After: ask again a few times, a second apart.
      let tries = 0;
      img.onerror = () => { if (++tries <= 5) setTimeout(() => { img.src = `${src}${src.includes("?") ? "&" : "?"}try=${tries}`; }, 1000); };
      images.push(new Promise(done => { img.addEventListener("load", done); img.addEventListener("error", () => { if (tries > 5) done(); }); }));
      grid.append(el("a", { href: `#/molecule/${m.id}`, title: m.title || m.name }, img, el("span", { class: "name" }, m.name)));
    }
    if (!answer.molecules.length) grid.append(el("p", {}, state.q ? `Nothing matches “${state.q}”.` : "The library is empty: add molecules with molshot library import."));
    await Promise.all(images);
    window.molshotGridMs = Math.round(performance.now() - started);
  }
  const go = changes => { Object.assign(state, changes); history.replaceState(null, "", address()); load().catch(e => showError("The library cannot be listed", e)); };
  let typing = null;
  search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => go({ q: search.value.trim(), page: 1 }), 200); });
  sort.addEventListener("change", () => go({ sort: sort.value, page: 1 }));
  per.addEventListener("change", () => go({ per: parseInt(per.value, 10), page: 1 }));
  prev.onclick = () => go({ page: state.page - 1 });
  next.onclick = () => go({ page: state.page + 1 });
  await load();
}

// MARK: Live sessions

/// A live view of molecule `id` in `img` that survives: the gestures sent are kept, and a new
/// session (after an idle close, a dropped connection, or a new look: mode, colour, highlight)
/// is sent them again, so its camera is where it was. `look()` gives the session's query.
class LiveView {
  constructor(id, img, { look, onFrame, onState, record, onTap = () => {}, onHover = () => {}, view = null }) {
    Object.assign(this, { id, img, look, onFrame, onState, record, onTap, onHover });
    // A view from a shared address: the camera it names, before any gesture.
    this.sent = view ? [{ t: 0, type: "view", rotation: view.slice(0, 4), zoom: view[4], pan: view.slice(5, 7) }] : [];
    this.marks = null;
    this.size = null;
    this.start = performance.now();
    this.last = 0;
    this.ws = null;
    this.closed = false;
    this.sessionID = null;
    this.retries = 0;
    this.url = null;
    this.attach();
  }

  now() { this.last = Math.max(this.last, (performance.now() - this.start) / 1000); return Math.round(this.last * 1000) / 1000; }

  /// The view's size in CSS pixels, and the pixels it takes on this screen (devicePixelRatio),
  /// each side at most 2048 (the server may allow fewer, and says so by the frames it sends).
  box() {
    const b = this.img.getBoundingClientRect(), scale = window.devicePixelRatio || 1;
    const width = Math.max(16, Math.round(b.width) || 512), height = Math.max(16, Math.round(b.height) || 512);
    const k = Math.min(scale, 2048 / Math.max(width, height));
    return { width, height, scale: k, pixels: `${Math.round(width * k)}x${Math.round(height * k)}` };
  }

  header() {
    const b = this.box();
    return { type: "header", version: 1, viewport: { width: b.width, height: b.height } };
  }

  /// Frames as WebP where the browser shows it (a fraction of a PNG's bytes), else JPEG.
  static frameFormat() {
    if (LiveView.format) return LiveView.format;
    const c = document.createElement("canvas");
    c.width = c.height = 1;
    LiveView.format = c.toDataURL("image/webp").startsWith("data:image/webp") ? "webp" : "jpeg";
    return LiveView.format;
  }

  /// Sends the element's size when it changes (full screen, a window resized, a phone turned):
  /// the frames follow without a new session.
  watchSize() {
    if (this.resizing || !window.ResizeObserver) return;
    let timer = null;
    this.resizing = new ResizeObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const b = this.box(), key = `${b.width}x${b.height}@${b.scale}`;
        if (key === this.size) return;
        this.size = key;
        if (this.ws && this.ws.readyState === WebSocket.OPEN) {
          this.ws.send(JSON.stringify({ t: this.now(), type: "resize", width: b.width, height: b.height, scale: b.scale }));
          // The new size's header for a later session or a download comes from box() again.
        }
      }, 60);
    });
    this.resizing.observe(this.img);
  }

  /// Points (Å) whose places the frames report, for the marks drawn over the view.
  setMarks(points) {
    this.marks = points;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ t: this.now(), type: "marks", points }));
  }

  connect() {
    if (this.closed) return;
    if (this.ws) { this.ws.onclose = null; this.ws.close(); }
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // A WebSocket takes no header: a server that needs a token gets a ticket in the address.
    if (auth.token && !(auth.ticket && auth.expires - Date.now() / 1000 > 120)) {
      ensureTicket().then(() => this.connect(), e => this.onState("failed", e.message));
      return;
    }
    const b = this.box();
    this.size = `${b.width}x${b.height}@${b.scale}`;
    const ws = new WebSocket(withTicket(`${scheme}://${location.host}/v1/sessions?molecule=${encodeURIComponent(this.id)}&size=${b.pixels}`
                             + `&frames=${LiveView.frameFormat()}&quality=85&${this.look()}` + (this.record ? "&record=1" : "")));
    this.watchSize();
    this.ws = ws;
    ws.binaryType = "blob";
    this.onState("loading");
    let info = null;
    ws.onopen = () => {
      // The gestures sent again below bring the camera back; their taps are not picks again (the
      // server answers each tap with the event's line: the header is line 1, the replayed ones follow).
      this.replayedLines = 1 + this.sent.length;
      ws.send(JSON.stringify(this.header()));
      // A double tap's change of mode is in the query now (the page follows the frames' mode):
      // sent again, it would change the mode a second time.
      for (const e of this.sent) ws.send(JSON.stringify(e.tapCount === 2 ? { ...e, tapCount: 1 } : e));
      if (this.marks) ws.send(JSON.stringify({ t: this.now(), type: "marks", points: this.marks }));
      // A frame now, even with no gesture to replay.
      ws.send(JSON.stringify({ t: this.now(), type: "frame" }));
    };
    ws.onmessage = m => {
      if (typeof m.data === "string") {
        const message = JSON.parse(m.data);
        if (message.type === "frame") info = message;
        else if (message.type === "session") this.sessionID = message.id;
        else if (message.type === "error") say(`The view refused an event: ${message.message}`);
        else if (message.type === "tap" && !(message.line <= this.replayedLines)) this.deliberateTap(message);
        else if (message.type === "hover") this.onHover(message);
        return;
      }
      this.retries = 0;
      if (this.url) URL.revokeObjectURL(this.url);
      this.url = URL.createObjectURL(m.data);
      this.img.src = this.url;
      this.img.dataset.events = info ? info.events : "0";
      if (info) Object.assign(this.img.dataset, { format: info.format, pixels: `${info.width}x${info.height}` });
      if (info && info.view) this.view = info.view;
      this.onState("live");
      if (info) this.onFrame(info);
    };
    ws.onclose = e => {
      if (this.ws !== ws || this.closed) return;
      this.ws = null;
      if ((e.code === 1001 || e.code === 1000) && /^idle/.test(e.reason || "")) {
        // Idle: the next gesture opens a new session where this one left off.
        this.onState("paused", "The view went to sleep; touch it to wake it.");
      } else if (e.code === 1013 || e.code === 1008) {
        this.onState("failed", e.reason || "The server refused the view.");
      } else {
        // Dropped, or the server going away (a restart): again by itself, waiting longer each time, and said.
        const wait = Math.min(8000, 250 * 2 ** this.retries++);
        this.onState("reconnecting", `The connection dropped; reconnecting in ${(wait / 1000).toFixed(1)} s…`);
        setTimeout(() => this.connect(), wait);
      }
    };
  }

  /// Keeps `event` and sends it, opening a session first if there is none.
  send(event) {
    this.sent.push(event);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(event));
    else if (!this.ws) this.connect();
  }

  close() { this.closed = true; if (this.ws) this.ws.close(); }

  /// A pick only from a deliberate single click or tap: held back for a double tap's time (the
  /// second tap of a double, which changes the mode, cancels it), and none from the click that
  /// brought the page or its frame into focus.
  deliberateTap(message) {
    clearTimeout(this.pendingTap);
    if (this.focusClick) { this.focusClick = false; return; }
    if (this.now() < (this.quietUntil || 0)) return;
    this.pendingTap = setTimeout(() => { this.pendingTap = null; this.onTap(message); }, 380);
  }

  attach() {
    const img = this.img;
    // Pointers (mouse, pen, fingers) are touches; ids are the pointers' own.
    const point = e => { const b = img.getBoundingClientRect(); return { x: e.clientX - b.left, y: e.clientY - b.top }; };
    const down = new Map();
    let lastTap = { time: -1, x: 0, y: 0 };
    img.addEventListener("pointerdown", e => {
      // The click that focuses a page (or an embed's frame) is not a pick.
      if (!document.hasFocus()) this.focusClick = true;
      e.preventDefault();
      img.setPointerCapture(e.pointerId);
      const p = point(e);
      down.set(e.pointerId, p);
      this.send({ t: this.now(), type: "touch", phase: "began", id: e.pointerId, x: p.x, y: p.y });
    });
    // The pointer resting over the view (no button down) asks what is under it, at most every 150 ms;
    // hovers are not kept with the gestures (they change nothing).
    let hoverTimer = null, hoverAt = null;
    img.addEventListener("pointermove", e => {
      if (!down.has(e.pointerId)) {
        if (e.pointerType !== "mouse" || !this.ws || this.ws.readyState !== WebSocket.OPEN) return;
        hoverAt = point(e);
        if (!hoverTimer) hoverTimer = setTimeout(() => {
          hoverTimer = null;
          if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ t: this.now(), type: "hover", ...hoverAt }));
        }, 150);
        return;
      }
      const p = point(e);
      this.send({ t: this.now(), type: "touch", phase: "moved", id: e.pointerId, x: p.x, y: p.y });
    });
    const up = (e, phase) => {
      if (!down.has(e.pointerId)) return;
      const start = down.get(e.pointerId), p = point(e);
      down.delete(e.pointerId);
      // A second short tap near the first within 0.35 s is a double tap (the next mode).
      const t = this.now(), still = Math.hypot(p.x - start.x, p.y - start.y) < 10;
      const double = still && phase === "ended" && t - lastTap.time < 0.35 && Math.hypot(p.x - lastTap.x, p.y - lastTap.y) < 30;
      lastTap = still ? { time: double ? -1 : t, x: p.x, y: p.y } : { time: -1, x: 0, y: 0 };
      // A double tap changes the mode: neither of its taps picks.
      if (double) { clearTimeout(this.pendingTap); this.pendingTap = null; this.quietUntil = t + 0.6; }
      if (!still && this.focusClick) this.focusClick = false;
      this.send({ t, type: "touch", phase, id: e.pointerId, x: p.x, y: p.y, tapCount: double ? 2 : 1 });
    };
    img.addEventListener("pointerup", e => up(e, "ended"));
    img.addEventListener("pointerleave", () => { clearTimeout(hoverTimer); hoverTimer = null; this.onHover(null); });
    img.addEventListener("pointercancel", e => up(e, "cancelled"));
    // The wheel zooms about 1.1x a notch (100 px, 3 lines); a trackpad pinch arrives as a wheel with ctrlKey and zooms faster.
    img.addEventListener("wheel", e => {
      e.preventDefault();
      const px = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 800 : 1);
      this.send({ t: this.now(), type: "pinch", scale: Math.exp(-px / (e.ctrlKey ? 100 : 1050)) });
    }, { passive: false });
    // The keyboard: arrows turn, + and - zoom, 0 resets.
    img.addEventListener("keydown", e => {
      const turn = { ArrowLeft: [-20, 0], ArrowRight: [20, 0], ArrowUp: [0, -20], ArrowDown: [0, 20] }[e.key];
      if (turn) this.send({ t: this.now(), type: "rotate", dx: turn[0], dy: turn[1] });
      else if (e.key === "+" || e.key === "=") this.send({ t: this.now(), type: "pinch", scale: 1.15 });
      else if (e.key === "-") this.send({ t: this.now(), type: "pinch", scale: 1 / 1.15 });
      else if (e.key === "0") this.send({ t: this.now(), type: "reset" });
      else return;
      e.preventDefault();
    });
  }
}

const representations = ["auto", "ball-and-stick", "spacefill", "sticks", "lines", "cartoon", "putty", "surface"];
const colourings = [["auto", "Automatic"], ["element", "By element"], ["chain", "By chain"], ["copy", "By assembly copy"], ["entity", "By entity"],
  ["rainbow", "Rainbow (N to C)"], ["secondary-structure", "By secondary structure"], ["hydrophobicity", "By hydrophobicity"],
  ["residue", "By residue"], ["bfactor", "By B-factor"], ["plddt", "By confidence (pLDDT)"]];

/// The width and height a PNG says it has.
async function pngSize(blob) {
  const head = new DataView(await blob.slice(0, 24).arrayBuffer());
  return head.byteLength < 24 || head.getUint32(0) !== 0x89504e47 ? null : { width: head.getUint32(16), height: head.getUint32(20) };
}

function download(blob, name) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

function chainLabel(c) { return c.id ? `Chain ${c.id}` : "Blank chain id"; }

/// A chain's size as a person counts it: its polymer residues (waters and ligands left out) where it has any.
function chainSize(c) {
  const n = c.sequence ? c.sequence.length : c.residues;
  return `${n} ${c.sequence ? "residues" : n === 1 ? "group" : "groups"}`;
}

async function moleculePage(id, params = new URLSearchParams()) {
  const record = await json(`/v1/molecules/${encodeURIComponent(id)}`);
  // The view's choices come from the address and go back into it, so a link shows the same view.
  const look = { mode: params.get("mode") || "auto", color: params.get("color") || "auto", highlight: params.get("highlight"),
                 assembly: params.get("assembly") || "auto", focus: params.get("focus"),
                 slab: params.get("slab") || "auto", interactions: params.get("interactions"), site: params.get("site") };
  // The camera from the address (a frame's view: rotation x y z w, zoom, pan x y), when whole.
  const shared = (params.get("view") || "").split(",").map(Number);
  const startView = shared.length === 7 && shared.every(Number.isFinite) ? shared : null;
  // The whole view in the address: representation, colours, assembly, highlight, focus and camera.
  const remember = () => {
    const p = new URLSearchParams();
    for (const k of ["mode", "color", "assembly"]) if (look[k] !== "auto") p.set(k, look[k]);
    for (const k of ["highlight", "focus", "interactions", "site"]) if (look[k]) p.set(k, look[k]);
    if (look.slab !== "auto") p.set("slab", look.slab);
    if (givenTicket) p.set("ticket", givenTicket);
    if (view && view.view) p.set("view", view.view.map(v => +v.toFixed(4)).join(","));
    const address = `#/molecule/${encodeURIComponent(id)}${p.size ? `?${p}` : ""}`;
    if (location.hash !== address) history.replaceState(null, "", address);
  };
  const img = el("img", { id: "view", alt: `${record.name}, live view`, draggable: "false", tabindex: "0", width: 512, height: 512 });
  const loading = el("div", { id: "loading", class: "loading", role: "status" }, "Loading the view…");
  // Picked atoms, and the distance and angle between them, drawn over the frames where the server says they are.
  const svgNS = "http://www.w3.org/2000/svg";
  const overlay = document.createElementNS(svgNS, "svg");
  overlay.id = "marks";
  overlay.setAttribute("aria-hidden", "true");
  const tooltip = el("div", { id: "hover", role: "status", hidden: "" });
  const stage = el("div", { class: "viewport" }, img, overlay, tooltip, loading);
  const mode = el("div", { id: "mode" }), caption = el("div", { id: "caption" }), notice = el("p", { id: "notice", role: "status" });
  // The session's query (spaces as %20: the service reads + as itself, not as a space).
  const query = () => {
    const p = [];
    const rep = look.mode;
    if (look.site) {
      // The binding-site figure: its own parts (muted cartoon, the ligand, its partners, their lines and labels).
      p.push(["site", look.site]);
    } else if (look.highlight) {
      // The picked part in the colours chosen, the rest dimmed to pale grey, in the representation chosen
      // (a yellow part was lost under rainbow and secondary-structure colours).
      p.push(["show", `${rep} #D0D0D0: not (${look.highlight})`], ["show", `${rep} ${look.color}: ${look.highlight}`]);
    } else {
      p.push(["mode", look.mode]);
    }
    p.push(["color", look.color]);
    if (look.assembly !== "auto") p.push(["assembly", look.assembly]);
    if (look.focus) p.push(["focus", look.focus]);
    if (look.slab !== "auto") p.push(["slab", look.slab]);
    if (look.interactions && !look.site) p.push(["interactions", look.interactions]);
    return p.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
  };
  const drawMarks = places => {
    overlay.replaceChildren();
    const b = img.getBoundingClientRect();
    overlay.setAttribute("viewBox", `0 0 ${b.width} ${b.height}`);
    const add = (tag, attributes, text) => {
      const e = document.createElementNS(svgNS, tag);
      for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
      if (text) e.textContent = text;
      overlay.append(e);
      return e;
    };
    const atoms = picks3.slice(-3);
    if (!places || places.length !== atoms.length) { overlay.dataset.marks = "0"; return; }
    const dist = (a, b) => Math.hypot(...a.position.map((v, i) => v - b.position[i]));
    // Text set where it covers no text set before (nearest of a few places about its anchor), inside the view.
    const taken = [];
    const clear = (x, y, text) => {
      const w = 7.5 * text.length + 6, h = 16;
      const tries = [[0, 0], [0, -18], [0, 18], [-w - 12, 0], [0, -36], [0, 36], [-w - 12, -18], [-w - 12, 18]];
      for (const [dx, dy] of tries) {
        const box = { x: Math.min(Math.max(2, x + dx), b.width - w - 2), y: Math.min(Math.max(h, y + dy), b.height - 4) };
        if (!taken.some(o => box.x < o.x + o.w && o.x < box.x + w && box.y - h < o.y && o.y - h < box.y)) {
          taken.push({ ...box, w });
          return box;
        }
      }
      return { x: Math.min(Math.max(2, x), b.width - w - 2), y: Math.min(Math.max(h, y), b.height - 4) };
    };
    const inside = p => p[0] >= 0 && p[1] >= 0 && p[0] <= b.width && p[1] <= b.height;
    for (let i = 1; i < places.length; i++) {
      const [p, q] = [places[i - 1], places[i]];
      add("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "measure" });
      const text = `${dist(atoms[i - 1], atoms[i]).toFixed(2)} Å (${i}–${i + 1})`, at = clear((p[0] + q[0]) / 2 + 6, (p[1] + q[1]) / 2 - 6, text);
      add("text", { x: at.x, y: at.y, class: "measure-label" }, text);
    }
    places.forEach((p, i) => {
      // A ring only where its atom is in the view (the overlay clips the rest).
      if (!inside(p)) return;
      add("circle", { cx: p[0], cy: p[1], r: 7, class: "pick" });
      const at = clear(p[0] + 9, p[1] + 14, String(i + 1));
      add("text", { x: at.x, y: at.y, class: "pick-label" }, String(i + 1));
    });
    overlay.dataset.marks = String(places.filter(inside).length);
  };
  // Picking and measuring: a tap names the atom under it; two picked give their distance, three their angle.
  const pickedLine = el("p", { id: "picked", role: "status" }, "Tap or click an atom to name it; two give a distance, three an angle.");
  const picks3 = [];
  const fmt = a => `${a.chain ? `chain ${a.chain} · ` : ""}${a.residue} ${a.number}${a.insertion || ""} · ${a.name} (${a.element})`;
  // The picks as a list, each with a button that removes it, and what they measure.
  const showPicks = () => {
    for (const m of document.querySelectorAll("#sequences .picked")) m.classList.remove("picked");
    if (!picks3.length) {
      pickedLine.textContent = "Tap or click an atom to name it; two give a distance, three an angle.";
      pickedLine.dataset.picks = "0";
      zoomResidue.hidden = true;
      view.setMarks([]);
      drawMarks([]);
      return;
    }
    const [p, q, r] = picks3.map(a => a.position);
    const sub = (a, b) => a.map((v, i) => v - b[i]), len = v => Math.hypot(...v), dot = (a, b) => a.reduce((s, v, i) => s + v * b[i], 0);
    // Every picked atom, numbered as its ring, and what each measurement spans.
    const lines = picks3.map((a, i) => el("li", { class: "pick-atom" }, `${i + 1}: ${fmt(a)} `,
      el("button", { class: "remove-pick", "aria-label": `Remove pick ${i + 1}`, title: "Remove this pick",
                     onclick: () => { picks3.splice(i, 1); showPicks(); } }, "×")));
    for (let i = 1; i < picks3.length; i++) {
      const [a, b] = [picks3[i - 1].position, picks3[i].position];
      lines.push(el("li", { class: "pick-measure" }, `distance ${i}–${i + 1}: ${len(sub(a, b)).toFixed(2)} Å`));
    }
    if (picks3.length === 3) {
      const u = sub(p, q), v = sub(r, q);
      lines.push(el("li", { class: "pick-measure" }, `angle 1–2–3 (at 2): ${(Math.acos(Math.max(-1, Math.min(1, dot(u, v) / (len(u) * len(v))))) * 180 / Math.PI).toFixed(1)}°`));
    }
    pickedLine.replaceChildren(el("ol", { class: "picks" }, ...lines));
    pickedLine.dataset.picks = String(picks3.length);
    const atom = picks3[picks3.length - 1];
    zoomResidue.hidden = false;
    zoomResidue.onclick = () => zoomTo(`chain ${atom.chain} and resi ${atom.number}${atom.insertion || ""}`);
    view.setMarks(picks3.map(a => a.position));
    // The residue in the sequence.
    const line = document.querySelector(`#sequences .sequence[data-chain="${CSS.escape(atom.chain)}"]`);
    if (line) for (const letter of line.querySelectorAll(".letters span")) if (letter.dataset.number === String(atom.number)) letter.classList.add("picked");
  };
  // A pick comes from a deliberate tap on the picture only (never from a menu, a button or a re-render).
  const picked = atom => {
    if (!atom) {
      picks3.length = 0;
      showPicks();
      pickedLine.textContent = "Nothing there: the picks are cleared.";
      return;
    }
    picks3.push(atom);
    if (picks3.length > 3) picks3.shift();
    showPicks();
  };
  const view = new LiveView(record.id, img, {
    look: query, record: true, view: startView,
    onTap: tap => picked(tap.atom),
    // What is under the resting pointer, beside it.
    onHover: h => {
      if (!h || !h.atom) { tooltip.hidden = true; return; }
      const b = img.getBoundingClientRect(), perPoint = (img.naturalWidth || b.width) / b.width;
      tooltip.textContent = fmt(h.atom);
      tooltip.style.left = `${Math.min(b.width - 160, h.x / perPoint + 12)}px`;
      tooltip.style.top = `${h.y / perPoint + 12}px`;
      tooltip.hidden = false;
    },
    onFrame: info => {
      drawMarks(info.marks);
      remember();
      // A highlight draws through shows: the mode said is the one chosen.
      mode.textContent = look.highlight ? `Mode: ${look.mode} · ${look.highlight} highlighted, the rest dimmed`
        : `Mode: ${info.mode}${info.drawn ? ` (${info.drawn})` : ""}`;
      // A double tap changed the mode: the menu, and the next session's query, follow.
      if (info.mode !== look.mode && representations.includes(info.mode) && !look.highlight) {
        look.mode = info.mode;
        modeMenu.value = info.mode;
        remember();
      }
      caption.textContent = info.caption || "";
    },
    onState: (state, text) => {
      loading.hidden = state === "live";
      img.classList.toggle("waiting", state !== "live");
      loading.textContent = state === "loading" ? "Loading the view…" : text || "";
      notice.textContent = state === "live" ? "" : text || "";
      img.dataset.state = state;
    },
  });
  view.connect();
  leave = () => view.close();

  const modeMenu = el("select", { id: "mode-menu", "aria-label": "Representation" },
    ...representations.map(m => el("option", { value: m, ...(m === look.mode ? { selected: "" } : {}) }, m)));
  const colourMenu = el("select", { id: "color-menu", "aria-label": "Colour" },
    ...colourings.map(([v, t]) => el("option", { value: v, ...(v === look.color ? { selected: "" } : {}) }, t)));
  modeMenu.addEventListener("change", () => { look.mode = modeMenu.value; remember(); view.connect(); });
  // The biological assemblies the entry declares (auto: the first, as the RCSB and Mol* show an entry).
  const assemblies = record.assemblies || [];
  const assemblyMenu = el("select", { id: "assembly-menu", "aria-label": "Assembly" },
    el("option", { value: "auto", ...(look.assembly === "auto" ? { selected: "" } : {}) }, assemblies.length ? "auto (the first assembly)" : "auto (the file's model)"),
    el("option", { value: "model", ...(look.assembly === "model" ? { selected: "" } : {}) }, `the deposited model · ${record.atoms} atoms`),
    ...assemblies.map(a => el("option", { value: a.id, ...(look.assembly === a.id ? { selected: "" } : {}) },
      `assembly ${a.id} · ${a.copies} ${a.copies === 1 ? "copy" : "copies"} · ${a.atoms} atoms${a.details ? ` · ${a.details}` : ""}`)));
  assemblyMenu.addEventListener("change", () => { look.assembly = assemblyMenu.value; remember(); view.connect(); });
  // Depth: a slab about the view's centre (PyMOL's clip slab); automatic clips about a focused part only.
  const slabMenu = el("select", { id: "slab-menu", "aria-label": "Depth" },
    ...[["auto", "Automatic"], ["none", "Everything"], ["8", "Slab 8 Å"], ["16", "Slab 16 Å"], ["32", "Slab 32 Å"]]
      .map(([v, t]) => el("option", { value: v, ...(v === look.slab ? { selected: "" } : {}) }, t)));
  slabMenu.addEventListener("change", () => { look.slab = slabMenu.value; remember(); view.connect(); });
  // A highlighted ligand's interactions with its site, as PLIP finds them, drawn over the view.
  const showInteractions = el("button", { id: "interactions", hidden: "", "aria-pressed": look.interactions ? "true" : "false" }, "Interactions");
  const ligandHighlighted = () => look.highlight && look.highlight.startsWith("resn ");
  const updateInteractions = () => {
    showInteractions.hidden = !ligandHighlighted() && !look.interactions;
    showInteractions.setAttribute("aria-pressed", look.interactions ? "true" : "false");
  };
  // The highlighted ligand as a binding-site figure (the service's site=), from one button.
  const showSite = el("button", { id: "site", hidden: "", "aria-pressed": look.site ? "true" : "false" }, "Binding site");
  const updateSite = () => {
    showSite.hidden = !ligandHighlighted() && !look.site;
    showSite.setAttribute("aria-pressed", look.site ? "true" : "false");
  };
  updateSite();
  showSite.addEventListener("click", () => {
    look.site = look.site ? null : (ligandHighlighted() ? look.highlight : null);
    if (look.site) look.focus = look.site;
    view.sent = [];
    view.view = null;
    updateSite();
    remember();
    view.connect();
  });
  updateInteractions();
  showInteractions.addEventListener("click", () => {
    look.interactions = look.interactions ? null : (ligandHighlighted() ? look.highlight : null);
    updateInteractions();
    remember();
    view.connect();
  });
  // A colour chosen while a part is highlighted colours the whole molecule and clears the highlight
  // (as Mol* does): under a surface, a highlighted ligand's new colour would not show.
  colourMenu.addEventListener("change", () => {
    look.color = colourMenu.value;
    if (look.highlight) {
      look.highlight = null;
      for (const b of picks.querySelectorAll("button")) b.setAttribute("aria-pressed", "false");
      zoomPart.hidden = true;
    }
    remember();
    view.connect();
  });

  // Chains and ligands: picking one keeps its colours and dims the rest; "Zoom to" turns to it and fits it.
  const picks = el("div", { id: "parts", class: "parts" });
  const pick = (button, selection) => {
    const same = look.highlight === selection;
    for (const b of picks.querySelectorAll("button")) b.setAttribute("aria-pressed", "false");
    look.highlight = same ? null : selection;
    if (!same) button.setAttribute("aria-pressed", "true");
    zoomPart.hidden = !look.highlight;
    if (!look.highlight) look.site = null;
    updateInteractions();
    updateSite();
    remember();
    view.connect();
  };
  // A new camera (the gestures so far left behind): fitted to the selection, or to everything.
  const zoomTo = selection => {
    look.focus = selection;
    view.sent = [];
    view.view = null;
    zoomAll.hidden = !selection;
    remember();
    view.connect();
  };
  const zoomPart = el("button", { id: "zoom-part", ...(look.highlight ? {} : { hidden: "" }), onclick: () => zoomTo(look.highlight) }, "Zoom to it");
  const zoomAll = el("button", { id: "zoom-all", ...(look.focus ? {} : { hidden: "" }), onclick: () => zoomTo(null) }, "Whole molecule");
  const zoomResidue = el("button", { id: "zoom-residue", hidden: "" }, "Zoom to this residue");
  const fullScreen = el("button", { id: "full-screen", onclick: () => (document.fullscreenElement ? document.exitFullscreen() : stage.requestFullscreen()).catch(() => {}) }, "Full screen");
  // Chains grouped by the entity they belong to (a heading each), then ligands by their chemical names.
  const entities = new Map((record.entities || []).map(e => [e.id, e]));
  const groups = new Map();
  for (const c of record.chainList || []) {
    const key = c.entity || "";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(c);
  }
  for (const [key, chains] of groups) {
    const e = entities.get(key);
    if (e) picks.append(el("div", { class: "entity", "data-entity": key }, `Entity ${key}${e.description ? `: ${e.description}` : ""}`));
    for (const c of chains) {
      const b = el("button", { class: "part chain", "data-chain": c.id, "aria-pressed": String(look.highlight === `chain ${c.id}`) }, `${chainLabel(c)} · ${chainSize(c)}`);
      if (c.id) b.addEventListener("click", () => pick(b, `chain ${c.id}`)); else b.disabled = true;
      picks.append(b);
    }
  }
  for (const l of record.ligands || []) {
    const name = l.chemicalName ? `${l.name} · ${l.chemicalName.toLowerCase()}` : l.name;
    const b = el("button", { class: "part ligand", "data-ligand": l.name, "aria-pressed": String(look.highlight === `resn ${l.name}`), title: l.chemicalName || l.name },
      `${name}${l.copies > 1 ? ` ×${l.copies}` : ""}`);
    b.addEventListener("click", () => pick(b, `resn ${l.name}`));
    picks.append(b);
  }
  const modified = (record.modifiedResidues || []).map(m => `${m.name} (${m.parent})${m.count > 1 ? ` ×${m.count}` : ""}`).join(", ");

  // Download: the current view at a chosen size (a replay of the gestures sent), or the events.
  const size = el("select", { id: "download-size", "aria-label": "Picture size" },
    ...[256, 512, 1024, 2048].map(n => el("option", { value: n, ...(n === 512 ? { selected: "" } : {}) }, `${n} px`)));
  const downloadPNG = el("button", { id: "download-png" }, "Download PNG");
  downloadPNG.addEventListener("click", async () => {
    const n = size.value, events = [view.header(), ...view.sent].map(e => JSON.stringify(e)).join("\n") + "\n";
    const r = await fetch(address(`/v1/replay?molecule=${record.id}&size=${n}x${n}&${query()}`), authorized({ method: "POST", body: events }));
    if (!r.ok) { notice.textContent = `The picture could not be made: ${(await r.json().catch(() => ({}))).error?.message || r.status}.`; return; }
    const blob = new Blob([await r.arrayBuffer()], { type: "image/png" });
    window.molshotDownload = { ...(await pngSize(blob)), bytes: blob.size };
    download(blob, `${record.name}-${n}.png`);
  });
  // A turntable of the view as it is now (its camera, representation and colours), made by the
  // server as a movie: one turn about the screen's vertical axis in 10 s at 30 frames a second.
  const movieFormat = el("select", { id: "movie-format", "aria-label": "Movie format" },
    ...[["mp4", "MP4 (slides)"], ["webm", "WebM (web)"], ["gif", "GIF (chat)"]].map(([v, t]) => el("option", { value: v }, t)));
  const recordMovie = el("button", { id: "record-movie" }, "Record 10 s turntable");
  const movieLink = el("a", { id: "movie-link", hidden: "" });
  const movieStatus = el("span", { id: "movie-status", role: "status" });
  recordMovie.addEventListener("click", async () => {
    const format = movieFormat.value, fps = format === "gif" ? 20 : 30, seconds = 10, frames = fps * seconds;
    const b = view.box(), events = [{ type: "header", version: 1, viewport: { width: b.width, height: b.height } }];
    if (view.view) events.push({ t: 0, type: "view", rotation: view.view.slice(0, 4), zoom: view.view[4], pan: view.view.slice(5, 7) });
    // 0.5 degrees a point: 720 points make a turn; the last frame stops a step short of the first.
    for (let i = 1; i < frames; i++) events.push({ t: i / fps, type: "rotate", dx: 720 / frames, dy: 0 });
    recordMovie.disabled = true;
    movieStatus.textContent = "Recording the turntable…";
    try {
      const n = Math.min(1024, parseInt(size.value, 10)) & ~1;
      const r = await fetch(address(`/v1/replay?molecule=${record.id}&size=${n}x${n}&fps=${fps}&format=${format}&${query()}`),
                            authorized({ method: "POST", body: events.map(e => JSON.stringify(e)).join("\n") + "\n" }));
      if (!r.ok) { movieStatus.textContent = `The movie could not be made: ${(await r.json().catch(() => ({}))).error?.message || r.status}.`; return; }
      const blob = new Blob([await r.arrayBuffer()], { type: r.headers.get("content-type") || "application/octet-stream" });
      window.molshotMovie = { type: blob.type, bytes: blob.size };
      if (movieLink.href) URL.revokeObjectURL(movieLink.href);
      movieLink.href = URL.createObjectURL(blob);
      movieLink.download = `${record.name}-turntable.${format}`;
      movieLink.textContent = `Save ${movieLink.download} (${(blob.size / 1024).toFixed(0)} KB)`;
      movieLink.hidden = false;
      movieStatus.textContent = "";
    } finally {
      recordMovie.disabled = false;
    }
  });
  const downloadEvents = el("button", { id: "download-events" }, "Download events");
  downloadEvents.addEventListener("click", async () => {
    if (!view.sessionID) return;
    const r = await fetch(address(`/v1/sessions/${view.sessionID}/events`), authorized());
    if (r.ok) download(new Blob([await r.text()], { type: "application/x-ndjson" }), `${record.name}-events.jsonl`);
  });

  const meta = record.metadata || {};
  const facts = [record.pdbId && `PDB ${record.pdbId}`, record.method, record.resolution && `${Number(record.resolution).toFixed(2)} Å`,
                 `${record.atoms} atoms`, `${record.chains} ${record.chains === 1 ? "chain" : "chains"}`, `${record.residues} residues`].filter(Boolean).join(" · ");
  const sequences = el("div", { id: "sequences" });
  // The entry's image set (as molshot images makes it): a strip of small pictures. A click shows
  // the picture's view live (its assembly, representation, colours, highlight and focus); a middle
  // or modified click opens the picture itself large.
  const strip = el("div", { id: "image-set", class: "strip" });
  const showLive = (image, link) => {
    const q = new URL(image.image, location.href).searchParams;
    const kind = image.kind;
    look.assembly = q.get("assembly") || "auto";
    look.mode = q.get("mode") || "auto";
    look.color = q.get("color") || (kind === "ligand" ? "element" : "auto");
    look.focus = q.get("focus");
    look.highlight = kind === "entity" ? `entity ${image.entity}` : kind === "modres" ? "modres" : kind === "ligand" ? look.focus : null;
    modeMenu.value = look.mode; colourMenu.value = look.color; assemblyMenu.value = look.assembly;
    look.interactions = null;
    look.site = null;
    updateInteractions();
    updateSite();
    for (const a of strip.querySelectorAll("a")) a.removeAttribute("aria-current");
    for (const b of picks.querySelectorAll("button")) b.setAttribute("aria-pressed", "false");
    link.setAttribute("aria-current", "true");
    zoomAll.hidden = !look.focus;
    zoomPart.hidden = !look.highlight;
    view.sent = [];
    view.view = null;
    remember();
    view.connect();
    stage.scrollIntoView({ block: "nearest" });
  };
  json(`/v1/molecules/${record.id}/images?size=160`).then(answer => {
    for (const image of answer.images) {
      const large = image.image.replace("size=160x160", "size=1024x1024");
      const link = el("a", { href: withTicket(large), target: "_blank", rel: "noopener", title: `${image.text} (click: show it live)`, class: `set-${image.kind}` },
        el("img", { src: withTicket(image.image), alt: image.text, width: 160, height: 160, loading: "lazy" }),
        el("span", {}, image.ligand ? `${image.kind} ${image.ligand}` : image.entity ? `entity ${image.entity}` : image.name.split("_").slice(1, -1).join(" ")));
      link.addEventListener("click", event => {
        if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        showLive(image, link);
      });
      strip.append(link);
    }
    if (!answer.images.length) strip.append(el("p", {}, "No images for this entry."));
  }).catch(e => strip.append(el("p", {}, `The image set cannot be listed: ${e.message}.`)));
  main.append(el("div", { class: "stage" }, stage, el("div", { class: "side" },
    el("h2", {}, record.name), el("p", { class: "title" }, record.title || meta.title || ""), el("p", { id: "facts" }, facts),
    el("div", { class: "controls" }, el("label", {}, "Representation ", modeMenu), el("label", {}, "Colour ", colourMenu),
      el("label", {}, "Assembly ", assemblyMenu), el("label", {}, "Depth ", slabMenu)),
    mode, caption, notice, pickedLine, el("div", { class: "controls" }, zoomResidue),
    el("h3", {}, "Chains and ligands"), picks, el("div", { class: "controls" }, zoomPart, zoomAll, showInteractions, showSite),
    modified ? el("p", { id: "modified" }, `Modified residues: ${modified}`) : "",
    el("div", { class: "controls" }, size, downloadPNG, downloadEvents,
      el("button", { id: "reset", onclick: () => view.send({ t: view.now(), type: "reset" }) }, "Reset view"), fullScreen),
    el("div", { class: "controls" }, movieFormat, recordMovie, movieLink, movieStatus),
    el("p", { class: "hint" }, "Drag to turn, wheel or pinch to zoom, two fingers to pan, double-tap for the next mode; with the view focused, arrows turn, + and − zoom, 0 resets."),
    el("p", {}, el("a", { href: `#/combine/${record.id}` }, "Combine chains")))),
  el("h3", {}, "Sequence"), sequences, el("h3", {}, "Images"), strip);

  // Sequences with their secondary structure, a line a chain.
  json(`/v1/molecules/${record.id}/sequence`).then(answer => {
    if (!answer.chains.length) { sequences.append(el("p", {}, "No polymer chains.")); return; }
    for (const c of answer.chains) {
      const letters = el("span", { class: "letters" });
      [...c.letters].forEach((letter, i) => {
        const number = c.numbers ? c.numbers[i] : c.first + i;
        const span = el("span", { class: `ss-${c.structure[i] === "H" ? "helix" : c.structure[i] === "E" ? "strand" : "coil"}`,
                                  title: `${c.letters[i]} ${number}`, "data-number": number }, letter);
        // A residue picked in the sequence is shown in the view, as a picked chain is.
        if (c.chain) span.addEventListener("click", () => pick(span, `chain ${c.chain} and resi ${number}`));
        letters.append(span);
      });
      sequences.append(el("div", { class: "sequence", "data-chain": c.chain }, el("span", { class: "chain-name" }, c.chain || "(blank)"), letters));
    }
    sequences.append(el("p", { class: "hint" }, el("span", { class: "ss-helix" }, "helix"), " ", el("span", { class: "ss-strand" }, "strand"), " coil"));
    // Each polymer entity's whole sequence as deposited, residues not observed included.
    for (const e of (record.entities || []).filter(e => e.sequence)) {
      sequences.append(el("div", { class: "sequence entity-sequence", "data-entity": e.id },
        el("span", { class: "chain-name" }, `Entity ${e.id}`),
        el("span", { class: "letters", title: `${e.description || ""} · ${e.sequence.length} residues, unobserved ones included` }, e.sequence)));
    }
  }).catch(e => sequences.append(el("p", {}, `The sequence cannot be read: ${e.message}.`)));
}

async function combinePage(id) {
  const record = await json(`/v1/molecules/${encodeURIComponent(id)}`);
  const img = el("img", { id: "view", alt: `${record.name}, live view`, draggable: "false", tabindex: "0", width: 512, height: 512 });
  const caption = el("div", { id: "caption", role: "status" });
  const view = new LiveView(record.id, img, { look: () => "", onFrame: info => { caption.textContent = info.caption || ""; }, onState: () => {} });
  view.connect();
  leave = () => view.close();
  const chains = el("fieldset", { class: "chains" }, el("legend", {}, "Chains"));
  for (const c of record.chainList) {
    const what = c.id ? `Chain ${c.id}` : "The blank chain id (waters and ligands without a chain)";
    chains.append(el("label", {}, el("input", { type: "checkbox", value: c.id, class: "chain" }), ` ${what} · ${chainSize(c)}`));
  }
  const combine = () => {
    for (const box of chains.querySelectorAll("input:checked")) view.send({ t: view.now(), type: "addPart", part: box.value });
    view.send({ t: view.now(), type: "combine" });
    view.send({ t: view.now(), type: "frame" });
  };
  main.append(el("div", { class: "stage" }, el("div", { class: "viewport" }, img), el("div", { class: "side" },
    el("h2", {}, `Build from ${record.name}`), el("p", {}, "Pick chains and combine them: a complex only forms when every part touches another."),
    chains, el("p", {}, el("button", { id: "combine", onclick: combine }, "Combine"), " ",
      el("button", { id: "again", onclick: () => { location.reload(); } }, "Start again")), caption)));
}

// MARK: Pathways

async function pathwaysPage() {
  const answer = await json("/v1/pathways");
  const list = el("ul", { class: "plain", id: "pathways" });
  // By title, as the file names the map (its file name where it names it nothing better).
  for (const p of answer.pathways) list.append(el("li", {}, el("a", { href: `#/pathway/${encodeURIComponent(p.id)}` }, p.title || p.id),
    el("span", { class: "hint" }, ` · ${p.file}`)));
  main.append(el("h2", {}, "Pathway maps"), list);
}

async function pathwayPage(id) {
  const info = await json(`/v1/pathways/${encodeURIComponent(id)}`);
  await ensureTicket();  // the tiles are images: a ticket in their addresses where a token is needed
  const map = el("div", { id: "map", tabindex: "0", "aria-label": "Map: arrows pan, + and − zoom" });
  const mark = el("div", { id: "highlight", hidden: "" });
  map.append(mark);
  const node = el("div", { id: "node", role: "status" }, "Click a node, or find one by name.");
  const find = el("input", { type: "search", id: "node-search", placeholder: "Find a node by name", "aria-label": "Find a node" });
  const found = el("ul", { class: "plain", id: "found" });
  main.append(el("div", { class: "stage" }, map, el("div", { class: "side" },
    el("h2", {}, info.title || id), el("p", {}, `${info.nodes} nodes; drag to pan, wheel to zoom, click a node.`),
    el("div", { class: "toolbar" }, find), found, node)));
  const W = map.clientWidth, H = map.clientHeight, T = info.tileSize;
  const deepest = info.levels.length - 1;
  // The view: a scale (pixels per map unit, any value: the wheel zooms smoothly), drawn with the
  // tiles of the level just sharper than it (z) stretched by k, and the view pixel at the top left corner.
  // At first the whole map fills the panel (a margin of 4%), drawn with the tiles of the level
  // at or just sharper than that scale.
  const fit = 0.96 * Math.min(W / Math.max(info.bounds.width, 1), H / Math.max(info.bounds.height, 1));
  let z = 0;
  while (z < deepest && info.levels[z].scale < fit * 0.999) z++;
  let k = Math.min(fit / info.levels[z].scale, 4);
  const grid = () => info.levels[z];
  const scale = () => grid().scale * k;
  let ox = (info.bounds.width * scale() - W) / 2, oy = (info.bounds.height * scale() - H) / 2;
  let picked = null;  // the node shown, in map units
  const tiles = new Map();
  function draw() {
    const g = grid(), t = T * k, wanted = new Set();
    for (let y = Math.max(0, Math.floor(oy / t)); y <= Math.min(g.rows - 1, Math.floor((oy + H) / t)); y++) {
      for (let x = Math.max(0, Math.floor(ox / t)); x <= Math.min(g.columns - 1, Math.floor((ox + W) / t)); x++) {
        const key = `${z}/${x}/${y}`;
        wanted.add(key);
        let img = tiles.get(key);
        if (!img) {
          img = el("img", { src: withTicket(`/v1/pathways/${encodeURIComponent(id)}/tiles/${key}.png`), alt: "", class: "tile" });
          tiles.set(key, img);
          map.insertBefore(img, mark);
        }
        img.style.left = `${x * t - ox}px`;
        img.style.top = `${y * t - oy}px`;
        img.style.width = img.style.height = `${t}px`;
      }
    }
    for (const [key, img] of tiles) if (!wanted.has(key)) { img.remove(); tiles.delete(key); }
    if (picked) {
      // A ring round the node shown, centred on it.
      const s = scale(), pad = 6;
      mark.hidden = false;
      mark.style.left = `${(picked.x - picked.width / 2 - info.bounds.x) * s - ox - pad}px`;
      mark.style.top = `${(picked.y - picked.height / 2 - info.bounds.y) * s - oy - pad}px`;
      mark.style.width = `${picked.width * s + 2 * pad}px`;
      mark.style.height = `${picked.height * s + 2 * pad}px`;
    }
    window.molshotMap = { z, k, ox, oy, scale: scale(), bounds: info.bounds, width: W, height: H, picked: picked && picked.id };
  }
  function show(n) {
    picked = n;
    const title = (n.name || n.label || n.id).replace(/\n/g, " ");
    const linked = (n.linked || []).map(l => el("li", {}, `${(l.name || l.id).replace(/\n/g, " ")} `, el("span", { class: "kind" }, `(${l.kind})`)));
    node.replaceChildren(el("h3", { id: "node-name" }, title), el("p", {}, `${n.kind} · id ${n.id}`),
      linked.length ? el("div", {}, el("p", {}, "Linked to:"), el("ul", { class: "plain", id: "linked" }, ...linked)) : el("p", {}, "No edges."));
    draw();
  }
  async function nodeAt(x, y, tolerance) {
    const r = await fetch(address(`/v1/pathways/${encodeURIComponent(id)}/node?x=${x}&y=${y}&tolerance=${tolerance}`), authorized());
    return r.ok ? r.json() : null;
  }
  function centre(n) {
    const s = scale();
    ox = (n.x - info.bounds.x) * s - W / 2;
    oy = (n.y - info.bounds.y) * s - H / 2;
  }
  draw();
  let drag = null;
  map.addEventListener("pointerdown", e => { map.setPointerCapture(e.pointerId); drag = { x: e.clientX, y: e.clientY, ox, oy, moved: 0 }; });
  map.addEventListener("pointermove", e => {
    if (!drag) return;
    ox = drag.ox - (e.clientX - drag.x);
    oy = drag.oy - (e.clientY - drag.y);
    drag.moved = Math.max(drag.moved, Math.hypot(e.clientX - drag.x, e.clientY - drag.y));
    draw();
  });
  map.addEventListener("pointerup", async e => {
    const tap = drag && drag.moved < 5;
    drag = null;
    if (!tap) return;
    const b = map.getBoundingClientRect();
    const s = scale();
    const n = await nodeAt(info.bounds.x + (ox + e.clientX - b.left) / s, info.bounds.y + (oy + e.clientY - b.top) / s, Math.max(2, 6 / s));
    if (n) show(n); else { picked = null; mark.hidden = true; node.textContent = "No node there."; draw(); }
  });
  // Zooms by `factor` about view point (mx, my), between a quarter of the first level's scale and
  // four times the deepest's; the tiles are those of the level at or just above the new scale.
  const zoom = (factor, mx = W / 2, my = H / 2) => {
    const lowest = info.levels[0].scale / 4, highest = info.levels[deepest].scale * 4;
    const before = scale(), after = Math.max(lowest, Math.min(highest, before * factor));
    if (after === before) return;
    let nz = 0;
    while (nz < deepest && info.levels[nz].scale < after * 0.999) nz++;
    z = nz;
    k = after / info.levels[z].scale;
    ox = (ox + mx) * (after / before) - mx;
    oy = (oy + my) * (after / before) - my;
    draw();
  };
  map.addEventListener("wheel", e => {
    e.preventDefault();
    const b = map.getBoundingClientRect();
    // About 1.1x a notch (100 px, 3 lines); a trackpad's small steps zoom as little.
    const px = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 800 : 1);
    zoom(Math.exp(-px / 1050), e.clientX - b.left, e.clientY - b.top);
  }, { passive: false });
  map.addEventListener("keydown", e => {
    const pan = { ArrowLeft: [-64, 0], ArrowRight: [64, 0], ArrowUp: [0, -64], ArrowDown: [0, 64] }[e.key];
    if (pan) { ox += pan[0]; oy += pan[1]; draw(); } else if (e.key === "+" || e.key === "=") zoom(1.5); else if (e.key === "-") zoom(1 / 1.5); else return;
    e.preventDefault();
  });
  // Find: the nodes whose name holds the text; picking one centres and highlights it.
  let typing = null;
  const search = async pickFirst => {
    const text = find.value.trim();
    if (!text) { found.replaceChildren(); return; }
    const answer = await json(`/v1/pathways/${encodeURIComponent(id)}/nodes?query=${encodeURIComponent(text)}&limit=8`);
    const go = async n => { centre(n); show((await nodeAt(n.x, n.y, 0)) || n); };
    found.replaceChildren(...answer.nodes.map(n => el("li", {}, el("button", { class: "found", onclick: () => go(n) },
      `${(n.name || n.label || n.id).replace(/\n/g, " ")} (${n.kind})`))));
    if (!answer.nodes.length) found.append(el("li", {}, `No node is called “${text}”.`));
    else if (pickFirst) await go(answer.nodes[0]);
  };
  find.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => search(false).catch(() => {}), 200); });
  find.addEventListener("keydown", e => { if (e.key === "Enter") search(true).catch(err => { node.textContent = err.message; }); });
}

window.addEventListener("hashchange", route);
route();
