// A saved server's drift since its baseline: at the line's first ready connection the core lists
// the interface and compares it with the one last accepted for the server (kept between
// sessions). What changed since is said here, breaking first, with Accept to make the new
// interface the baseline; the first time, the interface simply becomes the baseline, and an
// interface as its baseline says so in one quiet line.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type BaselineCheck, type ConnectionState } from "../ipc";
import { ChangeList } from "./RebuildBanner";

/** When a baseline was kept, for people: "4 Dec, 18:04". */
function when(keptAt: string): string {
  return new Date(keptAt).toLocaleString(undefined, {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
}

export function DriftBanner({ line }: { line: ConnectionState }) {
  const { conn, state } = line.event;
  const ready = state.state === "ready";
  // The check, and the connection whose interface it compared: Accept keeps that one.
  const [check, setCheck] = useState<{ conn: number; check: BaselineCheck } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [acceptError, setAcceptError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const [accepting, setAccepting] = useState(false);
  // Checked once per line, at its first ready connection: a restart's changes are the restart
  // banner's to say.
  const asked = useRef(false);
  useEffect(() => {
    if (!ready || asked.current || line.serverId === null) return;
    asked.current = true;
    backend.baselineCheck(conn, false).then(
      (check) => setCheck({ conn, check }),
      (e) => setError(errorText(e)),
    );
  }, [ready, conn, line.serverId]);
  if (dismissed) return null;
  if (error)
    return (
      <p className="muted" role="status" aria-label="Drift baseline">
        The interface was not compared with its baseline: {error}
      </p>
    );
  if (!check) return null;
  const checked = check.check;
  const dismiss = (
    <button type="button" onClick={() => setDismissed(true)}>
      Dismiss
    </button>
  );
  if (checked.keptNow)
    return (
      <p className="muted" role="status" aria-label="Drift baseline" data-drift="kept">
        {checked.keptAt === null
          ? "This interface is now the server's baseline: the next connect says what changed since."
          : "Accepted: this interface is now the server's baseline."}{" "}
        {dismiss}
      </p>
    );
  if (checked.changes.length === 0)
    return (
      <p className="muted" role="status" aria-label="Drift baseline" data-drift="unchanged">
        The interface is as its baseline of {checked.keptAt && when(checked.keptAt)}. {dismiss}
      </p>
    );
  const breaking = checked.changes.some((c) => c.severity === "breaking");
  // The interface compared is the checked connection's: once the line has moved on (a restart),
  // it is not the one Accept would list.
  const current = ready && conn === check.conn;
  const accept = async () => {
    setAccepting(true);
    setAcceptError(null);
    try {
      setCheck({ conn: check.conn, check: await backend.baselineCheck(check.conn, true) });
      setOpen(false);
    } catch (e) {
      setAcceptError(`Not accepted: ${errorText(e)}`);
    } finally {
      setAccepting(false);
    }
  };
  return (
    <section
      className={`notice${breaking ? " warn" : ""}`}
      role="status"
      aria-label="Drift baseline"
      data-drift="changed"
    >
      <p>
        Since {checked.keptAt && when(checked.keptAt)}: {checked.brief}
        {checked.changes[0] && (
          <>
            {" "}
            (<code>{checked.changes[0].path}</code>: {checked.changes[0].detail})
          </>
        )}
        .{" "}
        <button type="button" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
          {open ? "Hide the changes" : "Show the changes"}
        </button>{" "}
        <button
          type="button"
          className="primary"
          disabled={accepting || !current}
          title={current ? undefined : `Connection ${check.conn}, whose interface this is, is no longer the line's`}
          onClick={accept}
        >
          Accept
        </button>{" "}
        {dismiss}
      </p>
      {acceptError && (
        <p className="error" role="alert">
          {acceptError}
        </p>
      )}
      {open && <ChangeList changes={checked.changes} />}
    </section>
  );
}
