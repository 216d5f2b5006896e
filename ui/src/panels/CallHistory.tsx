// A tool's call history on a line, as the core reads it from the session log (so it holds every
// call of the tool on the line, restarts included, however it was sent): newest first, each with
// its arguments, how it ended and after how long. A call's arguments go back into the form
// (Edit and send) or are sent again as they were (Send again); two calls picked are compared
// side by side. The window keeps no list of its own.
import { useEffect, useState } from "react";
import { backend, errorText, type JsonValue, type RecordedCall } from "../ipc";
import { OUTCOME_WORDS } from "../ipc/bindings";
import { formatDuration, formatTimeOfDay } from "../log/format";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { ResultView } from "./ResultView";
import { Compared } from "./Compared";

/** How many calls are listed before "Show all". */
const FIRST = 8;

/** How a recorded call ended, in the words every front end uses; a result that says `isError`
 * is a tool error, not a success. */
export function endedWord(call: RecordedCall): string {
  if (call.outcome === null) return "waiting";
  if (call.outcome === "result" && call.is_error) return "tool error (isError)";
  if (call.task) return "became a task";
  return OUTCOME_WORDS.find(([key]) => key === call.outcome)?.[1] ?? call.outcome;
}

/** A call as one line: when, where, how it ended and after how long. */
export const callLabel = (call: RecordedCall) => `${formatTimeOfDay(call.time)} · connection ${call.conn}`;

export function CallHistory({
  conn,
  tool,
  refresh,
  line,
  canSend,
  onEdit,
  onSend,
}: {
  /** The line's connection now: the history is its line's. */
  conn: number;
  tool: string;
  /** Changes whenever a call of this form ends, so the history is read again. */
  refresh: unknown;
  line: number;
  canSend: boolean;
  onEdit(args: JsonValue | null): void;
  onSend(args: JsonValue | null): void;
}) {
  const [calls, setCalls] = useState<RecordedCall[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [all, setAll] = useState(false);
  const [open, setOpen] = useState<number | null>(null);
  // The calls picked to compare, by seq, oldest pick first; at most two.
  const [picked, setPicked] = useState<number[]>([]);
  useEffect(() => {
    let live = true;
    backend.callHistory(null, conn, tool).then(
      (found) => {
        if (!live) return;
        setCalls(found);
        setError(null);
      },
      (e) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [conn, tool, refresh]);
  const pick = (seq: number) =>
    setPicked((p) => (p.includes(seq) ? p.filter((s) => s !== seq) : [...p, seq].slice(-2)));
  const shown = calls && (all ? calls : calls.slice(0, FIRST));
  // The older call on the left.
  const compared = (calls ?? []).filter((c) => picked.includes(Number(c.seq))).reverse();
  return (
    <section className="history" aria-label="Call history">
      <h3>
        History{" "}
        <span className="muted">
          {calls ? `${calls.length} call${calls.length === 1 ? "" : "s"} of ${tool} on this line` : ""}
        </span>
      </h3>
      {error && <p className="muted">The history could not be read: {error}</p>}
      {calls?.length === 0 && <p className="muted">No call of {tool} on this line yet.</p>}
      {shown && shown.length > 0 && (
        <ol>
          {shown.map((call) => {
            const seq = Number(call.seq);
            return (
              <li key={seq} className={`call-entry ${call.outcome === "result" && !call.is_error ? "ok" : "bad"}`}>
                <div className="call-line">
                  <input
                    type="checkbox"
                    aria-label={`Compare the call at ${callLabel(call)}`}
                    checked={picked.includes(seq)}
                    onChange={() => pick(seq)}
                  />
                  <button
                    className="link"
                    aria-expanded={open === seq}
                    onClick={() => setOpen(open === seq ? null : seq)}
                  >
                    {callLabel(call)}
                  </button>
                  <span className="ended">{endedWord(call)}</span>
                  {call.took_ms !== null && <span className="muted">{formatDuration(Number(call.took_ms))}</span>}
                  <button onClick={() => onEdit(call.arguments)}>Edit and send</button>
                  <button disabled={!canSend} onClick={() => onSend(call.arguments)}>
                    Send again
                  </button>
                </div>
                <code className="args" title={JSON.stringify(call.arguments ?? null, null, 2)}>
                  {call.arguments === null ? "no arguments" : JSON.stringify(call.arguments)}
                </code>
                {open === seq && <Recorded call={call} line={line} />}
              </li>
            );
          })}
        </ol>
      )}
      {calls && !all && calls.length > FIRST && <button onClick={() => setAll(true)}>Show all {calls.length}</button>}
      {picked.length === 1 && <p className="muted">Pick one more call to compare the two.</p>}
      {compared.length === 2 && (
        <div aria-label="Two calls compared">
          {compared.every((c) => c.result !== null) ? (
            <Compared
              before={{ label: callLabel(compared[0]), outcome: compared[0].result! }}
              now={{ label: callLabel(compared[1]), outcome: compared[1].result! }}
              line={line}
            />
          ) : (
            <div className="results-side">
              {compared.map((c) => (
                <section key={Number(c.seq)} aria-label={callLabel(c)}>
                  <h3>{callLabel(c)}</h3>
                  <Recorded call={c} line={line} />
                </section>
              ))}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/** A recorded call's answer: its result as the result view shows any, or why there is none. */
function Recorded({ call, line }: { call: RecordedCall; line: number }) {
  if (call.result)
    return (
      <ErrorBoundary name="result view">
        <ResultView outcome={call.result} line={line} />
      </ErrorBoundary>
    );
  return <p className={call.outcome === null ? "muted" : "error"}>{call.error ?? endedWord(call)}</p>;
}
