// A saved server's drift since its baseline, over the line's panels when something changed:
// what changed since the interface last accepted for it (kept between sessions), breaking
// first, with Accept to make the new interface the baseline. A first connect (the interface
// becomes the baseline) and an interface as its baseline take no room here: the Server panel
// says them (`driftWords`).
import { useState } from "react";
import type { ConnectionState } from "../ipc";
import { acceptDrift, useDrift, when } from "./drift";
import { ChangeList } from "./RebuildBanner";

export function DriftBanner({ line }: { line: ConnectionState }) {
  const drift = useDrift(line);
  const [open, setOpen] = useState(false);
  const [dismissed, setDismissed] = useState(false);
  const [accepting, setAccepting] = useState(false);
  if (dismissed || !drift || "error" in drift) return null;
  const { check } = drift;
  // Nothing changed, or this connect made the baseline.
  if (check.keptAt === null || check.changes.length === 0) return null;
  const dismiss = (
    <button type="button" onClick={() => setDismissed(true)}>
      Dismiss
    </button>
  );
  if (check.keptNow)
    return (
      <p className="banner" role="status" aria-label="Drift baseline" data-drift="accepted">
        Accepted: this interface is now the server&apos;s baseline. {dismiss}
      </p>
    );
  const breaking = check.changes.some((c) => c.severity === "breaking");
  // The interface compared is the checked connection's: once the line has moved on (a restart),
  // it is not the one Accept would keep.
  const current = line.event.state.state === "ready" && line.event.conn === drift.conn;
  const accept = async () => {
    setAccepting(true);
    await acceptDrift(line.event.line, drift);
    setAccepting(false);
    setOpen(false);
  };
  return (
    <section
      className={`notice${breaking ? " warn" : ""}`}
      role="status"
      aria-label="Drift baseline"
      data-drift="changed"
    >
      <p>
        Since {when(check.keptAt)}: {check.brief}
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
        <button
          type="button"
          className="primary"
          disabled={accepting || !current}
          title={current ? undefined : `Connection ${drift.conn}, whose interface this is, is no longer the line's`}
          onClick={accept}
        >
          Accept
        </button>{" "}
        {dismiss}
      </p>
      {drift.acceptError && (
        <p className="error" role="alert">
          {drift.acceptError}
        </p>
      )}
      {open && <ChangeList changes={check.changes} />}
    </section>
  );
}
