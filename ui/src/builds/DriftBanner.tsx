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
  const [check, setCheck] = useState<BaselineCheck | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const [accepting, setAccepting] = useState(false);
  // Checked once per line, at its first ready connection: a restart's changes are the restart
  // banner's to say.
  const checked = useRef(false);
  useEffect(() => {
    if (!ready || checked.current || line.serverId === null) return;
    checked.current = true;
    backend.baselineCheck(conn, false).then(setCheck, (e) => setError(errorText(e)));
  }, [ready, conn, line.serverId]);
  if (dismissed) return null;
  if (error)
    return (
      <p className="muted" role="status" aria-label="Drift baseline">
        The interface was not compared with its baseline: {error}
      </p>
    );
  if (!check) return null;
  const dismiss = (
    <button type="button" onClick={() => setDismissed(true)}>
      Dismiss
    </button>
  );
  if (check.keptNow)
    return (
      <p className="muted" role="status" aria-label="Drift baseline" data-drift="kept">
        {check.keptAt === null
          ? "This interface is now the server's baseline: the next connect says what changed since."
          : "Accepted: this interface is now the server's baseline."}{" "}
        {dismiss}
      </p>
    );
  if (check.changes.length === 0)
    return (
      <p className="muted" role="status" aria-label="Drift baseline" data-drift="unchanged">
        The interface is as its baseline of {check.keptAt && when(check.keptAt)}. {dismiss}
      </p>
    );
  const breaking = check.changes.some((c) => c.severity === "breaking");
  const accept = async () => {
    setAccepting(true);
    try {
      setCheck(await backend.baselineCheck(conn, true));
      setOpen(false);
    } catch (e) {
      setError(errorText(e));
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
        Since {check.keptAt && when(check.keptAt)}: {check.brief}
        {check.changes[0] && (
          <>
            {" "}
            (<code>{check.changes[0].path}</code>: {check.changes[0].detail})
          </>
        )}
        .{" "}
        <button type="button" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
          {open ? "Hide the changes" : "Show the changes"}
        </button>{" "}
        <button type="button" className="primary" disabled={accepting || !ready} onClick={accept}>
          Accept
        </button>{" "}
        {dismiss}
      </p>
      {open && <ChangeList changes={check.changes} />}
    </section>
  );
}
