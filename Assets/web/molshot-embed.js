// Turns every <div data-molshot="https://SERVER/v1/molecules/ID?mode=cartoon"> on a page into a live
// view of that molecule from that Molshot server: an <iframe> of SERVER/embed.html the element's size
// (512 x 512 where it has none). No build step, no other script.
//   <div data-molshot="https://molshot.example/v1/molecules/1crn?mode=cartoon" style="width:400px;height:300px"></div>
//   <script src="https://molshot.example/molshot-embed.js"></script>
(() => {
  for (const host of document.querySelectorAll("[data-molshot]")) {
    if (host.dataset.molshotReady) continue;
    let url;
    try { url = new URL(host.dataset.molshot, document.baseURI); } catch { continue; }
    const match = url.pathname.match(/\/v1\/molecules\/([^/]+)\/?$/);
    if (!match) { host.textContent = "data-molshot must be SERVER/v1/molecules/ID"; continue; }
    const box = host.getBoundingClientRect();
    const frame = document.createElement("iframe");
    frame.src = `${url.origin}/embed.html#/molecule/${match[1]}${url.search}`;
    frame.title = `Molshot view of ${decodeURIComponent(match[1])}`;
    frame.width = Math.round(box.width) || 512;
    frame.height = Math.round(box.height) || 512;
    frame.style.border = "0";
    frame.allow = "fullscreen";
    host.replaceChildren(frame);
    host.dataset.molshotReady = "1";
  }
})();
