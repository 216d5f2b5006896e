// The wire log: one virtualized list for every kind of entry, pages read from the core on
// demand (never the whole session), a filter with chips, a detail pane with the exact bytes,
// follow mode, and j/k keys.
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { backend, errorText, type Entry } from "../ipc";
import type { HttpInfo } from "../ipc/bindings";
import { useFilterView } from "../log/filter";
import { GLYPH, entryBytes, formatMs, formatSize, prettyJson, showBytes, sizeOf, summaryOf } from "../log/format";
import { useMatches } from "../log/matches";
import { onEntries, startStream } from "../log/stream";

const PAGE = 200;

interface Props {
  filter: string;
  setFilter(f: string): void;
  follow: boolean;
  setFollow(f: boolean): void;
  filterBox: RefObject<HTMLInputElement | null>;
}

export function LogView({ filter, setFilter, follow, setFollow, filterBox }: Props) {
  // The core reads the filter and decides what matches; this view only shows its answers.
  const { view, applied } = useFilterView(filter);
  const filtered = applied !== "";
  const [total, setTotal] = useState(0);
  const { matches: matchesList, capped } = useMatches(applied, total);
  const [selected, setSelected] = useState<number | null>(null);
  const [, redraw] = useState(0);
  const cache = useRef(new Map<number, Entry>());
  const loading = useRef(new Set<number>());
  const scroller = useRef<HTMLDivElement>(null);

  // The stream: every new entry lands in the cache, and the log's length grows (a filter's
  // matches among the new entries are read from the core, by useMatches).
  useEffect(() => {
    startStream().then((n) => setTotal((t) => Math.max(t, n)));
    return onEntries((entries) => {
      for (const e of entries) cache.current.set(Number(e.seq), e);
      const last = entries.at(-1);
      if (last) setTotal((t) => Math.max(t, Number(last.seq) + 1));
    });
  }, []);

  const count = filtered ? matchesList.length : total;
  const rowAt = useCallback(
    (i: number): Entry | undefined => (filtered ? matchesList[i] : cache.current.get(i)),
    [filtered, matchesList],
  );
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual hands back new functions each render, which the React Compiler cannot memoize; this component is not compiled.
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 22,
    overscan: 30,
  });
  const items = virtualizer.getVirtualItems();

  // Unfiltered rows are seqs; fetch the pages the view shows and does not hold yet.
  useEffect(() => {
    if (filtered || items.length === 0) return;
    const first = Math.floor(items[0].index / PAGE) * PAGE;
    for (let start = first; start <= items[items.length - 1].index; start += PAGE) {
      if (loading.current.has(start) || cache.current.has(start)) continue;
      loading.current.add(start);
      backend
        .logPage(start, start + PAGE, "", PAGE)
        .then((p) => {
          p.entries.forEach((e) => cache.current.set(Number(e.seq), e));
          redraw((n) => n + 1);
        })
        .finally(() => loading.current.delete(start));
    }
  });

  // Follow mode keeps the newest row in view until the user scrolls away.
  useEffect(() => {
    if (follow && count > 0) virtualizer.scrollToIndex(count - 1, { align: "end" });
  }, [follow, count, virtualizer]);

  // Only the user scrolling away ends follow mode: the list's own scrolling (rows appended, row
  // heights measured) also fires scroll events, briefly short of the bottom.
  const userScrolledAt = useRef(0);
  const userScrolls = () => {
    userScrolledAt.current = performance.now();
  };
  const onScroll = () => {
    const el = scroller.current;
    if (!el || performance.now() - userScrolledAt.current > 1000) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 30;
    if (!atBottom && follow) setFollow(false);
  };

  const selectedIndex =
    selected === null ? -1 : filtered ? matchesList.findIndex((e) => Number(e.seq) === selected) : selected;
  const move = (delta: number) => {
    const next = Math.max(0, Math.min(count - 1, (selectedIndex < 0 ? count - 1 : selectedIndex) + delta));
    const e = rowAt(next);
    setSelected(e ? Number(e.seq) : filtered ? null : next);
    setFollow(false);
    virtualizer.scrollToIndex(next);
  };
  const jumpTo = (seq: number) => {
    setFilter("");
    setFollow(false);
    setSelected(seq);
    setTimeout(() => virtualizer.scrollToIndex(seq, { align: "center" }), 0);
  };

  const entry =
    selected === null
      ? undefined
      : filtered
        ? matchesList.find((e) => Number(e.seq) === selected)
        : cache.current.get(selected);

  return (
    <div className="log">
      <div className="log-bar">
        <input
          ref={filterBox}
          className="mono filter"
          aria-label="Filter the log"
          placeholder="filter: method:tools/call dir:in kind:stderr id:7 error"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        {view.error != null ? (
          <span className="error">{view.error}</span>
        ) : (
          view.chips.map((c) => (
            <button key={c.key} className="chip" title="Remove" onClick={() => setFilter(c.without)}>
              {c.key}:{c.value} ×
            </button>
          ))
        )}
        <span className="muted count">
          {filtered ? `${matchesList.length}${capped ? "+" : ""} of ${total}` : `${total} entries`}
        </span>
        <label className="follow">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <button
          onClick={() => {
            const path = window.prompt(
              "Export the log (JSONL, environment values redacted) to:",
              "sonde-session.jsonl",
            );
            if (path)
              backend.logExport(path, applied).then(
                (n) => window.alert(`Wrote ${n} entries to ${path}`),
                (e) => window.alert(errorText(e)),
              );
          }}
        >
          Export
        </button>
      </div>
      <div className="log-body">
        <div
          className="rows"
          ref={scroller}
          tabIndex={0}
          role="grid"
          aria-label="Wire log"
          onScroll={onScroll}
          onWheel={userScrolls}
          onTouchMove={userScrolls}
          onPointerDown={userScrolls}
          onKeyDown={(e) => {
            userScrolls(); // PageUp, Home and the arrows scroll too
            const step = e.key === "j" || e.key === "ArrowDown" ? 1 : e.key === "k" || e.key === "ArrowUp" ? -1 : 0;
            if (step !== 0) {
              e.preventDefault();
              move(step);
            }
          }}
        >
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {items.map((item) => {
              const e = rowAt(item.index);
              const seq = e ? Number(e.seq) : item.index;
              return (
                <div
                  key={item.key}
                  role="row"
                  className={`row ${e?.kind ?? "loading"} ${e?.dir ?? ""} ${seq === selected ? "selected" : ""}`}
                  style={{ transform: `translateY(${item.start}px)` }}
                  onClick={() => e && (setSelected(seq), setFollow(false))}
                  data-seq={seq}
                >
                  {e ? (
                    <>
                      <span className="c-ms">{formatMs(e.ms)}</span>
                      <span className="c-conn">#{String(e.conn)}</span>
                      <span className="c-dir">{GLYPH[e.dir]}</span>
                      <span className="c-kind">{e.kind}</span>
                      <span className="c-sum">{summaryOf(e)}</span>
                      <span className="c-size">{formatSize(sizeOf(e))}</span>
                      <span className="c-lat">{e.latency_ms != null ? formatMs(e.latency_ms) : ""}</span>
                    </>
                  ) : (
                    <span className="muted">…</span>
                  )}
                </div>
              );
            })}
          </div>
        </div>
        <Detail entry={entry} jumpTo={jumpTo} />
      </div>
    </div>
  );
}

