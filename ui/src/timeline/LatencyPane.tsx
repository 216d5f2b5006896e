// Latency at a glance: per method and per tool (or prompt, or resource), the calls, p50, p95,
// max, errors (JSON-RPC errors, and results that say isError) and those never answered, with a histogram, for the session or what the filter
// shows. The core computes every figure (`timeline_latency`); a click on a row filters the log
// to those calls with the filter the core wrote for it.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type SessionRef } from "../ipc";
import type { Histogram, Latency } from "../ipc/bindings";
import { formatDuration } from "../log/format";

interface Props {
  session: SessionRef;
  filter: string;
  total: number;
  setFilter(f: string): void;
}

export function LatencyPane({ session, filter, total, setFilter }: Props) {
  const [latency, setLatency] = useState<Latency | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, choose] = useState<number | null>(null);
  // One question at a time; a change meanwhile asks once more when it is answered.
  const asking = useRef(false);
  const again = useRef<(() => void) | null>(null);
  useEffect(() => {
    const ask = () => {
      asking.current = true;
      backend
        .timelineLatency(session, filter)
        .then(
          (l) => {
            setLatency(l);
            setProblem(null);
          },
          (e) => setProblem(errorText(e)),
        )
        .finally(() => {
          asking.current = false;
          const next = again.current;
          again.current = null;
          next?.();
        });
    };
    if (asking.current) again.current = ask;
    else ask();
  }, [session, filter, total]);

  const ms = (v: number | null | undefined) => (v == null ? "—" : formatDuration(v));
  const row = chosen !== null ? latency?.rows[chosen] : undefined;
  return (
    <section className="latency" aria-label="Latency">
      <div className="timeline-bar">
        <strong>Latency</strong>
        <span className="muted">
          {filter ? "of the requests the filter shows" : "of every request in the session"}; click a row to filter the
          log to those calls
        </span>
      </div>
      {problem && (
        <p className="error" role="alert">
          Latency could not be read: {problem}
        </p>
      )}
      <div className="latency-body">
        <table className="latency-table">
          <thead>
            <tr>
              <th>method / name</th>
              <th>calls</th>
              <th>p50</th>
              <th>p95</th>
              <th>max</th>
              <th title="answered with a JSON-RPC error">errors</th>
              <th title="results that say isError: true (the tool failed)">isError</th>
              <th title="cancelled, timed out or never answered">unanswered</th>
              <th>histogram</th>
            </tr>
          </thead>
          <tbody>
            {(latency?.rows ?? []).map((r, i) => (
              <tr
                key={`${r.method} ${r.target ?? ""}`}
                className={`${r.target ? "target" : "method"} ${chosen === i ? "selected" : ""}`}
                aria-selected={chosen === i}
                onMouseEnter={() => choose(i)}
              >
                <td>
                  <button className="link" title={`Filter the log: ${r.filter}`} onClick={() => setFilter(r.filter)}>
                    {r.target ? `  ${r.target}` : r.method}
                  </button>
                </td>
                <td>{r.count}</td>
                <td>{ms(r.p50)}</td>
                <td>{ms(r.p95)}</td>
                <td>{ms(r.max)}</td>
                <td className={r.errors > 0 ? "bad" : ""}>{r.errors}</td>
                <td className={r.tool_errors > 0 ? "bad" : ""}>{r.tool_errors}</td>
                <td className={r.unanswered > 0 ? "bad" : ""}>{r.unanswered}</td>
                <td>
                  <Bars histogram={r.histogram} small />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {latency && latency.rows.length === 0 && <p className="muted empty">No requests to measure.</p>}
        {latency && (
          <figure className="histogram" aria-label="Latency histogram">
            <figcaption>
              {row ? `${row.method}${row.target ? ` ${row.target}` : ""}` : "every answered request"}
            </figcaption>
            <Bars histogram={row?.histogram ?? latency.all} edges={latency.edges} />
          </figure>
        )}
      </div>
    </section>
  );
}

/** A histogram's bars, labelled by their upper edges when `edges` is given. */
function Bars({ histogram, edges, small = false }: { histogram: Histogram; edges?: number[]; small?: boolean }) {
  const most = Math.max(1, ...histogram.counts);
  const label = (i: number) =>
    edges ? (i < edges.length ? `≤ ${formatDuration(edges[i])}` : `> ${formatDuration(edges[edges.length - 1])}`) : "";
  // Under a bar, its upper edge short: ms below a second, s above.
  const short = (i: number) => {
    if (!edges) return "";
    const edge = edges[Math.min(i, edges.length - 1)];
    const words = edge < 1000 ? `${edge}` : `${edge / 1000}s`;
    return i < edges.length ? words : `>${words}`;
  };
  return (
    <div className={small ? "bars small" : "bars"}>
      {histogram.counts.map((count, i) => (
        <div key={i} className="bar" title={`${label(i)}: ${count}`}>
          <i style={{ height: `${(count / most) * 100}%` }} />
          {!small && <span>{short(i)}</span>}
        </div>
      ))}
    </div>
  );
}
