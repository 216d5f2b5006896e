// The timeline's window onto a session, in ms after it started: zooming about a point, panning,
// fitting the whole, and the ticks of its axis. Pure arithmetic, tested beside it; what is in
// the window comes from the core.

export interface Window {
  from: number;
  to: number;
}

/** The narrowest window: a millisecond spread over the view is as far down as anyone looks. */
export const MIN_WIDTH = 0.5;

/** The window after zooming by `factor` (below 1 zooms in) about the point at `anchor` (0 at
 * the left edge, 1 at the right), kept within the session `[0, end]`. */
export function zoomAt(w: Window, factor: number, anchor: number, end: number): Window {
  const width = w.to - w.from;
  const bound = Math.max(end, MIN_WIDTH);
  const next = Math.min(Math.max(width * factor, MIN_WIDTH), bound);
  const at = w.from + width * anchor;
  return clamp({ from: at - next * anchor, to: at - next * anchor + next }, bound);
}

/** The window moved by `fraction` of its width (negative: earlier), kept within the session. */
export function pan(w: Window, fraction: number, end: number): Window {
  const shift = (w.to - w.from) * fraction;
  return clamp({ from: w.from + shift, to: w.to + shift }, Math.max(end, MIN_WIDTH));
}

/** The whole session, with a little room after its last moment. */
export function fit(end: number): Window {
  return { from: 0, to: Math.max(end * 1.02, MIN_WIDTH * 10) };
}

function clamp(w: Window, end: number): Window {
  const width = w.to - w.from;
  if (w.from < 0) return { from: 0, to: width };
  if (w.to > end * 1.02 && width < end) return { from: end * 1.02 - width, to: end * 1.02 };
  return w;
}

/** Round times for the axis: about one per `spacing` pixels, each a 1, 2 or 5 times a power of
 * ten ms. */
export function ticks(w: Window, width: number, spacing = 110): number[] {
  const wanted = Math.max(1, Math.floor(width / spacing));
  const raw = (w.to - w.from) / wanted;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(w.from / step) * step; t <= w.to && out.length < 100; t += step) out.push(t);
  return out;
}

/** The x of time `at` in a view `width` pixels wide. */
export const xOf = (w: Window, at: number, width: number) => ((at - w.from) / (w.to - w.from)) * width;
