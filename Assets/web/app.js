// Molshot's web viewer: plain JavaScript over the service's routes, no build step.
// Pages (by the address's hash): #/?page=N&q=TEXT the library, nine thumbnails a page;
// #/molecule/ID a live view (a WebSocket session: gestures in, frames out); #/combine/ID the
// combination building screen; #/pathways and #/pathway/ID the tile pyramid with node taps.
"use strict";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
let leave = () => {};  // closes what the current page opened

function el(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function say(text) { statusLine.textContent = text; }

async function json(url, options) {
  const r = await fetch(url, options);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return r.json();
}

function route() {
  leave();
  leave = () => {};
  main.replaceChildren();
  say("");
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query || "");
  const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
  const page = { molecule: moleculePage, combine: combinePage, pathways: pathwaysPage, pathway: pathwayPage }[parts[0]] || libraryPage;
  page(parts[1], params).catch(e => say(String(e.message || e)));
}

// MARK: Library

const perPage = 9;

async function libraryPage(_, params) {
  const page = Math.max(1, parseInt(params.get("page") || "1", 10));
  const q = params.get("q") || "";
  const search = el("input", { type: "search", id: "search", placeholder: "Search names and titles", value: q });
  search.addEventListener("keydown", e => { if (e.key === "Enter") location.hash = `#/?q=${encodeURIComponent(search.value)}`; });
  const prev = el("button", { id: "prev" }, "Previous"), next = el("button", { id: "next" }, "Next");
  const label = el("span", { id: "page" });
  const grid = el("div", { id: "grid" });
  main.append(el("div", { class: "toolbar" }, search, prev, label, next), grid);
  const answer = await json(`/v1/molecules?offset=${(page - 1) * perPage}&limit=${perPage}` + (q ? `&query=${encodeURIComponent(q)}` : ""));
  const pages = Math.max(1, Math.ceil(answer.total / perPage));
  label.textContent = `${page} of ${pages}`;
  const go = p => { location.hash = `#/?page=${p}` + (q ? `&q=${encodeURIComponent(q)}` : ""); };
  prev.disabled = page <= 1;
  next.disabled = page >= pages;
  prev.onclick = () => go(page - 1);
  next.onclick = () => go(page + 1);
  for (const m of answer.molecules) {
    const src = `/v1/molecules/${m.id}/image?size=256`;
    const img = el("img", { src, alt: m.name, loading: "eager" });
    // A busy server answers 503 with Retry-After: ask again a few times, a second apart.
    let tries = 0;
    img.onerror = () => { if (++tries <= 5) setTimeout(() => { img.src = `${src}&try=${tries}`; }, 1000); };
    grid.append(el("a", { href: `#/molecule/${m.id}`, title: m.title || m.name }, img, el("span", { class: "name" }, m.name)));
  }
  if (!answer.molecules.length) grid.append(el("p", {}, q ? "Nothing matches." : "The library is empty."));
}

// MARK: Live sessions

