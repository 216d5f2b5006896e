// Drawing a timeline view on a canvas, and what lies under a point of it. The view is the core's
// (`timeline_view`): lanes, spans with the log's outcomes, operations, marks and buckets; this
// only places them and picks colours, and remembers what it drew where, for hover and click.
import type { LaneView, RequestOutcome, TimelineView } from "../ipc/bindings";
import { ticks, xOf, type Window } from "./scale";
import { formatDuration } from "../log/format";

export const GUTTER = 150;
export const AXIS = 20;
const OP_BAND = 9;
const TRACK = 12;
const MARK_ROW = 12;
const LANE_GAP = 8;

/** Outcome colours; a request still waiting is drawn in the accent colour. */
export const OUTCOME_COLOUR: Record<RequestOutcome, string> = {
  result: "#3fa34d",
  error: "#d9534f",
  cancelled: "#8a8f98",
  timed_out: "#e8a33d",
  never_answered: "#a05bc4",
};
export const WAITING_COLOUR = "#4a90d9";
const MARK_COLOUR: Record<string, string> = {
  notification: "#5fa8d3",
  lifecycle: "#c8c8c8",
  era: "#f0c419",
  note: "#9aa5b1",
  stderr: "#e07a5f",
  app: "#7bc47f",
};

/** Something drawn, where: a span (by its request's seq), a mark, an operation or a bucket. */
export interface Drawn {
  x: number;
  y: number;
  w: number;
  h: number;
  what: "span" | "mark" | "operation" | "bucket";
  seq: number;
  /** For a bucket, the time range it covers. */
  from?: number;
  to?: number;
  label: string;
}

export const laneHeight = (lane: LaneView) => OP_BAND + Math.max(1, lane.tracks) * TRACK + MARK_ROW + LANE_GAP;

export function colourOf(outcome: RequestOutcome | null | undefined): string {
  return outcome ? OUTCOME_COLOUR[outcome] : WAITING_COLOUR;
}

