// Turns every <div data-molshot="https://SERVER/v1/molecules/ID?mode=cartoon"> on a page into a live
// view of that molecule from that Molshot server: an <iframe> of SERVER/embed.html the element's size
// (512 x 512 where it has none), resized with it. No build step, no other script.
//   <div data-molshot="https://molshot.example/v1/molecules/1crn?mode=cartoon" style="width:400px;height:300px"></div>
//   <script src="https://molshot.example/molshot-embed.js"></script>
// A server that needs a token (--token-to-read) is shown a private molecule with a ticket for it
// (POST /v1/tickets?scope=/v1/molecules/ID&seconds=3600): in the address (...?ticket=T) or as
// data-molshot-ticket="T"; the view uses it for every request.
(() => {
  for (const host of document.querySelectorAll("[data-molshot]")) {
    if (host.dataset.molshotReady) continue;
    let url;
    try { url = new URL(host.dataset.molshot, document.baseURI); } catch { continue; }
    const match = url.pathname.match(/\/v1\/molecules\/([^/]+)\/?$/);
    if (!match) { host.textContent = "data-molshot must be SERVER/v1/molecules/ID"; continue; }
    const params = new URLSearchParams(url.search);
    const ticket = host.dataset.molshotTicket || params.get("ticket");
    params.delete("ticket");
    if (ticket) params.set("ticket", ticket);
    const box = host.getBoundingClientRect();
    const frame = document.createElement("iframe");
    const query = params.toString();
    frame.src = `${url.origin}/embed.html#/molecule/${match[1]}${query ? `?${query}` : ""}`;
    frame.title = `Molshot view of ${decodeURIComponent(match[1])}`;
    frame.width = Math.round(box.width) || 512;
    frame.height = Math.round(box.height) || 512;
    frame.style.border = "0";
    frame.style.display = "block";
    frame.allow = "fullscreen";
    host.replaceChildren(frame);
    host.dataset.molshotReady = "1";
    // The view follows its host's size (a page's layout, a resized panel); the view inside asks
    // for frames of the new size without a new session.
    if (typeof ResizeObserver === "function") {
      new ResizeObserver(() => {
        const b = host.getBoundingClientRect();
        const w = Math.round(b.width), h = Math.round(b.height);
        if (w > 0 && h > 0 && (frame.width != w || frame.height != h)) {
          frame.width = w;
          frame.height = h;
        }
      }).observe(host);
    }
  }
})();
