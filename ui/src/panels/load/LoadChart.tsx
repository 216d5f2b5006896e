// A load run drawn as it goes: each second's p50 and p99 latency (left scale, milliseconds) and
// the rate reached (right scale, calls a second), each drawn at the middle of its second, errors marked as red ticks at the top, and the
// server's CPU as a faint area where Sonde owns its process. Every figure is the core's
// (`LoadSecond`); the chart only draws them.
import type { LoadSecond } from "../../ipc";
import { formatDuration } from "../../log/format";

const W = 640;
const H = 220;
const PAD = { left: 52, right: 52, top: 14, bottom: 24 };

/** A scale's top: the next of 1, 2, 5 × a power of ten at or above `max`. */
export function niceTop(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

interface Props {
  seconds: LoadSecond[];
  /** The counted run's planned length in seconds, so the chart's width holds from the start. */
  planned: number;
}

export function LoadChart({ seconds, planned }: Props) {
  const span = Math.max(planned, seconds.length, 1);
  const msTop = niceTop(Math.max(...seconds.map((s) => s.p99_ms ?? 0), 0));
  const rateTop = niceTop(Math.max(...seconds.map((s) => s.rate ?? 0), 0));
  const x = (t: number) => PAD.left + ((W - PAD.left - PAD.right) * t) / span;
  const y = (v: number, top: number) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * Math.min(v, top)) / top;
  const line = (value: (s: LoadSecond) => number, top: number) =>
    seconds.map((s, i) => `${i ? "L" : "M"}${x(s.t - 0.5).toFixed(1)},${y(value(s), top).toFixed(1)}`).join(" ");
  const cpu = seconds.filter((s) => s.cpu_percent !== null);
  const cpuTop = niceTop(Math.max(100, ...cpu.map((s) => s.cpu_percent ?? 0)));
  const cpuArea = cpu.length
    ? `M${x(cpu[0].t - 1)},${y(0, cpuTop)} ` +
      cpu.map((s) => `L${x(s.t).toFixed(1)},${y(s.cpu_percent ?? 0, cpuTop).toFixed(1)}`).join(" ") +
      ` L${x(cpu[cpu.length - 1].t)},${y(0, cpuTop)} Z`
    : "";
  const last = seconds[seconds.length - 1];
  return (
    <figure className="load-chart" aria-label="Load chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={chartWords(seconds)}>
        <rect
          x={PAD.left}
          y={PAD.top}
          width={W - PAD.left - PAD.right}
          height={H - PAD.top - PAD.bottom}
          className="frame"
        />
        {cpuArea && <path d={cpuArea} className="cpu" />}
        {[0.5, 1].map((f) => (
          <g key={f}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y(msTop * f, msTop)} y2={y(msTop * f, msTop)} className="grid" />
            <text x={PAD.left - 4} y={y(msTop * f, msTop) + 4} textAnchor="end">
              {formatDuration(msTop * f)}
            </text>
            <text x={W - PAD.right + 4} y={y(rateTop * f, rateTop) + 4}>
              {`${rateTop * f}/s`}
            </text>
          </g>
        ))}
        <text x={PAD.left} y={H - 6}>
          0 s
        </text>
        <text x={W - PAD.right} y={H - 6} textAnchor="end">
          {`${span} s`}
        </text>
        {seconds.length > 0 && (
          <>
            <path d={line((s) => s.rate ?? 0, rateTop)} className="rate" />
            <path d={line((s) => s.p50_ms ?? 0, msTop)} className="p50" />
            <path d={line((s) => s.p99_ms ?? 0, msTop)} className="p99" />
          </>
        )}
        {seconds
          .filter((s) => s.errors > 0)
          .map((s) => (
            <line key={s.t} x1={x(s.t - 0.5)} x2={x(s.t - 0.5)} y1={PAD.top} y2={PAD.top + 10} className="error-mark">
              <title>{`${s.errors} errors in second ${s.t}`}</title>
            </line>
          ))}
      </svg>
      <Memory seconds={seconds} x={x} />
      <figcaption>
        <span className="key p99">p99</span> <span className="key p50">p50</span> <span className="key rate">rate</span>
        {cpu.length > 0 && <span className="key cpu">server CPU</span>}
        <span className="key error-mark">errors</span>
        {last && (
          <span className="muted">
            {" "}
            — second {last.t}: p50 {formatDuration(last.p50_ms ?? 0)}, p99 {formatDuration(last.p99_ms ?? 0)},{" "}
            {Math.round(last.rate ?? 0)}/s
          </span>
        )}
      </figcaption>
    </figure>
  );
}

const MEM_H = 54;

/** The server's resident memory each second, under the chart on the same time scale: memory
 * that only climbs is a leak. Drawn only where Sonde sampled it (a process it owns). */
function Memory({ seconds, x }: { seconds: LoadSecond[]; x: (t: number) => number }) {
  const sampled = seconds.filter((s) => s.rss_bytes !== null);
  if (!sampled.length) return null;
  const mib = sampled.map((s) => (s.rss_bytes ?? 0) / 1048576);
  const [low, high] = [Math.min(...mib), Math.max(...mib)];
  const span = Math.max(high - low, 0.1);
  const y = (v: number) => MEM_H - 6 - ((MEM_H - 12) * (v - low)) / span;
  const d = sampled.map((s, i) => `${i ? "L" : "M"}${x(s.t - 0.5).toFixed(1)},${y(mib[i]).toFixed(1)}`).join(" ");
  const words = `Server memory ${low.toFixed(1)} MiB to ${high.toFixed(1)} MiB, ${mib[mib.length - 1].toFixed(1)} MiB at the last second`;
  return (
    <svg viewBox={`0 0 ${W} ${MEM_H}`} role="img" aria-label={words} className="memory">
      <rect x={PAD.left} y={2} width={W - PAD.left - PAD.right} height={MEM_H - 4} className="frame" />
      <path d={d} className="rss" />
      <text x={PAD.left - 4} y={14} textAnchor="end">
        {`${high.toFixed(1)} MiB`}
      </text>
      <text x={PAD.left - 4} y={MEM_H - 4} textAnchor="end">
        {`${low.toFixed(1)} MiB`}
      </text>
      <text x={W - PAD.right + 4} y={MEM_H / 2 + 4}>
        memory
      </text>
    </svg>
  );
}

/** The chart in words, for a screen reader and a test. */
export function chartWords(seconds: LoadSecond[]): string {
  if (!seconds.length) return "No second has ended yet.";
  const errors = seconds.reduce((n, s) => n + s.errors, 0);
  const worst = Math.max(...seconds.map((s) => s.p99_ms ?? 0));
  return `${seconds.length} ${seconds.length === 1 ? "second" : "seconds"}; p99 at most ${formatDuration(worst)}; ${errors} errors`;
}