/// A live session on `img`: pointer, wheel and touch input become lines of the gesture event format.
function liveSession(id, img, onInfo) {
  const size = 512;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/v1/sessions?molecule=${encodeURIComponent(id)}&size=${size}x${size}`);
  ws.binaryType = "blob";
  const start = performance.now();
  let last = 0;
  const now = () => { last = Math.max(last, (performance.now() - start) / 1000); return Math.round(last * 1000) / 1000; };
  const send = event => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(event)); };
  let pendingInfo = null, url = null;
  ws.onopen = () => {
    const box = img.getBoundingClientRect();
    ws.send(JSON.stringify({ type: "header", version: 1, viewport: { width: box.width || size, height: box.height || size } }));
  };
  ws.onmessage = m => {
    if (typeof m.data === "string") {
      const info = JSON.parse(m.data);
      if (info.type === "frame") pendingInfo = info;
      else if (info.type === "error") say(`line ${info.line}: ${info.message}`);
      return;
    }
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(m.data);
    img.src = url;
    img.dataset.events = pendingInfo ? pendingInfo.events : "0";
    if (pendingInfo && onInfo) onInfo(pendingInfo);
  };
  ws.onclose = e => { if (e.reason) say(e.reason); };

  // Pointers (mouse, pen, fingers) are touches; ids are the pointers' own.
  const point = e => { const b = img.getBoundingClientRect(); return { x: e.clientX - b.left, y: e.clientY - b.top }; };
  const down = new Map();
  let lastTap = { time: -1, x: 0, y: 0 };
  img.addEventListener("pointerdown", e => {
    e.preventDefault();
    img.setPointerCapture(e.pointerId);
    const p = point(e);
    down.set(e.pointerId, p);
    send({ t: now(), type: "touch", phase: "began", id: e.pointerId, x: p.x, y: p.y });
  });
  img.addEventListener("pointermove", e => {
    if (!down.has(e.pointerId)) return;
    const p = point(e);
    send({ t: now(), type: "touch", phase: "moved", id: e.pointerId, x: p.x, y: p.y });
  });
  const up = (e, phase) => {
    if (!down.has(e.pointerId)) return;
    const start = down.get(e.pointerId), p = point(e);
    down.delete(e.pointerId);
    // A second short tap near the first within 0.35 s is a double tap (the next mode).
    const t = now(), still = Math.hypot(p.x - start.x, p.y - start.y) < 10;
    const double = still && phase === "ended" && t - lastTap.time < 0.35 && Math.hypot(p.x - lastTap.x, p.y - lastTap.y) < 30;
    lastTap = still ? { time: double ? -1 : t, x: p.x, y: p.y } : { time: -1, x: 0, y: 0 };
    send({ t, type: "touch", phase, id: e.pointerId, x: p.x, y: p.y, tapCount: double ? 2 : 1 });
  };
  img.addEventListener("pointerup", e => up(e, "ended"));
  img.addEventListener("pointercancel", e => up(e, "cancelled"));
  // The wheel zooms; a trackpad pinch arrives as a wheel with ctrlKey and zooms faster.
  img.addEventListener("wheel", e => {
    e.preventDefault();
    send({ t: now(), type: "pinch", scale: Math.exp(-e.deltaY / (e.ctrlKey ? 100 : 500)) });
  }, { passive: false });
  return { send, now, close: () => ws.close(), socket: ws };
}

async function moleculePage(id) {
  const record = await json(`/v1/molecules/${encodeURIComponent(id)}`);
  const img = el("img", { id: "view", alt: record.name, draggable: "false" });
  const mode = el("div", { id: "mode" }), caption = el("div", { id: "caption" });
  const session = liveSession(id, img, info => {
    mode.textContent = `Mode: ${info.mode}`;
    caption.textContent = info.caption || "";
  });
  leave = session.close;
  main.append(el("div", { class: "stage" }, img, el("div", { class: "side" },
    el("h2", {}, record.name), el("p", {}, record.title || ""),
    el("p", {}, `${record.atoms} atoms, ${record.chains} chains, ${record.format}`), mode, caption,
    el("p", {}, "Drag to turn, wheel or pinch to zoom, two fingers to pan, double-tap for the next mode."),
    el("p", {}, el("button", { id: "reset", onclick: () => session.send({ t: session.now(), type: "reset" }) }, "Reset view"), " ",
      el("a", { href: `#/combine/${record.id}` }, "Combine chains")))));
}

async function combinePage(id) {
  const record = await json(`/v1/molecules/${encodeURIComponent(id)}`);
  const img = el("img", { id: "view", alt: record.name, draggable: "false" });
  const caption = el("div", { id: "caption" });
  const session = liveSession(id, img, info => { caption.textContent = info.caption || ""; });
  leave = session.close;
  const chains = el("div", { class: "chains" });
  for (const c of record.chainList) {
    chains.append(el("label", {}, el("input", { type: "checkbox", value: c.id, class: "chain" }), ` ${c.id} (${c.residues} residues)`));
  }
  const combine = () => {
    for (const box of chains.querySelectorAll("input:checked")) session.send({ t: session.now(), type: "addPart", part: box.value });
    session.send({ t: session.now(), type: "combine" });
    session.send({ t: session.now(), type: "frame" });
  };
  main.append(el("div", { class: "stage" }, img, el("div", { class: "side" },
    el("h2", {}, `Build from ${record.name}`), el("p", {}, "Pick chains and combine them: a complex only forms when every part touches another."),
    chains, el("p", {}, el("button", { id: "combine", onclick: combine }, "Combine"), " ",
      el("button", { id: "again", onclick: () => { location.reload(); } }, "Start again")), caption)));
}

