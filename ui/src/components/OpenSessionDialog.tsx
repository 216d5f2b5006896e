// File → Open Session: the sessions recorded in the data directory (this window's, other
// windows', the sonde CLI's), newest first, with when each started, the name the person gave it
// (`sonde proxy --name`; its file's name is the row's title), the servers it talked to, its size
// and whether a process still writes it. Arrow keys or j/k move, Enter opens, P pins (a
// pinned session is never pruned to keep the folder within its budget), Escape closes.
import { FormFooter } from "./FormFooter";
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type OpenedSession, type SessionInfo } from "../ipc";
import { formatSize, formatStarted, serversOf } from "../log/format";

interface Props {
  /** A past session was opened read-only. */
  onOpen(opened: OpenedSession): void;
  /** The window's own session was picked: back to the live log. */
  onLive(): void;
  onCancel(): void;
}

export function OpenSessionDialog({ onOpen, onLive, onCancel }: Props) {
  const [sessions, setSessions] = useState<SessionInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [at, setAt] = useState(0);
  // The session being opened: a large one takes a moment to index, and the dialog says so.
  const [opening, setOpening] = useState<SessionInfo | null>(null);
  const list = useRef<HTMLUListElement>(null);

  useEffect(() => {
    backend.sessionsList().then(setSessions, (e) => setError(errorText(e)));
  }, []);
  useEffect(() => {
    list.current?.focus();
    list.current?.querySelector("[aria-selected='true']")?.scrollIntoView({ block: "nearest" });
  }, [at, sessions]);

  const open = async (s: SessionInfo | undefined) => {
    if (!s || opening) return;
    if (s.current) return onLive();
    setOpening(s);
    try {
      onOpen(await backend.sessionOpen(s.name));
    } catch (e) {
      setError(errorText(e));
      setOpening(null);
    }
  };
  const pin = async (s: SessionInfo | undefined) => {
    if (!s) return;
    try {
      setSessions(await backend.sessionPin(s.name, !s.pinned));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const last = (sessions?.length ?? 1) - 1;
  const keys = (e: React.KeyboardEvent) => {
    const to: Record<string, number> = {
      ArrowDown: at + 1,
      j: at + 1,
      ArrowUp: at - 1,
      k: at - 1,
      Home: 0,
      End: last,
      PageDown: at + 10,
      PageUp: at - 10,
    };
    if (e.key in to) {
      e.preventDefault();
      setAt(Math.max(0, Math.min(last, to[e.key])));
    } else if (e.key === "Enter") {
      e.preventDefault();
      void open(sessions?.[at]);
    } else if (e.key === "p") {
      e.preventDefault();
      void pin(sessions?.[at]);
    }
  };

  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onCancel()}>
      <form
        className="dialog sessions-dialog"
        role="dialog"
        aria-label="Open session"
        onSubmit={(e) => {
          e.preventDefault();
          void open(sessions?.[at]);
        }}
      >
        <h2>Open a session</h2>
        <p className="muted">
          Sessions recorded by Sonde and the sonde CLI, newest first. One opens read-only in the log view; one still
          being written is followed as it grows. P pins the selected one: a pinned session is never pruned.
        </p>
        {sessions === null && !error && <p className="muted">Reading the sessions…</p>}
        {sessions?.length === 0 && <p>No session has been recorded yet.</p>}
        {sessions && sessions.length > 0 && (
          <ul
            ref={list}
            className="sessions"
            role="listbox"
            aria-label="Sessions"
            tabIndex={0}
            aria-activedescendant={`session-${at}`}
            onKeyDown={keys}
          >
            {sessions.map((s, i) => (
              <li
                key={s.name}
                id={`session-${i}`}
                role="option"
                aria-selected={i === at}
                title={s.name}
                onClick={() => setAt(i)}
                onDoubleClick={() => void open(s)}
              >
                <span className="s-started">{formatStarted(s.started)}</span>
                <span className="s-program muted" title={s.client ? `proxy for ${s.client}` : undefined}>
                  {s.client ? `proxy for ${s.client}` : (s.program ?? "")}
                </span>
                <span className="s-servers">
                  {s.given_name && <strong className="s-given">{s.given_name}</strong>}
                  <span className="mono" title={serversOf(s)}>
                    {serversOf(s)}
                  </span>
                </span>
                <span className="s-size">{formatSize(Number(s.size))}</span>
                <span className="s-state">
                  {s.current ? (
                    <span className="badge">this window</span>
                  ) : s.writing ? (
                    <span className="badge writing">being written</span>
                  ) : null}
                  <button
                    type="button"
                    tabIndex={-1}
                    className={`pin ${s.pinned ? "pinned" : ""}`}
                    aria-pressed={s.pinned}
                    title={s.pinned ? "Pinned: never pruned. Unpin (P)" : "Pin: never prune this session (P)"}
                    onClick={(e) => {
                      e.stopPropagation();
                      void pin(s);
                    }}
                  >
                    {s.pinned ? "pinned" : "pin"}
                  </button>
                  {s.why_incomplete && !s.current && (
                    <span className="badge incomplete" title={`Incomplete: ${s.why_incomplete}`}>
                      incomplete
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
        {opening && (
          <p className="muted" role="status" aria-label="Opening">
            Opening {formatStarted(opening.started)} ({formatSize(Number(opening.size))}): reading its entries…
          </p>
        )}
        <FormFooter error={error} onCancel={onCancel} submit="Open" disabled={!sessions?.length || opening !== null} />
      </form>
    </div>
  );
}