function Detail({ entry, jumpTo }: { entry?: Entry; jumpTo(seq: number): void }) {
  // The reply found for a request, kept with the seq of the request it answers, so that an answer
  // for an entry no longer selected is never shown.
  const [found, setFound] = useState<{ request: number; reply: number } | null>(null);
  useEffect(() => {
    const s = entry?.summary;
    if (!entry || !s || s.type !== "request" || entry.dir !== "out" || s.id == null) return;
    const request = Number(entry.seq);
    // The reply to a request Sonde sent: the next received entry with the same id.
    backend
      .logPage(request + 1, Number.MAX_SAFE_INTEGER, `dir:in kind:message id:${s.id}`, 1)
      .then((p) => p.entries[0] && setFound({ request, reply: Number(p.entries[0].seq) }));
  }, [entry]);
  const reply = found && entry && found.request === Number(entry.seq) ? found.reply : null;
  if (!entry) return <div className="detail empty">Select an entry to see its bytes.</div>;
  const pretty = prettyJson(entry);
  return (
    <div className="detail" aria-label="Entry detail">
      <header>
        <strong>
          #{String(entry.seq)} {GLYPH[entry.dir]} {entry.kind}
        </strong>
        <span className="muted">{entry.time}</span>
        {entry.probe && <span className="badge">probe</span>}
        {reply !== null && <button onClick={() => jumpTo(reply)}>Jump to response</button>}
        {entry.answers != null && <button onClick={() => jumpTo(Number(entry.answers))}>Jump to request</button>}
      </header>
      {entry.detail && <p className="detail-text">{entry.detail}</p>}
      {entry.http && <HttpDetail http={entry.http} />}
      {entry.latency_ms != null && <p className="muted">latency {formatMs(entry.latency_ms)}</p>}
      <h4>Bytes as received</h4>
      <pre className="mono raw">{showBytes(entryBytes(entry))}</pre>
      {pretty && (
        <>
          <h4>JSON</h4>
          <pre className="mono">{pretty}</pre>
        </>
      )}
    </div>
  );
}

/** An HTTP entry's exchange, request line or status, SSE fields and headers (secrets redacted). */
function HttpDetail({ http }: { http: HttpInfo }) {
  const sse = [
    http.sse_event && `event ${http.sse_event}`,
    http.sse_id && `id ${http.sse_id}`,
    http.sse_retry != null && `retry ${http.sse_retry} ms`,
  ].filter(Boolean);
  return (
    <div className="http-detail" aria-label="HTTP">
      <p className="mono">
        exchange {String(http.exchange)}
        {http.method && ` · ${http.method} ${http.url ?? ""}`}
        {http.status != null && ` · HTTP ${http.status}`}
        {sse.length > 0 && ` · SSE ${sse.join(", ")}`}
      </p>
      {(http.headers ?? []).length > 0 && (
        <table className="headers mono">
          <tbody>
            {(http.headers ?? []).map(([k, v], i) => (
              <tr key={i}>
                <th>{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
