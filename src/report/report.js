// Zoom: the timeline is stretched wider (it scrolls sideways); nothing is fetched, nothing else runs.
(() => {
  const svg = document.getElementById("timeline");
  if (!svg) return;
  const base = Number(svg.getAttribute("width"));
  let scale = 1;
  for (const button of document.querySelectorAll("button[data-zoom]")) {
    button.addEventListener("click", () => {
      const by = Number(button.dataset.zoom);
      scale = by === 0 ? 1 : Math.min(512, Math.max(1, scale * by));
      svg.setAttribute("width", String(base * scale));
      // The drawing stretches; its words keep their shape.
      svg.style.setProperty("--unscale", String(1 / scale));
    });
  }
})();