// MARK: Pathways

async function pathwaysPage() {
  const answer = await json("/v1/pathways");
  const list = el("ul", { class: "plain", id: "pathways" });
  for (const p of answer.pathways) list.append(el("li", {}, el("a", { href: `#/pathway/${encodeURIComponent(p.id)}` }, p.id), ` (${p.file})`));
  main.append(el("h2", {}, "Pathway maps"), list);
}

async function pathwayPage(id) {
  const info = await json(`/v1/pathways/${encodeURIComponent(id)}`);
  const map = el("div", { id: "map" });
  const node = el("div", { id: "node" }, "Tap a node to see it.");
  main.append(el("div", { class: "stage" }, map, el("div", { class: "side" },
    el("h2", {}, info.title || id), el("p", {}, `${info.nodes} nodes; drag to pan, wheel to zoom, click a node.`), node)));
  const W = map.clientWidth, H = map.clientHeight, T = info.tileSize;
  const deepest = info.levels.length - 1;
  // The view: a level and the level pixel at the top left corner.
  let z = Math.max(0, Math.min(deepest, Math.floor(Math.log2(Math.min(W, H) / T))));
  const grid = () => info.levels[z];
  let ox = (grid().columns * T - W) / 2, oy = (grid().rows * T - H) / 2;
  const tiles = new Map();
  function draw() {
    const g = grid(), wanted = new Set();
    for (let y = Math.max(0, Math.floor(oy / T)); y <= Math.min(g.rows - 1, Math.floor((oy + H) / T)); y++) {
      for (let x = Math.max(0, Math.floor(ox / T)); x <= Math.min(g.columns - 1, Math.floor((ox + W) / T)); x++) {
        const key = `${z}/${x}/${y}`;
        wanted.add(key);
        let img = tiles.get(key);
        if (!img) {
          img = el("img", { src: `/v1/pathways/${encodeURIComponent(id)}/tiles/${key}.png`, alt: "", class: "tile" });
          tiles.set(key, img);
          map.append(img);
        }
        img.style.left = `${x * T - ox}px`;
        img.style.top = `${y * T - oy}px`;
      }
    }
    for (const [key, img] of tiles) if (!wanted.has(key)) { img.remove(); tiles.delete(key); }
    window.molshotMap = { z, ox, oy, scale: grid().scale, bounds: info.bounds, width: W, height: H };
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
    const s = grid().scale;
    const x = info.bounds.x + (ox + e.clientX - b.left) / s, y = info.bounds.y + (oy + e.clientY - b.top) / s;
    const r = await fetch(`/v1/pathways/${encodeURIComponent(id)}/node?x=${x}&y=${y}&tolerance=${Math.max(2, 6 / s)}`);
    if (!r.ok) { node.textContent = "No node there."; return; }
    const n = await r.json();
    node.replaceChildren(el("h3", { id: "node-name" }, n.name || n.label || n.id),
      el("p", {}, `${n.kind} · id ${n.id}`), el("p", {}, n.neighbours.length ? `Linked to: ${n.neighbours.join(", ")}` : "No edges."));
  });
  map.addEventListener("wheel", e => {
    e.preventDefault();
    const step = e.deltaY < 0 ? 1 : -1, nz = Math.max(0, Math.min(deepest, z + step));
    if (nz === z) return;
    const b = map.getBoundingClientRect(), mx = e.clientX - b.left, my = e.clientY - b.top;
    const k = info.levels[nz].scale / grid().scale;
    ox = (ox + mx) * k - mx;
    oy = (oy + my) * k - my;
    z = nz;
    draw();
  }, { passive: false });
}

window.addEventListener("hashchange", route);
route();
