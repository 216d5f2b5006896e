// What the server sent unasked: log messages with their level (coloured) and logger, list
// changes, resource updates, progress and the rest, newest first, filtered by kind. Nothing
// here interrupts: a message waits in this list (and in the wire log) for the person to look.
import { useState } from "react";
import type { ConnectionState, Notice } from "../ipc";
import { useNotices } from "./notices";
import { formatTimeOfDay } from "../log/format";
import { stateText } from "../connections/lines";

const KINDS: { kind: Notice["what"]["kind"]; label: string }[] = [
  { kind: "log", label: "Log messages" },
  { kind: "list_changed", label: "List changes" },
  { kind: "resource_updated", label: "Resource updates" },
  { kind: "progress", label: "Progress" },
  { kind: "acknowledged", label: "Subscriptions" },
  { kind: "other", label: "Other" },
];

/** How many notices the panel draws at once; the wire log has every one. */
const SHOWN = 500;

export function NotificationsPanel({ line }: { line: ConnectionState }) {
  const { notices, skipped, error } = useNotices();
  const [allServers, setAllServers] = useState(false);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const conn = line.event.conn;
  const mine = notices.filter((n) => (allServers || n.conn === conn) && !hidden.has(n.what.kind));
  const shown = mine.slice(-SHOWN).reverse();
  return (
    <div className="notices-panel">
      <header className="call-row">
        <h2>Notifications</h2>
        <span className="muted">
          {mine.length} {allServers ? "from every server" : `from connection ${conn}`}
          {mine.length > SHOWN && `; the newest ${SHOWN} shown (the wire log has them all)`}
        </span>
        <label>
          <input type="checkbox" checked={allServers} onChange={(e) => setAllServers(e.target.checked)} /> Every server
        </label>
      </header>
      <div className="call-row" role="group" aria-label="Kinds shown">
        {KINDS.map(({ kind, label }) => (
          <label key={kind}>
            <input
              type="checkbox"
              checked={!hidden.has(kind)}
              onChange={(e) =>
                setHidden((h) => {
                  const next = new Set(h);
                  if (e.target.checked) next.delete(kind);
                  else next.add(kind);
                  return next;
                })
              }
            />{" "}
            {label}
          </label>
        ))}
      </div>
      {error && <p className="error">Notifications cannot be followed: {error}</p>}
      {skipped > 0 && (
        <p className="warn">{skipped} log entries went by too fast to read here; the wire log has every one.</p>
      )}
      {shown.length === 0 && (
        <p className="muted">
          {line.event.state.state === "ready" || allServers
            ? "Nothing yet. Server log messages need a log level (Server panel)."
            : `Nothing: connection ${conn} is not ready (${stateText(line.event.state)}), so nothing comes from it.`}
        </p>
      )}
      <ul className="notices" aria-label="Notifications">
        {shown.map((n) => (
          <li key={`${n.conn}-${n.seq}`} className={`notice-row kind-${n.what.kind}`}>
            <span className="muted">{formatTimeOfDay(n.time)}</span>
            {allServers && <span className="badge">#{n.conn}</span>}
            <Said notice={n} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function Said({ notice }: { notice: Notice }) {
  const w = notice.what;
  const data = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  switch (w.kind) {
    case "log":
      return (
        <>
          <span className={`level ${w.level}`}>{w.level || "(no level)"}</span>
          {w.logger && <code>{w.logger}</code>}
          <span className="data">{data(w.data)}</span>
        </>
      );
    case "list_changed":
      return <span>The {w.list} list changed</span>;
    case "resource_updated":
      return (
        <span>
          Updated: <code>{w.uri}</code>
        </span>
      );
    case "progress":
      return (
        <span>
          Progress {w.progress}
          {w.total != null && ` of ${w.total}`} {w.message}
        </span>
      );
    case "acknowledged":
      return <span>Subscription acknowledged: {data(w.granted)}</span>;
    default:
      return (
        <span>
          <code>{notice.method}</code> {data(notice.params)}
        </span>
      );
  }
}
