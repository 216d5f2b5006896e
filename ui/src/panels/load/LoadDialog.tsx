// Load test…: the tool of the form, with the form's arguments, called at a rate (or by a number
// of callers) for a while on the line's connection; each second drawn as it closes, the report
// at the end; Stop; a run kept and compared with an earlier one. The run, its figures and the
// budget's verdicts are the core's (`load_run`); this dialog asks and draws.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type JsonValue, type LoadReport, type LoadSecond, type SavedRun } from "../../ipc";
import { LoadChart } from "./LoadChart";
import { Comparison, LoadReportView } from "./LoadReportView";

interface Props {
  conn: number;
  tool: string;
  args: JsonValue | null;
  /** The server's name, as a kept run names it. */
  server: string;
  onClose(): void;
}

type Mode = "rate" | "callers";

export function LoadDialog({ conn, tool, args, server, onClose }: Props) {
  const [mode, setMode] = useState<Mode>("rate");
  const [rate, setRate] = useState("50");
  const [callers, setCallers] = useState("4");
  const [duration, setDuration] = useState("10");
  const [warmup, setWarmup] = useState("0");
  const [slo, setSlo] = useState("");
  const [running, setRunning] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [seconds, setSeconds] = useState<LoadSecond[]>([]);
  const [report, setReport] = useState<LoadReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [planned, setPlanned] = useState(10);
  const [runs, setRuns] = useState<SavedRun[] | null>(null);
  const [kept, setKept] = useState<SavedRun | null>(null);
  const [against, setAgainst] = useState("");
  const what = `tools/call ${tool}`;
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  useEffect(() => {
    backend.loadRuns().then(
      (all) => live.current && setRuns(all),
      (e) => live.current && setError(`The kept runs could not be read: ${errorText(e)}`),
    );
  }, [kept]);

  const start = async () => {
    setError(null);
    setReport(null);
    setSeconds([]);
    setKept(null);
    setRunning(true);
    setStopping(false);
    setPlanned(Number(duration) || 0);
    try {
      const done = await backend.loadRun(
        conn,
        tool,
        args,
        {
          rate: Number(rate),
          concurrency: mode === "callers" ? Number(callers) : null,
          durationS: Number(duration),
          warmupS: Number(warmup),
          slo,
        },
        (second) => live.current && setSeconds((all) => [...all, second]),
      );
      if (live.current) {
        setReport(done);
        setSeconds(done.seconds);
      }
    } catch (e) {
      if (live.current) setError(errorText(e));
    } finally {
      if (live.current) setRunning(false);
    }
  };
  const stop = () => {
    setStopping(true);
    void backend.loadStop(conn);
  };
  const keep = async () => {
    if (!report) return;
    try {
      setKept(await backend.loadKeep(server, what, report));
    } catch (e) {
      setError(`The run was not kept: ${errorText(e)}`);
    }
  };
  const earlier = runs?.filter((r) => r.id !== kept?.id) ?? [];
  const compared = earlier.find((r) => r.id === against) ?? null;
  const close = () => {
    if (running) stop();
    onClose();
  };
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && close()}>
      <div className="dialog load-dialog" role="dialog" aria-label="Load test">
        <h2>
          Load test <code>{tool}</code> on connection {conn}
        </h2>
        <p className="muted">
          The form&apos;s arguments, sent again and again: <code>{"{{seq}}"}</code> and <code>{"{{rand}}"}</code> in a
          value are filled per call. At a rate, each latency runs from when its call was due, so a server that stalls
          shows it. Every call is in the log.
        </p>
        <form
          className="load-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!running) void start();
          }}
        >
          <fieldset disabled={running}>
            <label className="check">
              <input type="radio" name="load-mode" checked={mode === "rate"} onChange={() => setMode("rate")} />
              Calls a second
              <input
                aria-label="Calls a second"
                type="number"
                min="0.1"
                step="any"
                value={rate}
                onChange={(e) => setRate(e.target.value)}
                disabled={mode !== "rate"}
              />
            </label>
            <label className="check">
              <input type="radio" name="load-mode" checked={mode === "callers"} onChange={() => setMode("callers")} />
              Callers (each sends when answered)
              <input
                aria-label="Callers"
                type="number"
                min="1"
                step="1"
                value={callers}
                onChange={(e) => setCallers(e.target.value)}
                disabled={mode !== "callers"}
              />
            </label>
            <label>
              Duration (s)
              <input
                aria-label="Duration"
                type="number"
                min="0.1"
                step="any"
                value={duration}
                onChange={(e) => setDuration(e.target.value)}
              />
            </label>
            <label>
              Warm-up (s, not counted)
              <input
                aria-label="Warm-up"
                type="number"
                min="0"
                step="any"
                value={warmup}
                onChange={(e) => setWarmup(e.target.value)}
              />
            </label>
            <label>
              Budget
              <input
                aria-label="Budget"
                placeholder="p99<50ms,errors<0.1%"
                value={slo}
                onChange={(e) => setSlo(e.target.value)}
              />
            </label>
          </fieldset>
          <div className="call-row">
            {running ? (
              <button type="button" onClick={stop} disabled={stopping}>
                {stopping ? "Stopping…" : "Stop"}
              </button>
            ) : (
              <button type="submit" className="primary" autoFocus>
                Start
              </button>
            )}
            <span role="status" aria-label="Load status">
              {running
                ? stopping
                  ? "Stopping: waiting for the calls in flight…"
                  : seconds.length
                    ? `Running: ${seconds.length} of ${planned} s`
                    : Number(warmup) > 0
                      ? "Warming up…"
                      : "Running…"
                : report
                  ? "Done"
                  : ""}
            </span>
          </div>
        </form>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {(running || seconds.length > 0) && <LoadChart seconds={seconds} planned={planned} />}
        {report && (
          <>
            <LoadReportView report={report} />
            <div className="call-row">
              <button type="button" onClick={() => void keep()} disabled={kept !== null}>
                {kept ? "Kept" : "Keep this run"}
              </button>
              <label className="check">
                Compare with
                <select aria-label="Compare with" value={against} onChange={(e) => setAgainst(e.target.value)}>
                  <option value="">{earlier.length ? "an earlier run…" : "no earlier run kept"}</option>
                  {earlier.map((r) => (
                    <option key={r.id} value={r.id}>
                      {r.server} · {r.what} · {r.report.asked} · {r.saved_at}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            {compared && <Comparison now={report} earlier={compared} />}
          </>
        )}
        <footer>
          <button type="button" onClick={close}>
            {running ? "Stop and close" : "Close"}
          </button>
        </footer>
      </div>
    </div>
  );
}
