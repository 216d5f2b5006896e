// A connection's tools as the core read them: the list (each with what is wrong with it), a form
// from the inputSchema (or raw JSON), Call with progress and Cancel, and the result.
import { useEffect, useState } from "react";
import { backend, errorText, type CallOutcome, type ConnectionDto, type ToolView } from "../ipc";
import { initialValue, problemsOf, toJson, type Draft, type Problem } from "../forms/schema";
import { SchemaForm } from "../forms/SchemaForm";
import { ErrorBoundary } from "./ErrorBoundary";
import { ResultView } from "./ResultView";

/** A listed tool and where it is in the list (two entries can share a name, or have none). */
type Tool = ToolView & { at: number };

const title = (t: Tool) => t.title ?? t.name ?? `(entry ${t.at + 1}: no name)`;

/** What the core found wrong with a tool or a result, as a list under it. */
export function Problems({ problems, what }: { problems: string[]; what: string }) {
  if (!problems.length) return null;
  return (
    <ul className="problems" aria-label={`Problems with ${what}`}>
      {problems.map((p, i) => (
        <li key={i}>⚠ {p}</li>
      ))}
    </ul>
  );
}

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
      (t) => current && setTools(t.map((view, at) => ({ ...view, at }))),
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
            <li key={t.at} className={chosen?.at === t.at ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen(t)}>
                {t.icons.slice(0, 1).map((src) => (
                  <img key={src} src={src} alt="" width={16} height={16} />
                ))}
                <strong>{title(t)}</strong>
                {t.name !== null && title(t) !== t.name && <code>{t.name}</code>}
                <span className="desc">{t.description}</span>
                <span className="badges">
                  {t.hints.map((hint) => (
                    <span key={hint} className="badge">
                      {hint}
                    </span>
                  ))}
                  {t.problems.length > 0 && (
                    <span className="badge bad" title={t.problems.join("\n")}>
                      {t.problems.length} problem{t.problems.length > 1 ? "s" : ""}
                    </span>
                  )}
                </span>
              </button>
              <Problems problems={t.problems} what={title(t)} />
            </li>
          ))}
        </ul>
      </div>
      {chosen ? (
        <ErrorBoundary key={chosen.at} name={`form of ${title(chosen)}`}>
          <ToolCall conn={conn} tool={chosen} />
        </ErrorBoundary>
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
  // Without a schema a form can start from, the arguments are typed as JSON.
  const [raw, setRaw] = useState<string | null>(tool.inputSchema == null ? "{}" : null);
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
      setOutcome(await backend.toolCall(conn.id, tool.raw, a.args, (p) => setProgress(p as never)));
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
      <Problems problems={tool.problems} what={title(tool)} />
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
          <button type="submit" className="primary" disabled={running || tool.name === null}>
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
      {outcome && (
        <ErrorBoundary name="result view">
          <ResultView outcome={outcome} />
        </ErrorBoundary>
      )}
    </div>
  );
}
