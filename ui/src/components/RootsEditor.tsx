// The roots a live connection offers its server, editable while connected: add, edit and remove
// paths; Enter (or Apply) hands the list to the core, which checks it, answers the server's next
// roots/list with it and decides what the server is told (2025-11-25: notifications/roots/
// list_changed; 2026-07-28 has no notification). The list shown is the core's, read back after
// each change. It lasts as long as the connection; the saved server's roots are edited in its
// settings.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type RootsChange } from "../ipc";

/** What the server was told, in words. */
export const TOLD: Record<RootsChange, string> = {
  notified: "Applied; the server was sent notifications/roots/list_changed.",
  unannounced: "Applied; Sonde did not declare roots.listChanged, so the server gets the list when it next asks.",
  next_ask:
    "Applied; 2026-07-28 has no roots notification, so the server gets the list the next time a request asks for it.",
};

export function RootsEditor({ conn, ready }: { conn: number; ready: boolean }) {
  // The rows being edited; null until the core's list has been read.
  const [rows, setRows] = useState<string[] | null>(null);
  const [told, setTold] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const focusLast = useRef(false);
  const lastInput = useRef<HTMLInputElement | null>(null);
  useEffect(() => {
    if (!ready) return;
    let current = true;
    backend.connectionRoots(conn).then(
      (roots) => current && setRows(roots),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [conn, ready]);
  useEffect(() => {
    if (focusLast.current) lastInput.current?.focus();
    focusLast.current = false;
  }, [rows]);
  const apply = async () => {
    if (rows === null) return;
    setError(null);
    setTold(null);
    try {
      const change = await backend.connectionRootsSet(conn, rows);
      setRows(await backend.connectionRoots(conn));
      setTold(TOLD[change]);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const edit = (i: number, value: string) => setRows((all) => all && all.map((r, j) => (j === i ? value : r)));
  const remove = (i: number) => setRows((all) => all && all.filter((_, j) => j !== i));
  const add = () => {
    focusLast.current = true;
    setRows((all) => [...(all ?? []), ""]);
  };
  return (
    <form
      className="roots-editor"
      aria-label="Roots"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
    >
      <header>
        <h3>Roots</h3>
        <span className="muted">Directories the server may work in, as absolute paths.</span>
      </header>
      {!ready && <p className="muted">Roots can be changed while the connection is ready.</p>}
      {rows !== null && rows.length === 0 && <p className="muted">No roots: the server is offered none.</p>}
      <ul>
        {rows?.map((root, i) => (
          <li key={i}>
            <input
              className="mono"
              aria-label={`Root ${i + 1}`}
              value={root}
              placeholder="/path/to/a/directory"
              ref={i === rows.length - 1 ? lastInput : undefined}
              onChange={(e) => edit(i, e.target.value)}
              disabled={!ready}
            />
            <button type="button" aria-label={`Remove root ${i + 1}`} onClick={() => remove(i)} disabled={!ready}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <div className="call-row">
        <button type="button" onClick={add} disabled={!ready || rows === null}>
          Add root
        </button>
        <button type="submit" className="primary" disabled={!ready || rows === null}>
          Apply
        </button>
      </div>
      {told && (
        <p className="muted" role="status">
          {told}
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