/** Draws `view` for window `w` on a canvas `width` × `height` CSS pixels; returns what it drew. */
export function draw(
  ctx: CanvasRenderingContext2D,
  view: TimelineView,
  w: Window,
  width: number,
  height: number,
  nameOf: (conn: number) => string,
  text: string,
  muted: string,
): Drawn[] {
  const drawn: Drawn[] = [];
  const plot = width - GUTTER;
  const x = (at: number) => GUTTER + Math.max(-2, Math.min(plot + 2, xOf(w, at, plot)));
  ctx.clearRect(0, 0, width, height);
  ctx.font = "11px sans-serif";
  ctx.textBaseline = "middle";

  // The axis: round times after the session started.
  ctx.fillStyle = muted;
  ctx.strokeStyle = "rgba(128,128,128,0.25)";
  for (const t of ticks(w, plot)) {
    const at = x(t);
    ctx.fillText(formatDuration(t), at + 3, AXIS / 2);
    ctx.beginPath();
    ctx.moveTo(at + 0.5, AXIS - 4);
    ctx.lineTo(at + 0.5, height);
    ctx.stroke();
  }

  let top = AXIS;
  const columnWidth = plot / Math.max(1, Math.round(plot));
  for (const lane of view.lanes) {
    const conn = Number(lane.conn);
    const h = laneHeight(lane);
    ctx.fillStyle = text;
    const ended = lane.folded.length;
    const name = ended > 0 ? `${ended} ended connection${ended === 1 ? "" : "s"}` : nameOf(conn);
    ctx.fillText(clip(ctx, name, GUTTER - 10), 4, top + h / 2 - 4);
    ctx.fillStyle = muted;
    ctx.fillText(`conn ${conn}`, 4, top + h / 2 + 8);
    ctx.strokeStyle = "rgba(128,128,128,0.35)";
    ctx.beginPath();
    ctx.moveTo(0, top + h - LANE_GAP / 2 + 0.5);
    ctx.lineTo(width, top + h - LANE_GAP / 2 + 0.5);
    ctx.stroke();

    // Operations: a bracket above the requests they hold.
    for (const op of lane.operations) {
      const [x0, x1] = [x(op.start), Math.max(x(op.end), x(op.start) + 3)];
      ctx.fillStyle = "rgba(240,196,25,0.85)";
      ctx.fillRect(x0, top + 2, x1 - x0, 3);
      ctx.fillRect(x0, top + 2, 1.5, OP_BAND - 2);
      ctx.fillRect(x1 - 1.5, top + 2, 1.5, OP_BAND - 2);
      const label = `${op.label} · ${op.kind.replace("_", " ")} · ${op.parts} requests`;
      drawn.push({ x: x0, y: top, w: x1 - x0, h: OP_BAND, what: "operation", seq: Number(op.head), label });
    }

    const trackTop = top + OP_BAND;
    for (const span of lane.spans) {
      const end = span.end ?? view.end;
      const x0 = x(span.start);
      const x1 = Math.max(x(end), x0 + 2);
      const y = trackTop + span.track * TRACK + 1;
      ctx.fillStyle = colourOf(span.outcome);
      if (span.from_server) {
        ctx.strokeStyle = ctx.fillStyle;
        ctx.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, TRACK - 3);
      } else {
        ctx.fillRect(x0, y, x1 - x0, TRACK - 2);
      }
      if (x1 - x0 > 60) {
        ctx.fillStyle = "#fff";
        ctx.fillText(clip(ctx, spanLabel(span.method, span.target), x1 - x0 - 6), x0 + 3, y + TRACK / 2 - 1);
      }
      drawn.push({ x: x0, y, w: x1 - x0, h: TRACK - 2, what: "span", seq: Number(span.seq), label: span.method });
    }
    const bucketHeight = Math.max(1, lane.tracks) * TRACK - 2;
    const most = Math.max(1, ...lane.span_buckets.map((b) => b.count));
    for (const b of lane.span_buckets) {
      const bx = GUTTER + b.column * columnWidth;
      const bh = Math.max(2, (Math.log1p(b.count) / Math.log1p(most)) * bucketHeight);
      ctx.fillStyle = colourOf(b.worst);
      ctx.globalAlpha = 0.75;
      ctx.fillRect(bx, trackTop + bucketHeight - bh + 1, Math.max(1, columnWidth), bh);
      ctx.globalAlpha = 1;
      const from = w.from + (b.column / plot) * (w.to - w.from);
      const to = w.from + ((b.column + 1) / plot) * (w.to - w.from);
      const label = `${b.count} requests`;
      drawn.push({
        x: bx,
        y: trackTop,
        w: Math.max(1, columnWidth),
        h: bucketHeight,
        what: "bucket",
        seq: 0,
        from,
        to,
        label,
      });
    }

    const markY = trackTop + Math.max(1, lane.tracks) * TRACK;
    for (const m of lane.marks) {
      const mx = x(m.at);
      ctx.fillStyle = MARK_COLOUR[m.kind] ?? muted;
      if (m.kind === "stderr") {
        const mx1 = Math.max(x(m.until), mx + 2);
        ctx.fillRect(mx, markY + 3, mx1 - mx, 4);
        drawn.push({
          x: mx,
          y: markY,
          w: mx1 - mx,
          h: MARK_ROW,
          what: "mark",
          seq: Number(m.seq),
          label: `stderr burst: ${m.count} chunks`,
        });
        continue;
      }
      ctx.beginPath();
      if (m.kind === "lifecycle" || m.kind === "era") {
        ctx.moveTo(mx, markY);
        ctx.lineTo(mx + 4, markY + 5);
        ctx.lineTo(mx, markY + 10);
        ctx.lineTo(mx - 4, markY + 5);
      } else {
        ctx.moveTo(mx - 3, markY + 9);
        ctx.lineTo(mx + 3, markY + 9);
        ctx.lineTo(mx, markY + 3);
      }
      ctx.fill();
      drawn.push({
        x: mx - 4,
        y: markY,
        w: 8,
        h: MARK_ROW,
        what: "mark",
        seq: Number(m.seq),
        label: `${m.kind}: ${m.label}`,
      });
    }
    for (const b of lane.mark_buckets) {
      const bx = GUTTER + b.column * columnWidth;
      ctx.fillStyle = MARK_COLOUR.notification;
      ctx.fillRect(bx, markY + 4, Math.max(1, columnWidth), 4);
    }
    top += h;
  }
  return drawn;
}

export function spanLabel(method: string, target: string | null | undefined): string {
  return target ? `${method} ${target}` : method;
}

/** `s` cut to fit `room` pixels, with an ellipsis when cut. */
function clip(ctx: CanvasRenderingContext2D, s: string, room: number): string {
  if (ctx.measureText(s).width <= room) return s;
  let cut = s;
  while (cut.length > 1 && ctx.measureText(`${cut}…`).width > room) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The topmost thing drawn at (x, y): spans and marks before the operations behind them. */
export function hit(drawn: readonly Drawn[], x: number, y: number): Drawn | null {
  const under = drawn.filter((d) => x >= d.x - 2 && x <= d.x + d.w + 2 && y >= d.y && y <= d.y + d.h);
  const order = ["span", "mark", "bucket", "operation"];
  under.sort((a, b) => order.indexOf(a.what) - order.indexOf(b.what) || a.w - b.w);
  return under[0] ?? null;
}
