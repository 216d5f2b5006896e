// The session at a glance, above the log: one lane per connection, each request a span from
// sent to settled in the colour of its outcome, operations bracketed, marks below. The core
// builds what is in view for the window asked (`timeline_view`); this draws it, zooms (wheel,
// + and -), pans (drag, arrows), fits (0), goes to the slowest settled call (S), shows what is
// under the pointer, and selects a request's entries in the log on a click or Enter. Its
// controls and time axis stay in view as its lanes scroll; its height is the person's, kept.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { backend, errorText, type SessionRef } from "../ipc";
import type { SpanDetail, TimelineView } from "../ipc/bindings";
import { OUTCOME_WORDS } from "../ipc/bindings";
import { formatDuration, formatSize } from "../log/format";
import type { Labels } from "../log/labels";
import { draw, GUTTER, hit, laneHeight, AXIS, OUTCOME_COLOUR, WAITING_COLOUR, spanLabel, type Drawn } from "./draw";
import { fit, pan, zoomAt, type Window } from "./scale";
import { PaneResize } from "../layout/PaneResize";

interface Props {
  session: SessionRef;
  filter: string;
  labels: Labels;
  /** The log's length: a new entry asks the core for the view again. */
  total: number;
  /** Selects the request at `seq` (and so its reply) in the log. */
  onSelect(seq: number): void;
  /** Its own height in pixels, and its setter (`save` once the person lets go). */
  height: number;
  /** The connections alive: the others are folded into one lane unless expanded. `null` (a
   * past session) folds none. */
  live: number[] | null;
  onHeight(height: number, save: boolean): void;
}

/** How many requests in view the list for keyboards and screen readers names. */
const LISTED = 200;

