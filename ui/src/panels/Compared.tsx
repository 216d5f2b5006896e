// Two results of one tool set side by side: the result before a restart beside the one after
// (Call again), or two calls the person picked in the call history. Said to be the same when
// they are, so nothing is read twice for a difference that is not there.
import type { CallOutcome } from "../ipc";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { ResultView } from "./ResultView";

/** One side: what it is (`Before: connection 3`, `10:41:52 · connection 3`) and its result. */
export interface Side {
  label: string;
  outcome: CallOutcome;
}

export function Compared({ before, now, line }: { before: Side; now: Side; line: number }) {
  const same = JSON.stringify(before.outcome.result) === JSON.stringify(now.outcome.result);
  if (same)
    return (
      <>
        <p className="muted" role="status" aria-label="Compared">
          The same result: {before.label} and {now.label}.
        </p>
        <ErrorBoundary name="result view">
          <ResultView outcome={now.outcome} line={line} />
        </ErrorBoundary>
      </>
    );
  return (
    <>
      <p className="banner" role="status" aria-label="Compared">
        The results differ: {before.label} and {now.label}.
      </p>
      <div className="results-side">
        {[before, now].map((side) => (
          <section key={side.label} aria-label={side.label}>
            <h3>{side.label}</h3>
            <ErrorBoundary name="result view">
              <ResultView outcome={side.outcome} line={line} />
            </ErrorBoundary>
          </section>
        ))}
      </div>
    </>
  );
}
