// A connection's tools: the list, a form from the inputSchema (or raw JSON), Call with
// progress and Cancel, and the result.
import { useEffect, useState } from "react";
import { backend, errorText, type CallOutcome, type ConnectionDto } from "../ipc";
import { initialValue, problemsOf, toJson, type Draft, type Problem } from "../forms/schema";
import { SchemaForm } from "../forms/SchemaForm";
import { ResultView } from "./ResultView";

interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown> & { title?: string };
  icons?: { src: string }[];
}

const title = (t: Tool) => t.title ?? t.annotations?.title ?? t.name;
const safeIcon = (src: string) => src.startsWith("https:") || src.startsWith("data:");

export function ToolsPanel({ conn }: { conn: ConnectionDto }) {
  const [tools, setTools] = useState<Tool[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Tool | null>(null);
  // Each Refresh bumps `listed`, which lists again; a listing that comes back after a newer one
  // started is dropped.
  const [listed, setListed] = useState(0);
  useEffect(() => {
    let current = true;
    backend.toolsList(conn.id).then(
      (t) => current && setTools(t as Tool[]),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [conn.id, listed]);
  const load = () => {
    setError(null);
    setListed((n) => n + 1);
  };
  return (
    <div className="tools">
      <div className="tool-list">
        <header>
          <h2>Tools</h2>
          <span className="muted">{conn.server.serverInfo && (conn.server.serverInfo as { name?: string }).name}</span>
          <button onClick={load}>Refresh</button>
        </header>
        {error && <p className="error">{error}</p>}
        {tools === null && !error && <p className="muted">Listing tools…</p>}
        <ul>
          {tools?.map((t) => (
            <li key={t.name} className={chosen?.name === t.name ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen(t)}>
                {t.icons
                  ?.filter((i) => safeIcon(i.src))
                  .slice(0, 1)
                  .map((i) => (
                    <img key={i.src} src={i.src} alt="" width={16} height={16} />
                  ))}
                <strong>{title(t)}</strong>
                {title(t) !== t.name && <code>{t.name}</code>}
                <span className="desc">{t.description}</span>
                <span className="badges">
                  {Object.entries(t.annotations ?? {})
                    .filter(([k, v]) => k.endsWith("Hint") && v === true)
                    .map(([k]) => (
                      <span key={k} className="badge">
                        {k.replace("Hint", "")}
                      </span>
                    ))}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {chosen ? (
        <ToolCall key={chosen.name} conn={conn} tool={chosen} />
      ) : (
        <div className="empty">Choose a tool to call it.</div>
      )}
    </div>
  );
}

function ToolCall({ conn, tool }: { conn: ConnectionDto; tool: Tool }) {
  const schema = tool.inputSchema ?? {};
  const [value, setValue] = useState<Draft>(() => initialValue(schema) ?? {});
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [raw, setRaw] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<{ progress: number; total?: number; message?: string } | null>(null);
  const [outcome, setOutcome] = useState<CallOutcome | null>(null);
  const [error, setError] = useState<string | null>(null);

  // The form's arguments once nothing required is missing; the raw JSON as typed, unchecked,
  // because it is there to send what the form would not.
  const args = (): { args: unknown } | { error: string } => {
    if (raw === null) {
      const found = problemsOf(schema, value);
      setProblems(found);
      return found.length ? { error: found[0].message } : { args: toJson(value) ?? {} };
    }
    try {
      return { args: JSON.parse(raw) };
    } catch (e) {
      return { error: `the JSON does not parse: ${errorText(e)}` };
    }
  };
  const toggleRaw = () => {
    if (raw === null) {
      setRaw(JSON.stringify(toJson(value) ?? {}, null, 2));
    } else {
      try {
        setValue(JSON.parse(raw));
        setProblems(null);
        setRaw(null);
      } catch {
        setError("Fix the JSON before switching back to the form; nothing typed is thrown away.");
      }
    }
  };
  const call = async () => {
    const a = args();
    if ("error" in a) return setError(a.error);
    setError(null);
    setOutcome(null);
    setProgress(null);
    setRunning(true);
    try {
      setOutcome(await backend.toolCall(conn.id, tool, a.args, (p) => setProgress(p as never)));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  };
  return (
    <div className="tool-call">
      <header>
        <h2>{title(tool)}</h2>
        <button onClick={toggleRaw}>{raw === null ? "Raw JSON" : "Form"}</button>
      </header>
      <p className="muted">{tool.description}</p>
      <form onSubmit={(e) => (e.preventDefault(), call())}>
        {raw !== null ? (
          <textarea
            className="mono"
            aria-label="Arguments as JSON"
            rows={8}
            value={raw}
            onChange={(e) => setRaw(e.target.value)}
          />
        ) : (
          <SchemaForm schema={schema} value={value} onChange={setValue} problems={problems} />
        )}
        <div className="call-row">
          <button type="submit" className="primary" disabled={running}>
            {running ? "Calling…" : "Call"}
          </button>
          {running && (
            <button type="button" onClick={() => backend.requestCancel(conn.id)}>
              Cancel
            </button>
          )}
          {progress && (
            <span className="progress">
              <progress value={progress.progress} max={progress.total ?? undefined} />
              {progress.message ?? `${progress.progress}${progress.total ? ` / ${progress.total}` : ""}`}
            </span>
          )}
        </div>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {outcome && <ResultView outcome={outcome} />}
    </div>
  );
}
