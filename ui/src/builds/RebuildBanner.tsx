// The line's latest restart on change, as the core told it: the build or restart under way,
// then what happened ("Restarted after a change to server.py (0.9 s): 1 tool added, 1 breaking
// change"), with the changes one click away, breaking first. A failed build shows its output
// here, in the main pane; a failed start's last words are the line's own (NotReady).
import { useState } from "react";
import type { Change, Rebuild } from "../ipc";

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function RebuildBanner({ rebuild }: { rebuild: Rebuild }) {
  const [dismissed, setDismissed] = useState<number | null>(null);
  const [open, setOpen] = useState(false);
  if (dismissed === rebuild.version) return null;
  const dismiss = (
    <button type="button" onClick={() => setDismissed(rebuild.version)}>
      Dismiss
    </button>
  );
  const { cause } = rebuild;
  const o = rebuild.outcome;
  switch (o.outcome) {
    case "stopped":
      return null;
    case "building":
      return (
        <p className="banner" role="status" aria-label="Restart on change" data-rebuild="building">
          {capital(cause)}: building (<code>{o.command}</code>)…
        </p>
      );
    case "restarting":
      return (
        <p className="banner" role="status" aria-label="Restart on change" data-rebuild="restarting">
          {capital(cause)}: restarting…
        </p>
      );
    case "build_failed":
      return (
        <section className="notice error" role="alert" aria-label="Restart on change" data-rebuild="build_failed">
          <p>
            The build after {cause} failed ({o.status}); the server was not restarted. {dismiss}
          </p>
          <pre className="mono build-output" aria-label="Build output">
            {o.output || "(the build wrote nothing)"}
          </pre>
        </section>
      );
    case "start_failed":
      return (
        <p className="notice error" role="alert" aria-label="Restart on change" data-rebuild="start_failed">
          The restart after {cause} failed: {o.reason}. The next change tries again. {dismiss}
        </p>
      );
    case "restarted": {
      const breaking = o.changes?.some((c) => c.severity === "breaking") ?? false;
      return (
        <section
          className={`notice${breaking ? " warn" : ""}`}
          role="status"
          aria-label="Restart on change"
          data-rebuild="restarted"
        >
          <p>
            Restarted after {cause} ({(o.tookMs / 1000).toFixed(1)} s): {o.brief}.{" "}
            {o.changes && o.changes.length > 0 && (
              <button type="button" aria-expanded={open} onClick={() => setOpen((v) => !v)}>
                {open ? "Hide the changes" : "Show the changes"}
              </button>
            )}{" "}
            {dismiss}
          </p>
          {open && o.changes && <ChangeList changes={o.changes} />}
        </section>
      );
    }
  }
}

/** Changes as the core said them, in its order (breaking first). */
export function ChangeList({ changes }: { changes: Change[] }) {
  return (
    <ul className="changes" aria-label="Changes">
      {changes.map((c, n) => (
        <li key={n} data-severity={c.severity}>
          <span className={`badge ${c.severity}`}>{c.severity}</span> <code>{c.path}</code>: {c.detail}
        </li>
      ))}
    </ul>
  );
}
