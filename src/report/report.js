// Zoom: the timeline fits its box (Fit, and as the page opens or the window is resized), and
// is stretched wider by the zoom buttons (it scrolls sideways); nothing is fetched, nothing else runs.
(() => {
  const svg = document.getElementById("timeline");
  if (!svg) return;
  const drawn = Number(svg.getAttribute("width"));
  const box = svg.parentElement;
  let scale = 1;
  const draw = () => {
    const width = Math.max(200, box.clientWidth) * scale;
    svg.setAttribute("width", String(width));
    // The drawing stretches; its words keep their shape.
    svg.style.setProperty("--unscale", String(drawn / width));
  };
  for (const button of document.querySelectorAll("button[data-zoom]")) {
    button.addEventListener("click", () => {
      const by = Number(button.dataset.zoom);
      scale = by === 0 ? 1 : Math.min(512, Math.max(1, scale * by));
      draw();
    });
  }
  window.addEventListener("resize", draw);
  draw();
})();