export function TimelinePane({ session, filter, labels, total, onSelect, height: paneHeight, onHeight, live }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const axis = useRef<HTMLCanvasElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  // The window onto the session; `null` while it shows the whole session (and follows it).
  const [chosen, choose] = useState<Window | null>(null);
  const [view, setView] = useState<TimelineView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [hover, setHover] = useState<{ at: Drawn; x: number; y: number } | null>(null);
  const [detail, setDetail] = useState<SpanDetail | null>(null);
  const drawn = useRef<Drawn[]>([]);
  // Ended connections in lanes of their own, as the person asked.
  const [expanded, setExpanded] = useState(false);
  const liveKey = expanded || live === null ? null : live.join(",");
  // When the last zoom or pan was asked, to say how long its answer took to draw.
  const stepAt = useRef<number | null>(null);
  const [step, setStep] = useState<{ ms: number; n: number } | null>(null);
  const end = view?.end ?? 0;
  const win = chosen ?? fit(end);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(300, Math.floor(el.clientWidth))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // One question at a time; the newest window wins.
  const asking = useRef(false);
  const again = useRef<(() => void) | null>(null);
  useEffect(() => {
    const ask = () => {
      asking.current = true;
      const alive = liveKey === null ? null : liveKey.split(",").filter(Boolean).map(Number);
      const query = { from: win.from, to: win.to, columns: Math.max(1, width - GUTTER), live: alive };
      backend
        .timelineView(session, filter, query)
        .then(
          (v) => {
            setView(v);
            setProblem(null);
          },
          (e) => setProblem(errorText(e)),
        )
        .finally(() => {
          asking.current = false;
          const next = again.current;
          again.current = null;
          next?.();
        });
    };
    if (asking.current) again.current = ask;
    else ask();
  }, [session, filter, win.from, win.to, width, total, liveKey]);

  const height = AXIS + (view?.lanes ?? []).reduce((h, lane) => h + laneHeight(lane), 0) + 4;
  useEffect(() => {
    const c = canvas.current;
    if (!c || !view) return;
    const ratio = window.devicePixelRatio || 1;
    c.width = width * ratio;
    c.height = height * ratio;
    const ctx = c.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const style = getComputedStyle(c);
    const muted = style.getPropertyValue("--muted").trim() || "#888";
    // Connection 0 is the session's own: notes about the recording itself.
    const nameOf = (conn: number) => labels.nameOf(conn) ?? (conn === 0 ? "the session" : `connection ${conn}`);
    drawn.current = draw(ctx, view, win, width, height, nameOf, style.color, muted);
    // The axis again, on the strip that stays in view as the lanes scroll.
    const strip = axis.current;
    const stripCtx = strip?.getContext("2d");
    if (strip && stripCtx) {
      strip.width = width * ratio;
      strip.height = AXIS * ratio;
      stripCtx.setTransform(ratio, 0, 0, ratio, 0, 0);
      draw(stripCtx, view, win, width, AXIS, nameOf, style.color, muted);
    }
    if (stepAt.current !== null) {
      const ms = performance.now() - stepAt.current;
      setStep((s) => ({ ms, n: (s?.n ?? 0) + 1 }));
      stepAt.current = null;
    }
    // `win` follows from `chosen` and the view's end, both of which redraw through `view`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [view, width, height, labels]);

  // The hovered request's sizes and outcome words come from the core, once per request.
  const hoveredSeq = hover?.at.what === "span" ? hover.at.seq : null;
  useEffect(() => {
    if (hoveredSeq === null) return;
    let live = true;
    backend.timelineSpan(session, filter, hoveredSeq).then(
      (d) => live && setDetail(d),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [hoveredSeq, session, filter]);

  const move = (next: Window) => {
    stepAt.current = performance.now();
    choose(next);
  };
  const zoom = (factor: number, anchor = 0.5) => move(zoomAt(win, factor, anchor, end));
  const drag = useRef<{ x: number; from: Window; moved: boolean } | null>(null);
  const plotWidth = width - GUTTER;
  const at = (e: { clientX: number; clientY: number }) => {
    const rect = canvas.current!.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top };
  };
  const activate = (d: Drawn | null) => {
    if (!d) return;
    if (d.what === "bucket" && d.from !== undefined && d.to !== undefined) {
      // Too many to tell apart here: zoom to the column, where they are drawn alone.
      const pad = (d.to - d.from) * 2;
      move({ from: Math.max(0, d.from - pad), to: d.to + pad });
    } else onSelect(d.seq);
  };

  // Longest first: the list's first entries are the ones a person looks for, and a session's
  // later slow call is never cut off by its earlier fast ones. A stream held open on purpose is
  // not a slow call: it comes last.
  const took = (s: { start: number; end?: number | null }) => (s.end ?? view?.end ?? s.start) - s.start;
  const spansInView = (view?.lanes ?? [])
    .flatMap((lane) => lane.spans.map((s) => ({ lane, s })))
    .sort((a, b) => Number(a.s.stream) - Number(b.s.stream) || took(b.s) - took(a.s));
  // The slowest settled call of what the filter shows, brought into view and selected.
  const slowest = view?.slowest ?? null;
  const toSlowest = () => {
    if (!slowest) return;
    const end = slowest.end ?? slowest.start;
    const pad = Math.max((end - slowest.start) / 2, 1);
    move({ from: Math.max(0, slowest.start - pad), to: end + pad });
    onSelect(Number(slowest.seq));
  };
  const outcomeWord = (o: string | null | undefined) => OUTCOME_WORDS.find(([k]) => k === o)?.[1] ?? "waiting";
  const shownWords =
    view && (chosen ? `${formatDuration(win.to - win.from)} shown` : `whole session, ${formatDuration(end)}`);

  return (
    <>
      <section className="timeline" aria-label="Timeline" ref={box} style={{ flexBasis: paneHeight }}>
        <div className="timeline-head">
          <div className="timeline-bar">
            <strong>Timeline</strong>
            <span className="muted" aria-live="polite">
              {view ? `${view.in_window} of ${view.shown} requests in view · ${shownWords}` : "reading the session…"}
              {view?.matched && Number(view.matched.scanned) < total ? " (filter still counting…)" : ""}
            </span>
            <button onClick={() => zoom(0.5)} title="Zoom in (+)" aria-label="Zoom in">
              +
            </button>
            <button onClick={() => zoom(2)} title="Zoom out (-)" aria-label="Zoom out">
              −
            </button>
            <button onClick={() => choose(null)} title="The whole session (0)" disabled={chosen === null}>
              Fit
            </button>
            {live !== null && (view?.lanes.some((l) => l.folded.length > 0) || expanded) && (
              <button
                aria-pressed={expanded}
                onClick={() => setExpanded(!expanded)}
                title={expanded ? "Fold the ended connections into one lane" : "A lane for each ended connection"}
              >
                Ended connections
              </button>
            )}
            <button
              onClick={toSlowest}
              disabled={!slowest}
              title={
                slowest
                  ? `${spanLabel(slowest.method, slowest.target)}, ${formatDuration(took(slowest))}: zoom to it and select it in the log (S)`
                  : "No call has settled yet"
              }
            >
              Slowest call
            </button>
            <span className="legend">
              {OUTCOME_WORDS.map(([key, word]) => (
                <span key={key}>
                  <i style={{ background: OUTCOME_COLOUR[key] }} />
                  {word}
                </span>
              ))}
              <span>
                <i style={{ background: WAITING_COLOUR }} />
                waiting
              </span>
            </span>
            {step !== null && (
              <span className="muted" data-step-ms={step.ms.toFixed(1)} data-steps={step.n}>
                drawn in {formatDuration(step.ms)}
              </span>
            )}
          </div>
          <canvas ref={axis} className="timeline-axis" style={{ width, height: AXIS }} aria-hidden />
        </div>
        {problem && (
          <p className="error" role="alert">
            The timeline could not be read: {problem}
          </p>
        )}
        {view && view.lanes.length === 0 && <p className="muted empty">Nothing recorded yet.</p>}
        <canvas
          ref={canvas}
          className="timeline-canvas"
          style={{ width, height, marginTop: -AXIS }}
          tabIndex={0}
          role="img"
          aria-label={`Timeline of ${view?.lanes.length ?? 0} connections; + and − zoom, arrows pan, 0 fits, S the slowest call`}
          data-from={win.from}
          data-to={win.to}
          onWheel={(e) => {
            const { x } = at(e);
            zoom(e.deltaY > 0 ? 1.25 : 0.8, Math.min(1, Math.max(0, (x - GUTTER) / plotWidth)));
          }}
          onPointerDown={(e) => {
            drag.current = { x: at(e).x, from: win, moved: false };
            (e.target as Element).setPointerCapture?.(e.pointerId);
          }}
          onPointerMove={(e) => {
            const p = at(e);
            const d = drag.current;
            if (d && Math.abs(p.x - d.x) > 3) {
              d.moved = true;
              move(pan(d.from, -(p.x - d.x) / plotWidth, end));
              setHover(null);
              return;
            }
            const under = hit(drawn.current, p.x, p.y);
            setHover(under ? { at: under, ...p } : null);
          }}
          onPointerUp={(e) => {
            const d = drag.current;
            drag.current = null;
            if (d && !d.moved) {
              const p = at(e);
              activate(hit(drawn.current, p.x, p.y));
            }
          }}
          onPointerLeave={() => setHover(null)}
          onKeyDown={(e) => {
            const keys: Record<string, () => void> = {
              "+": () => zoom(0.5),
              "=": () => zoom(0.5),
              "-": () => zoom(2),
              "0": () => choose(null),
              s: toSlowest,
              S: toSlowest,
              ArrowLeft: () => move(pan(win, -0.25, end)),
              ArrowRight: () => move(pan(win, 0.25, end)),
            };
            const act = keys[e.key];
            if (act) {
              e.preventDefault();
              act();
            }
          }}
        />
        {hover && (
          <div
            className="timeline-tip"
            role="tooltip"
            style={{ left: Math.min(hover.x + 12, width - 260), top: hover.y + 14 }}
          >
            {hover.at.what === "span" && detail && Number(detail.seq) === hover.at.seq ? (
              <>
                <strong>{spanLabel(detail.method, detail.target)}</strong>
                <div>
                  {detail.outcome_word}
                  {detail.latency_ms != null && ` after ${formatDuration(detail.latency_ms)}`}
                </div>
                <div className="muted">
                  sent {formatSize(Number(detail.request_bytes))}
                  {detail.reply_bytes != null && `, received ${formatSize(Number(detail.reply_bytes))}`}
                  {detail.progress > 0 && ` · ${detail.progress} progress updates`}
                </div>
                {detail.operation && (
                  <div className="muted">
                    part of {detail.operation.kind === "authorization" ? "an" : "a"} {detail.operation.kind} operation
                    of {detail.operation.parts} requests, {formatDuration(detail.operation.took_ms)}
                  </div>
                )}
                <div className="muted">click to select it in the log</div>
              </>
            ) : (
              <span>{hover.at.label}</span>
            )}
          </div>
        )}
        <ul className="sr-only" aria-label="Requests in view, longest first">
          {spansInView.slice(0, LISTED).map(({ lane, s }) => {
            const took = s.end != null ? ` after ${formatDuration(s.end - s.start)}` : "";
            return (
              <li key={String(s.seq)}>
                <button
                  data-seq={String(s.seq)}
                  data-conn={String(lane.conn)}
                  data-start={s.start}
                  data-end={s.end ?? view?.end}
                  onClick={() => onSelect(Number(s.seq))}
                >
                  {spanLabel(s.method, s.target)}: {outcomeWord(s.outcome)}
                  {took}
                </button>
              </li>
            );
          })}
        </ul>
      </section>
      <PaneResize label="Resize the timeline" vertical={false} size={paneHeight} onSize={onHeight} grow={1} />
    </>
  );
}
