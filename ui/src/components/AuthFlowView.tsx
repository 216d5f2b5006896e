// A connection's authorization flow on its card, as the core reports it: each step in order with
// its state (and a failure's reason in the core's words); while the flow waits for the person,
// the URL it waits at, to open in the browser again or copy. A done flow folds to one line that
// opens to its steps. Nothing here opens a URL itself: Open goes through the backend, which
// opens only the URL a running flow waits at.
import { useState } from "react";
import { backend, errorText, type Flow } from "../ipc";
import { flowHeadline, outcomeOf, showsSteps, stepName, stepStateText, stepWhat } from "../auth/flows";

export function AuthFlowView({ flow }: { flow: Flow }) {
  const outcome = outcomeOf(flow);
  if (!showsSteps(flow))
    return (
      <details className="auth-flow" data-outcome={outcome} onClick={(e) => e.stopPropagation()}>
        <summary title={flow.server}>{flowHeadline(flow)}</summary>
        <Steps flow={flow} />
      </details>
    );
  return (
    <section className="auth-flow" data-outcome={outcome} aria-label="Authorization">
      <div className="auth-headline" title={flow.server}>
        {flowHeadline(flow)}
      </div>
      <Steps flow={flow} />
      {flow.waiting_at !== null && <Waiting conn={flow.conn} url={flow.waiting_at} />}
    </section>
  );
}

const MARKS = { running: "…", done: "✓", failed: "✗" } as const;

function Steps({ flow }: { flow: Flow }) {
  return (
    <ol className="auth-steps" aria-label="Authorization steps">
      {flow.steps.map((s, i) => {
        const waiting = flow.waiting_at !== null && i === flow.steps.length - 1;
        return (
          <li key={i} data-step={s.step} data-state={s.state.state} title={stepWhat(s.step)}>
            <span className="step-mark" aria-hidden>
              {MARKS[s.state.state]}
            </span>
            <span className="step-name">{stepName(s.step)}</span>
            <span className="step-state">{stepStateText(s.state, waiting)}</span>
            {s.state.state === "failed" && <div className="reason">{s.state.reason}</div>}
          </li>
        );
      })}
    </ol>
  );
}

function Waiting({ conn, url }: { conn: number; url: string }) {
  // What the last button did, or why it could not.
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  const open = async () => {
    try {
      await backend.authOpen(conn);
      setSaid({ text: "Opened in the system browser.", error: false });
    } catch (e) {
      setSaid({ text: errorText(e), error: true });
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setSaid({ text: "Link copied.", error: false });
    } catch (e) {
      setSaid({ text: `The link could not be copied (${errorText(e)}); select it and copy it.`, error: true });
    }
  };
  return (
    <div className="auth-wait" onClick={(e) => e.stopPropagation()}>
      <p>Authorize Sonde in your browser; this page waits for the redirect.</p>
      <p className="mono auth-url" data-testid="auth-url" aria-label="Authorization URL">
        {url}
      </p>
      <div className="actions">
        <button type="button" className="primary" onClick={open}>
          Open in browser
        </button>
        <button type="button" onClick={copy}>
          Copy link
        </button>
      </div>
      {said && (
        <p className={said.error ? "error" : "muted"} role={said.error ? "alert" : "status"}>
          {said.text}
        </p>
      )}
    </div>
  );
}
