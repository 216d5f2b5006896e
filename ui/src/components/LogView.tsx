// The wire log of the window's own session or of a past one opened read-only: one virtualized
// list for every kind of entry, rows read from the core by page as they come into view and at most
// a few tens of thousands held (rows.ts), a filter with chips whose matches the core counts and
// pages, a detail pane with the exact bytes, follow mode, and j/k keys.
import { useContext, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import { backend, errorText, type Entry, type OpenedSession, type SessionRef } from "../ipc";
import type { ExportFormat, HttpInfo, LogLength, Outcome } from "../ipc/bindings";
import { OUTCOME_WORDS } from "../ipc/bindings";
import { useFilterView } from "../log/filter";
import {
  GLYPH,
  entryBytes,
  formatDuration,
  formatTimeOfDay,
  formatSize,
  prettyJson,
  serversOf,
  sessionLabel,
  sessionTitle,
  showBytes,
  sizeOf,
  summaryOf,
} from "../log/format";
import { colourOf, useConnectionLabels, type Labels } from "../log/labels";
import { useMatchCount } from "../log/matches";
import { PAGE, RowCache } from "../log/rows";
import { followPast, onEntries, startStream } from "../log/stream";
import { sentence, useRecording } from "../log/recording";
import { useRevealRequest } from "../log/reveal";
import { CallActions } from "./CallActions";
import { DiffWith, ReplayWith } from "../builds/context";
import { LatencyPane } from "../timeline/LatencyPane";
import { TimelinePane } from "../timeline/TimelinePane";
import { PaneResize } from "../layout/PaneResize";
import type { WindowLayout } from "../layout/layout";

interface Props {
  filter: string;
  setFilter(f: string): void;
  follow: boolean;
  setFollow(f: boolean): void;
  filterBox: RefObject<HTMLInputElement | null>;
  /** A past session opened read-only, or null for the window's own live session. Mount one
   * LogView per session (a `key`): the rows held are that session's. */
  past?: OpenedSession | null;
  onBackToLive?(): void;
  /** The connections alive in the window's own session (the timeline folds the others). */
  live?: number[];
  /** The sizes of the timeline and the entry detail, as the person left them; and a request
   * for room for the timeline as it opens. */
  layout: Pick<WindowLayout, "timelineHeight" | "setTimelineHeight" | "detailWidth" | "setDetailWidth"> & {
    makeRoom(height: number): void;
  };
}

/** `timed out` as a label: `Timed out`. */
const sentenceCase = (words: string) => words.charAt(0).toUpperCase() + words.slice(1);

/** The formats the log exports to, as the menu names them. */
const EXPORTS: [ExportFormat, string][] = [
  ["jsonl", "JSONL (every entry)…"],
  ["har", "HAR 1.2 (HTTP exchanges)…"],
  ["html", "HTML report (opens in any browser)…"],
  ["otlp", "OTLP/JSON (requests as OpenTelemetry spans)…"],
];

/** What an export of `format` counts. */
const COUNTED: Record<ExportFormat, string> = {
  jsonl: "entries",
  har: "HTTP exchanges",
  html: "entries",
  otlp: "spans",
};

/** Which entry is selected: its position in the list it was selected in, and the entry. */
interface Selection {
  list: string;
  index: number | null;
  entry: Entry | null;
}

export function LogView({
  filter,
  setFilter,
  follow,
  setFollow,
  filterBox,
  past = null,
  onBackToLive,
  layout,
  live,
}: Props) {
  const session: SessionRef = past ? Number(past.id) : null;
  const compare = useContext(DiffWith);
  const replay = useContext(ReplayWith);
  // The core reads the filter and decides what matches; this view only shows its answers.
  const { view, applied } = useFilterView(filter);
  const filtered = applied !== "";
  // How many entries the session has had (the seq the next gets) and how many its file holds:
  // the list is by row, so entries a failed write lost take no room and their gap's note is
  // one row (the core's `log_rows`).
  const [total, setTotal] = useState(0);
  const [rowCount, setRowCount] = useState(0);
  const [writing, setWriting] = useState(past?.session.writing ?? false);
  const [problem, setProblem] = useState<string | null>(null);
  // What the last Export did, in words, until the person dismisses it.
  const [exported, setExported] = useState<string | null>(null);
  // The views of the same entries beside the list: the timeline and the latency table.
  const [showTimeline, setShowTimeline] = useState(false);
  const [showLatency, setShowLatency] = useState(false);
  const matched = useMatchCount(applied, total, session);
  const [, redraw] = useState(0);
  const labels = useConnectionLabels(session);
  const seeLabels = labels.see;
  const scroller = useRef<HTMLDivElement>(null);
  const logBody = useRef<HTMLDivElement>(null);
  // The detail's width as drawn, before the person first sized it (a share of the log).
  const detailShown = () => logBody.current?.querySelector(".detail")?.getBoundingClientRect().width ?? 360;

  // The session's entries by row (streamed ones land here too), and the filter's matches by
  // position: each a bounded cache of pages read from the core.
  const [wholeRows] = useState(
    () =>
      new RowCache(
        (start) => backend.logRows(session, start, PAGE),
        () => redraw((n) => n + 1),
      ),
  );
  const matchRows = useMemo(
    () =>
      applied
        ? new RowCache(
            (start) => backend.logMatchPage(session, applied, start, PAGE),
            () => redraw((n) => n + 1),
          )
        : null,
    [applied, session],
  );
  useEffect(() => () => matchRows?.drop(), [matchRows]);
  const rows = matchRows ?? wholeRows;

  // The window's own session file may stop taking entries (a full disk): the rows it took back
  // are let go, and while it is stopped the list ends with one row that says so, never with
  // rows for entries that will not be in the file. The gap's note takes that row once it
  // resumes.
  const { recording } = useRecording();
  const stopped = past ? null : (recording?.stopped ?? null);
  // The seqs streamed with rows before the file stopped that it did not take, so that a batch
  // late with them cannot put them back (kept past the stop's end: they stay lost).
  const lostSeqs = useRef<{ from: number; until: number } | null>(null);
  const [stopSeq, stopUntil, stopFileRow] = stopped
    ? [Number(stopped.at), Number(stopped.streamed_until), Number(stopped.row)]
    : [null, null, null];
  useEffect(() => {
    if (stopSeq === null || stopUntil === null || stopFileRow === null) return;
    lostSeqs.current = { from: stopSeq, until: stopUntil };
    wholeRows.dropFrom(stopFileRow);
    setRowCount(stopFileRow);
  }, [stopSeq, stopUntil, stopFileRow, wholeRows]);

  // The stream: every new entry the file took lands in the cache at its row, and the log's
  // length grows (a filter's matches among the new entries are counted by the core, by
  // useMatchCount).
  useEffect(() => {
    const onBatch = (entries: Entry[], rowsOf: (number | null)[], _skipped: number, ended: boolean) => {
      let next = 0;
      entries.forEach((e, i) => {
        const row = rowsOf[i];
        const seq = Number(e.seq);
        const lost = lostSeqs.current !== null && seq >= lostSeqs.current.from && seq < lostSeqs.current.until;
        if (row === null || lost) return;
        wholeRows.put(row, e);
        next = Math.max(next, row + 1);
      });
      seeLabels(entries);
      const last = entries.at(-1);
      if (last) setTotal((t) => Math.max(t, Number(last.seq) + 1));
      if (next > 0) setRowCount((r) => Math.max(r, next));
      if (ended) setWriting(false);
    };
    const held = (f: LogLength) => {
      setTotal((t) => Math.max(t, Number(f.entries)));
      setRowCount((r) => Math.max(r, Number(f.rows)));
    };
    if (session === null) {
      startStream().then(held);
      return onEntries(onBatch);
    }
    const following = followPast(session, onBatch);
    following.held.then(held, (e) => setProblem(errorText(e)));
    return following.stop;
  }, [session, wholeRows, seeLabels]);

  // A filter the core refused shows nothing until it reads: never the whole log under an error.
  const invalid = filter.trim() !== "" && view.error != null;
  // The rows the list reads from the core, and what it shows: while the file is stopped, one
  // row more that says so.
  const listed = invalid ? 0 : filtered ? (matched?.count ?? 0) : rowCount;
  const stopRow = !filtered && stopped ? rowCount : null;
  const count = listed + (stopRow !== null ? 1 : 0);
  // What an empty list means, in words, rather than a blank pane.
  const empty = invalid
    ? "The filter has an error (above): nothing is shown until it reads."
    : filtered && !matched?.counting && count === 0
      ? "Nothing matches this filter."
      : null;
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual hands back new functions each render, which the React Compiler cannot memoize; this component is not compiled.
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => 22,
    overscan: 30,
  });
  const items = virtualizer.getVirtualItems();

  // Read the pages the view shows and does not hold yet; let go of the ones not shown for longest.
  useEffect(() => {
    if (items.length > 0) rows.show(items[0].index, items[items.length - 1].index, listed);
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

  // A selection's position counts in the list it was made in; in another list (the filter
  // changed) the entry stays shown and is found again by its seq.
  const list = `${session}|${applied}`;
  const [selection, select] = useState<Selection>({ list, index: null, entry: null });
  const selectedIndex = selection.list === list ? selection.index : null;
  const entry = (selectedIndex !== null ? rows.get(selectedIndex) : undefined) ?? selection.entry ?? undefined;
  const isSelected = (index: number, e: Entry | undefined) =>
    selectedIndex !== null ? index === selectedIndex : e !== undefined && Number(e.seq) === Number(entry?.seq);
  const move = (delta: number) => {
    const from = selectedIndex ?? (entry ? rows.indexOf(Number(entry.seq)) : null) ?? count - 1;
    const next = Math.max(0, Math.min(count - 1, from + delta));
    select({ list, index: next, entry: rows.get(next) ?? null });
    setFollow(false);
    virtualizer.scrollToIndex(next);
  };
  // A row to bring into view once the list has it (a filter's matches are still being counted).
  const [scrollTo, setScrollTo] = useState<number | null>(null);
  useEffect(() => {
    if (scrollTo === null || scrollTo >= count) return;
    virtualizer.scrollToIndex(scrollTo, { align: "center" });
    setScrollTo(null);
  }, [scrollTo, count, virtualizer]);
  // A jump keeps the filter the person typed: the entry is shown in the detail at once, and
  // selected in the list where the list has it (at the row or position the core gives it).
  const [outside, setOutside] = useState<number | null>(null);
  const [unrecorded, setUnrecorded] = useState<number | null>(null);
  const jumpTo = async (seq: number) => {
    setFollow(false);
    setOutside(null);
    setUnrecorded(null);
    if (!filtered) {
      const row = await backend.logRow(session, seq);
      if (row === null) {
        select({ list, index: null, entry: null });
        setUnrecorded(seq);
        return;
      }
      select({ list, index: Number(row), entry: rows.get(Number(row)) ?? null });
      virtualizer.scrollToIndex(Number(row), { align: "center" });
      return;
    }
    const page = await backend.logPage(session, seq, seq + 1, "", 1);
    const target = page.entries[0] ?? null;
    if (!target) {
      select({ list, index: null, entry: null });
      setUnrecorded(seq);
      return;
    }
    // The core says where the filtered list has it, or that the filter hides it.
    const at = await backend.logMatchPosition(session, applied, seq);
    select({ list, index: at === null ? null : Number(at), entry: target });
    if (at === null) setOutside(seq);
    else setScrollTo(Number(at));
  };
  // The selection stays selected when the filter changes: the core places it in the new list
  // (scrolled into view), or says the new filter hides it, and only then is that said.
  const shownEntry = useRef(entry);
  useEffect(() => {
    // Only as selected in its own list: after a change of list, the one selected before.
    if (selection.list === list) shownEntry.current = entry;
  });
  useEffect(() => {
    const kept = shownEntry.current;
    setOutside(null);
    if (!kept || selection.list === list) return;
    const seq = Number(kept.seq);
    let live = true;
    const placed = applied === "" ? backend.logRow(session, seq) : backend.logMatchPosition(session, applied, seq);
    placed.then(
      (at) => {
        if (!live) return;
        select({ list, index: at === null ? null : Number(at), entry: kept });
        if (at !== null) setScrollTo(Number(at));
        else if (applied !== "") setOutside(seq);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // Only a new list places the selection again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [list]);
  // An entry a panel asked to show (a finding, a check's evidence): always one of the live
  // session's, so a past session's view leaves it for the live view the window brings up.
  const { request: revealing, taken } = useRevealRequest();
  useEffect(() => {
    if (!revealing || past) return;
    taken(revealing.n);
    void jumpTo(revealing.seq);
    // jumpTo reads this render's list; only a new request starts a jump.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [revealing, past, taken]);
  // The whole log has every entry it recorded: the selection is placed in it as the filter goes.
  const showInWholeLog = () => setFilter("");

  return (
    <div className="log">
      {past && (
        <div className="session-banner" role="status" aria-label="Past session">
          <span>
            <strong title={past.session.name}>{sessionTitle(past.session)}</strong>
            {past.session.client
              ? ` by sonde proxy for ${past.session.client}`
              : past.session.program && ` by ${past.session.program}`}{" "}
            · {serversOf(past.session)} ·{" "}
            {writing ? (
              <span className="writing">being written by another Sonde process: followed as it grows</span>
            ) : (
              "read-only"
            )}
          </span>
          <button
            onClick={() =>
              compare({
                side: { kind: "session", name: past.session.name },
                label: sessionLabel(past.session),
              })
            }
          >
            Diff…
          </button>
          <button onClick={() => replay({ name: past.session.name, label: sessionLabel(past.session) })}>
            Replay against…
          </button>
          <button onClick={onBackToLive}>Back to the live session</button>
        </div>
      )}
      {past?.session.why_incomplete && (
        <div className="notice warn" role="status" aria-label="Incomplete session">
          This session is incomplete: {past.session.why_incomplete}.
        </div>
      )}
      {problem && (
        <div className="error" role="alert">
          {problem}
        </div>
      )}
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
          <span className="error filter-error" title={view.error}>
            {view.error}
          </span>
        ) : (
          view.chips.map((c) => (
            <button key={c.key} className="chip" title="Remove" onClick={() => setFilter(c.without)}>
              {c.key}:{c.value} ×
            </button>
          ))
        )}
        <span className="muted count">
          {filtered
            ? `${matched?.count ?? 0} of ${rowCount}${matched?.counting ? " (counting…)" : ""}`
            : `${rowCount} entries`}
          {/* While the file is stopped, every entry the window has had since the stop is one it
          did not take; once it writes again, the core's count of every gap. */}
          {!past &&
            (stopped
              ? ` (${Math.max(0, total - Number(stopped.at))} not recorded since entry ${stopped.at})`
              : recording && Number(recording.lost) > 0 && ` (${recording.lost} not recorded)`)}
        </span>
        <label className="follow">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <button
          aria-pressed={showTimeline}
          onClick={() => {
            // Opened, it takes the room it needs: the panels above give some up if they must.
            if (!showTimeline) layout.makeRoom(layout.timelineHeight);
            setShowTimeline(!showTimeline);
          }}
          title="Every request as a span in time, per connection"
        >
          Timeline
        </button>
        <button
          aria-pressed={showLatency}
          onClick={() => setShowLatency((v) => !v)}
          title="Latency per method and per tool"
        >
          Latency
        </button>
        <details className="export-menu">
          <summary title="Export the log, or what the filter matches (secrets redacted)">Export</summary>
          <div role="menu">
            {EXPORTS.map(([format, label]) => (
              <button
                key={format}
                role="menuitem"
                onClick={(e) => {
                  e.currentTarget.closest("details")?.removeAttribute("open");
                  backend.logExport(session, applied, format).then(
                    (done) => done && setExported(`Wrote ${done.entries} ${COUNTED[format]} to ${done.path}`),
                    (e) => setExported(`Export failed: ${errorText(e)}`),
                  );
                }}
              >
                {label}
              </button>
            ))}
          </div>
        </details>
      </div>
      {exported && (
        <p className="log-note" role="status">
          {exported} <button onClick={() => setExported(null)}>Dismiss</button>
        </p>
      )}
      {filtered && outside !== null && Number(entry?.seq) === outside && (
        <p className="log-note" role="note">
          Entry {outside} is shown on the right; the filtered list does not show it here.{" "}
          <button onClick={showInWholeLog}>Show it in the whole log</button>
        </p>
      )}
      {unrecorded !== null && (
        <p className="log-note" role="note">
          Entry {unrecorded} is not in the session file: the session log had stopped (see the note of its gap).{" "}
          <button onClick={() => setUnrecorded(null)}>Dismiss</button>
        </p>
      )}
      {showTimeline && (
        <TimelinePane
          session={session}
          filter={applied}
          labels={labels}
          total={total}
          onSelect={(seq) => void jumpTo(seq)}
          height={layout.timelineHeight}
          onHeight={layout.setTimelineHeight}
          live={past ? null : (live ?? null)}
        />
      )}
      {showLatency && <LatencyPane session={session} filter={applied} total={total} setFilter={setFilter} />}
      <div
        className="log-body"
        ref={logBody}
        style={{
          gridTemplateColumns: `minmax(0, 1fr) 5px ${layout.detailWidth === null ? "36%" : `${layout.detailWidth}px`}`,
        }}
      >
        <div
          className="rows"
          ref={scroller}
          tabIndex={0}
          role="grid"
          aria-label="Wire log"
          data-held={rows.size}
          data-filter={applied}
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
          {empty && (
            <p className="log-empty muted" role="status">
              {empty}
            </p>
          )}
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {items.map((item) => {
              if (item.index === stopRow && stopped)
                return (
                  <div
                    key={item.key}
                    role="row"
                    className="row gap"
                    aria-label="Not recorded"
                    style={{ transform: `translateY(${item.start}px)` }}
                  >
                    <span className="c-sum">{sentence(recording?.stopped_words ?? "")}.</span>
                  </div>
                );
              const e = rows.get(item.index);
              const seq = e ? Number(e.seq) : item.index;
              return (
                <div
                  key={item.key}
                  role="row"
                  className={`row ${e?.kind ?? "loading"} ${e?.dir ?? ""} ${isSelected(item.index, e) ? "selected" : ""}`}
                  style={{ transform: `translateY(${item.start}px)` }}
                  onClick={() => e && (select({ list, index: item.index, entry: e }), setFollow(false))}
                  data-seq={e ? seq : undefined}
                >
                  {e ? (
                    <>
                      <span className="c-ms" title={`${formatDuration(e.ms)} after the session started`}>
                        {formatTimeOfDay(e.time)}
                      </span>
                      <ConnLabel conn={Number(e.conn)} labels={labels} />
                      <span className="c-dir">{GLYPH[e.dir]}</span>
                      <span className="c-kind" title={e.kind}>
                        {e.kind}
                      </span>
                      <span className="c-sum" title={summaryOf(e)}>
                        {(e.findings ?? []).slice(0, 1).map((f) => (
                          <span key={f.rule} className={`badge diag ${f.severity}`} title={f.detail}>
                            {f.rule}
                          </span>
                        ))}
                        {summaryOf(e, true)}
                      </span>
                      <span className="c-size">{formatSize(sizeOf(e))}</span>
                      <span className="c-lat">{e.latency_ms != null ? formatDuration(e.latency_ms) : ""}</span>
                    </>
                  ) : (
                    <span className="muted">…</span>
                  )}
                </div>
              );
            })}
          </div>
        </div>
        <PaneResize
          label="Resize the entry detail"
          vertical
          size={layout.detailWidth}
          measure={detailShown}
          onSize={layout.setDetailWidth}
          grow={-1}
        />
        <Detail
          key={entry ? String(entry.seq) : "none"}
          entry={entry}
          jumpTo={jumpTo}
          session={session}
          labels={labels}
          total={total}
        />
      </div>
    </div>
  );
}

/** How many bytes of an entry the detail shows before the person asks for all: laying out
 * megabytes of text takes the webview tens of seconds. */
const SHOWN = 64 * 1024;

/** The connection an entry belongs to, by the name the core recorded for it, with its colour. */
function ConnLabel({ conn, labels }: { conn: number; labels: Labels }) {
  const name = conn === 0 ? "session" : (labels.nameOf(conn) ?? `connection ${conn}`);
  return (
    <span className="c-conn" title={conn === 0 ? "the session itself" : `${name} (connection ${conn})`}>
      {conn !== 0 && <i className="conn-mark" style={{ background: colourOf(conn) }} aria-hidden />}
      {name}
    </span>
  );
}

/** What the bytes of an entry are, by which way they went. */
const BYTES_HEADING: Record<string, string> = {
  in: "Bytes as received",
  out: "Bytes as sent",
  meta: "Bytes recorded",
};

function Detail({
  entry,
  jumpTo,
  session,
  labels,
  total,
}: {
  entry?: Entry;
  jumpTo(seq: number): void;
  session: SessionRef;
  labels: Labels;
  /** The log's length: a request's reply is asked for again as the log grows, until found. */
  total: number;
}) {
  // The entry read whole from the core (the one given is a preview when its payload is
  // large), or true once the person asked to see more than SHOWN of what is already here.
  const [whole, setWhole] = useState<Entry | true | null>(null);
  const [wholeError, setWholeError] = useState<string | null>(null);
  // How the core says a request ended (its reply, or the note that it was never answered),
  // kept with the seq of the request, so that an outcome for an entry no longer selected is
  // never shown.
  const [found, setFound] = useState<{ request: number; outcome: Outcome } | null>(null);
  const request = entry?.summary?.type === "request" ? Number(entry.seq) : null;
  const settled = found !== null && found.request === request;
  useEffect(() => {
    if (request === null || settled) return;
    let live = true;
    backend.logOutcome(session, request).then(
      (outcome) => live && outcome !== null && setFound({ request, outcome }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [request, settled, session, total]);
  const outcome = settled ? found.outcome : null;
  // Answered, with a reply to jump to; or settled by a note that says why not (it timed out,
  // was cancelled, or was never answered), in the core's words.
  const answered = outcome?.outcome === "result" || outcome?.outcome === "error";
  const reply = outcome && answered ? Number(outcome.seq) : null;
  const unanswered = outcome && !answered ? outcome : null;
  const unansweredWord = OUTCOME_WORDS.find(([key]) => key === unanswered?.outcome)?.[1] ?? "";
  if (!entry) return <div className="detail empty">Select an entry to see its bytes.</div>;
  const read = whole !== null && whole !== true ? whole : entry;
  const bytes = entryBytes(read);
  const size = sizeOf(read);
  const cut = whole === null && (read.whole_size != null || bytes.length > SHOWN);
  const pretty = cut ? null : prettyJson(read);
  const showAll = () => {
    setWholeError(null);
    if (entry.whole_size == null) return setWhole(true);
    backend.logEntry(session, Number(entry.seq)).then(setWhole, (e) => setWholeError(errorText(e)));
  };
  const isReply = entry.summary?.type === "result" || entry.summary?.type === "error";
  return (
    <div className="detail" aria-label="Entry detail">
      <header>
        <strong>
          {GLYPH[entry.dir]} {summaryOf(entry) || entry.kind}
        </strong>
        <ConnLabel conn={Number(entry.conn)} labels={labels} />
        <span className="muted">
          entry {String(entry.seq)} · {entry.kind} · {entry.time}
        </span>
        {entry.probe && <span className="badge">probe</span>}
        {reply !== null && <button onClick={() => jumpTo(reply)}>Jump to response</button>}
        {entry.answers != null && (
          <button onClick={() => jumpTo(Number(entry.answers))}>
            {isReply ? "Jump to request" : "Jump to the request it is about"}
          </button>
        )}
        <CallActions entry={entry} session={session} />
      </header>
      {unanswered && (
        <p className="detail-text warn" role="note" aria-label={sentenceCase(unansweredWord)}>
          {/* The note's own words name how it ended, or are led by the word that does. */}
          {unanswered.words.includes(unansweredWord)
            ? unanswered.words
            : `${sentenceCase(unansweredWord)}: ${unanswered.words}`}
          . <button onClick={() => jumpTo(Number(unanswered.seq))}>Show the note</button>
        </p>
      )}
      {entry.detail && <p className="detail-text">{entry.detail}</p>}
      {(entry.findings ?? []).length > 0 && (
        <ul className="findings" aria-label="Findings">
          {(entry.findings ?? []).map((f, i) => (
            <li key={i} className={f.severity}>
              <strong>
                {f.severity} {f.rule}
              </strong>
              : {f.detail} <span className="muted">({f.spec})</span>
            </li>
          ))}
        </ul>
      )}
      {entry.http && <HttpDetail http={entry.http} />}
      {entry.latency_ms != null && <p className="muted">latency {formatDuration(entry.latency_ms)}</p>}
      <h4>{BYTES_HEADING[entry.dir] ?? "Bytes"}</h4>
      {cut && (
        <p className="muted" role="note">
          The first {formatSize(Math.min(SHOWN, bytes.length))} of {formatSize(size)}.{" "}
          <button onClick={showAll}>Show all {formatSize(size)}</button> (slow for very large entries; Export writes
          them whole)
        </p>
      )}
      {wholeError && <p className="error">{wholeError}</p>}
      <pre className="mono raw">{showBytes(cut ? bytes.subarray(0, SHOWN) : bytes)}</pre>
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
