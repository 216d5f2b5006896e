// A load run's report as the core gave it: the figures, errors by kind, the server's death, the
// budget's verdicts, the histogram; and two runs' percentiles side by side.
import type { LoadReport, SavedRun } from "../../ipc";
import { formatDuration, formatTimeOfDay } from "../../log/format";

const PERCENTILES = [
  ["p50", "p50"],
  ["p90", "p90"],
  ["p99", "p99"],
  ["p999", "p99.9"],
  ["max", "max"],
] as const;

function kinds(byKind: LoadReport["errors_by_kind"]): string {
  return Object.entries(byKind)
    .map(([kind, n]) => `${n ?? 0} ${kind}`)
    .join(", ");
}

export function LoadReportView({ report }: { report: LoadReport }) {
  const count = report.count ?? 0;
  const errors = report.errors ?? 0;
  const most = Math.max(...report.histogram.map((b) => b.count ?? 0), 1);
  const cpu = report.seconds.map((s) => s.cpu_percent).filter((c): c is number => c !== null);
  const rss = report.seconds.map((s) => s.rss_bytes).filter((b): b is number => b !== null);
  return (
    <section className="load-report" aria-label="Load report">
      <p>
        {report.asked} ({report.loop === "open" ? "open loop: each latency from when its call was due" : "closed loop"}
        ): <strong>{count}</strong> calls in {formatDuration((report.duration_s ?? 0) * 1000)}, {errors} errors
        {errors > 0 && ` (${kinds(report.errors_by_kind)})`}, {(report.rate ?? 0).toFixed(1)}/s reached
        {report.warmup_s ? `, after a ${formatDuration(report.warmup_s * 1000)} warm-up not counted` : ""}.
      </p>
      {report.server_died_s != null && (
        <p className="error" role="alert">
          The server died {report.server_died_s.toFixed(1)} s into the run; sending stopped.
        </p>
      )}
      {report.interrupted && <p className="muted">Stopped before its end: the figures are of what ran.</p>}
      <table className="load-figures" aria-label="Latency">
        <thead>
          <tr>
            {PERCENTILES.map(([, label]) => (
              <th key={label}>{label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            {PERCENTILES.map(([key, label]) => (
              <td key={label}>{formatDuration(report.latency_ms[key] ?? 0)}</td>
            ))}
          </tr>
        </tbody>
      </table>
      {cpu.length > 0 && rss.length > 0 && (
        <p aria-label="Server cost">
          Server: CPU {Math.round(cpu.reduce((a, b) => a + b, 0) / cpu.length)}% of a CPU on average,{" "}
          {Math.round(Math.max(...cpu))}% at most; memory {(rss[0] / 1048576).toFixed(1)} MiB →{" "}
          {(rss[rss.length - 1] / 1048576).toFixed(1)} MiB.
        </p>
      )}
      {report.slo.length > 0 && (
        <ul aria-label="Budget" className="load-slo">
          {report.slo.map((v) => (
            <li key={v.term} className={v.held ? "held" : "broken"}>
              <code>{v.term}</code> {v.held ? "held" : "broken"}: {v.measured}
            </li>
          ))}
        </ul>
      )}
      <div className="load-histogram" role="img" aria-label="Latency histogram">
        {report.histogram
          .filter((b) => (b.count ?? 0) > 0)
          .map((b) => (
            <div key={b.le_ms} className="bar-row">
              <span className="mono">≤ {formatDuration(b.le_ms ?? 0)}</span>
              <span className="bar" style={{ width: `${(100 * (b.count ?? 0)) / most}%` }} />
              <span className="mono">{b.count}</span>
            </div>
          ))}
      </div>
      <p className="muted">Recorded: {report.recorded} in the session log.</p>
    </section>
  );
}

/** Two runs' figures side by side, the later's ratio to the earlier's. */
export function Comparison({ now, earlier }: { now: LoadReport; earlier: SavedRun }) {
  const then = earlier.report;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "—");
  const rows: [string, number, number, (v: number) => string][] = [
    ...PERCENTILES.map(
      ([key, label]) =>
        [label, now.latency_ms[key] ?? 0, then.latency_ms[key] ?? 0, formatDuration] as [
          string,
          number,
          number,
          (v: number) => string,
        ],
    ),
    ["rate", now.rate ?? 0, then.rate ?? 0, (v: number) => `${v.toFixed(1)}/s`],
    ["errors", now.errors ?? 0, then.errors ?? 0, (v: number) => String(v)],
  ];
  return (
    <table className="load-figures" aria-label="Comparison">
      <thead>
        <tr>
          <th />
          <th>This run</th>
          <th>
            {earlier.what} at {formatTimeOfDay(earlier.saved_at)} ({earlier.saved_at.slice(0, 10)})
          </th>
          <th>This ÷ that</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, a, b, shown]) => (
          <tr key={label}>
            <th>{label}</th>
            <td>{shown(a)}</td>
            <td>{shown(b)}</td>
            <td>{ratio(a, b)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
