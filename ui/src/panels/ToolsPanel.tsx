// A line's tools as the core read them: the list (each with what is wrong with it), a form from
// the inputSchema (or raw JSON) that keeps its values per tool while the line lives, Call with
// progress and Cancel, the result, the tool's call history on the line, Send again when a call's
// server died and a new one is ready, the links a server requires (-32042) with Send the call
// again, and a call put here from the wire log or the history (to edit, or sent at once).
import { useEffect, useMemo, useRef, useState } from "react";
import {
  backend,
  errorText,
  isBackendError,
  type CallOutcome,
  type JsonValue,
  type ConnectionState,
  type LinksRequired,
  type ServerDescription,
  type TaskStatus,
} from "../ipc";
import { initialValue, problemsOf, sameDraft, toJson, type Draft, type Problem } from "../forms/schema";
import { isObject } from "../forms/draft";
import { refit } from "../forms/refit";
import type { Kept } from "../forms/kept";
import { SchemaForm } from "../forms/SchemaForm";
import { CallHistory } from "./CallHistory";
import { Compared } from "./Compared";
import { useCallRequest, type CallRequest } from "../layout/navigate";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Problems } from "../components/Problems";
import { RequiredLinks } from "../components/RequiredLinks";
import { ResultView } from "./ResultView";
import { SaveTestDialog } from "../builds/SaveTestDialog";
import { LoadDialog } from "./load/LoadDialog";
import { AppPane } from "../apps/AppPane";
import { useListChanges } from "./useListChanges";
import { NotReady, Stopped } from "./line";
import { statusText, useTasks } from "../tasks/tasks";
import { title, ToolList, type Tool } from "./ToolList";

/** An app drawn for a call (or for "Open app"), and why it is being closed, once it is. */
interface AppCall {
  conn: number;
  input: JsonValue;
  called: boolean;
  n: number;
  closing: string | null;
}

/** What a tool's form holds, kept while the line lives: its draft, or the raw JSON as typed. */
interface Typed {
  value: Draft;
  raw: string | null;
}

/** A tool the listing does not have (yet): a call put here from the log names it alone. */
const unlisted = (name: string): Tool => ({
  name,
  title: null,
  description: null,
  inputSchema: null,
  icons: [],
  hints: [],
  problems: [],
  app: null,
  raw: { name },
  at: -1,
});

/** The connection a line is at, and whether requests may go to it. */
interface Target {
  conn: number;
  ready: boolean;
  /** The line the connection is on: a result's resource links open in its Resources panel. */
  line: number;
  /** The server's name (its serverInfo's), as a kept load run names it. */
  server: string;
}

export function ToolsPanel({ line }: { line: ConnectionState }) {
  const { conn, state } = line.event;
  const ready = state.state === "ready";
  // The server as its last ready connection described it: kept while the line is down, so the
  // tools stay readable; the banner says the connection is not ready.
  const [server, setServer] = useState<ServerDescription | null>(ready ? state.server : null);
  if (ready && state.server !== server) setServer(state.server);
  const [tools, setTools] = useState<Tool[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stopped, setStopped] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Tool | null>(null);
  // Each Refresh bumps `listed`, which lists again; a listing that comes back after a newer one
  // started is dropped. A new ready connection on the line lists again too.
  const [listed, setListed] = useState(0);
  // A tools list change the server announces lists again.
  useListChanges(conn, ready, "tools", () => setListed((n) => n + 1));
  useEffect(() => {
    if (!ready) return;
    let current = true;
    backend.toolsList(conn).then(
      (t) => {
        if (!current) return;
        const listed = t.tools.map((view, at) => ({ ...view, at }));
        setTools(listed);
        setStopped(t.stopped);
        // The tool chosen stays chosen in the new listing (a restart's build may have moved or
        // changed it); one no longer listed stays, and its form says so.
        setChosen((c) => (c && c.name !== null && listed.find((n) => n.name === c.name)) || c);
      },
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [conn, ready, listed]);
  // The tools apps alone call are listed apart, below the ordinary ones.
  const ordinary = useMemo(() => tools?.filter((t) => !t.app?.appOnly) ?? [], [tools]);
  const appOnly = useMemo(() => tools?.filter((t) => t.app?.appOnly) ?? [], [tools]);
  const load = () => {
    setError(null);
    setListed((n) => n + 1);
  };
  // Each tool's form as it was left, by name, while the line lives.
  const [typed] = useState(() => new Map<string, Typed>());
  // A call put here from the log or the history: its tool chosen, handed to its form.
  const { call: asked, taken } = useCallRequest(line.event.line);
  const [fill, setFill] = useState<CallRequest | null>(null);
  const [handled, setHandled] = useState(0);
  if (asked && asked.n > handled) {
    setHandled(asked.n);
    setFill(asked);
    if (chosen?.name !== asked.tool) setChosen(tools?.find((t) => t.name === asked.tool) ?? unlisted(asked.tool));
  }
  useEffect(() => {
    if (asked) taken(asked.n);
  }, [asked, taken]);
  return (
    <div className="tools">
      <div className="tool-list long">
        <header>
          <h2>Tools</h2>
          <span className="muted">{server?.serverInfo && (server.serverInfo as { name?: string }).name}</span>
          <button onClick={load} disabled={!ready}>
            Refresh
          </button>
        </header>
        <NotReady line={line} what="Calls" />
        {error && <p className="error">{error}</p>}
        {stopped && <Stopped why={stopped} />}
        {tools === null && !error && ready && <p className="muted">Listing tools…</p>}
        {tools && (
          <ToolList tools={ordinary} chosen={chosen} onChoose={setChosen}>
            {(shown) => <AppOnlyTools tools={appOnly.filter(shown)} chosen={chosen} onChoose={setChosen} />}
          </ToolList>
        )}
      </div>
      {chosen?.app?.appOnly ? (
        <div className="tool-call">
          <header>
            <h2>{title(chosen)}</h2>
          </header>
          <p className="muted">{chosen.description}</p>
          <p className="banner" role="status">
            Only the server&apos;s apps call this tool (its visibility is <code>app</code>): Sonde does not offer it as
            an ordinary tool. An app of this server calls it through the window, and each call is in the log.
          </p>
          <pre className="mono">{JSON.stringify(chosen.raw, null, 2)}</pre>
        </div>
      ) : chosen ? (
        <ErrorBoundary key={chosen.name ?? `at ${chosen.at}`} name={`form of ${title(chosen)}`}>
          <ToolCall
            target={{
              conn,
              ready,
              line: line.event.line,
              server: (server?.serverInfo as { name?: string } | undefined)?.name ?? "server",
            }}
            tool={chosen}
            listed={tools === null || tools.includes(chosen)}
            typed={typed}
            fill={fill?.tool === chosen.name ? fill : null}
            onFilled={(n) => setFill((f) => (f?.n === n ? null : f))}
          />
        </ErrorBoundary>
      ) : (
        <div className="empty">Choose a tool to call it.</div>
      )}
    </div>
  );
}

function ToolCall({
  target,
  tool,
  listed,
  typed: kept,
  fill,
  onFilled,
}: {
  target: Target;
  tool: Tool;
  listed: boolean;
  /** Each tool's form as it was left: this one's is taken up again, and kept as it changes. */
  typed: Map<string, Typed>;
  /** A call put here from the log or the history, to take into the form (and send). */
  fill: CallRequest | null;
  onFilled(n: number): void;
}) {
  const schema = tool.inputSchema ?? {};
  const left = tool.name !== null ? kept.get(tool.name) : undefined;
  // The form starts as it was left, else from the schema's defaults, shown by their fields and
  // sent unless changed.
  const [value, setValue] = useState<Draft>(() => left?.value ?? initialValue(schema, schema, true) ?? {});
  // A new build's schema (the server restarted): the values it still takes stay in the form,
  // the others are set aside and said, never sent unseen.
  const schemaText = JSON.stringify(tool.inputSchema ?? null);
  const [schemaSeen, setSchemaSeen] = useState(schemaText);
  const [aside, setAside] = useState<Kept[]>([]);
  if (schemaText !== schemaSeen) {
    setSchemaSeen(schemaText);
    const fitted = refit(schema, value);
    if (fitted.aside.length) {
      setValue(fitted.kept);
      setAside((before) => [...before.filter((k) => !fitted.aside.some((a) => a.path === k.path)), ...fitted.aside]);
    }
  }
  const putBack = () => {
    setValue((v: Draft) => ({ ...(isObject(v) ? v : {}), ...Object.fromEntries(aside.map((k) => [k.path, k.value])) }));
    setAside([]);
  };
  const [problems, setProblems] = useState<Problem[] | null>(null);
  // Without a schema a form can start from, the arguments are typed as JSON.
  const [raw, setRaw] = useState<string | null>(left ? left.raw : tool.inputSchema == null ? "{}" : null);
  useEffect(() => {
    if (tool.name !== null) kept.set(tool.name, { value, raw });
  }, [kept, tool.name, value, raw]);
  // Why the raw JSON could not go back to the form, shown by the editor until it is edited.
  const [rawProblem, setRawProblem] = useState<string | null>(null);
  // The raw JSON last taken into the form, and the draft it gave: back in Raw JSON with that
  // draft unchanged, the text returns exactly as typed (its spacing, key order and digits).
  const [typed, setTyped] = useState<{ text: string; value: Draft } | null>(null);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<{ progress: number; total?: number; message?: string } | null>(null);
  const [outcome, setOutcome] = useState<CallOutcome | null>(null);
  // The last call sent (its connection and arguments), which Call again repeats on the line's
  // new connection; and the outcome it is set beside, from the connection before.
  const [sent, setSent] = useState<{ conn: number; args: JsonValue | null } | null>(null);
  const [before, setBefore] = useState<{ conn: number; outcome: CallOutcome } | null>(null);
  // The connection the shown outcome came from (a task is followed on it).
  const [outcomeConn, setOutcomeConn] = useState<number | null>(null);
  // The arguments the shown outcome's call was sent with (Save as test keeps them).
  const [outcomeArgs, setOutcomeArgs] = useState<JsonValue | null>(null);
  const [savingTest, setSavingTest] = useState(false);
  // Load test…: the form's arguments as they were when it was opened.
  const [loading, setLoading] = useState<{ args: JsonValue | null } | null>(null);
  const loadTest = () => {
    const a = args();
    if ("error" in a) return setNotSent(a.error);
    setNotSent(null);
    setLoading({ args: a.args });
  };
  // The apps of the calls of an app-bearing tool (or of "Open app", which calls nothing): the
  // last call's is drawn as the call starts, with the arguments it was sent with; an earlier
  // one stays, hidden, until it has been torn down. `n` tells calls apart.
  const [appCalls, setAppCalls] = useState<AppCall[]>([]);
  const startApp = (conn: number, input: JsonValue, called: boolean) =>
    setAppCalls((calls) => [
      ...calls.map((c) => (c.closing ? c : { ...c, closing: "the result was replaced" })),
      { conn, input, called, n: (calls.at(-1)?.n ?? 0) + 1, closing: null },
    ]);
  const replaceApp = () =>
    setAppCalls((calls) => calls.map((c) => (c.closing ? c : { ...c, closing: "the result was replaced" })));
  const [savedTest, setSavedTest] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Counts the calls of this form that ended: the history is read again after each.
  const [ended, setEnded] = useState(0);
  // A result (or an error) lands below the form, out of view when the form is long: it is
  // brought into view as it arrives.
  const lastCall = useRef<HTMLElement>(null);
  useEffect(() => {
    if (outcome || error) lastCall.current?.scrollIntoView?.({ block: "nearest" });
  }, [outcome, error]);
  // Why the latest attempt was not sent (the form's problems, JSON that does not parse): what is
  // shown below it is then the previous call's, and says so.
  const [notSent, setNotSent] = useState<string | null>(null);
  // The arguments and connection of a call that failed because its server died: it may be sent
  // again, as a new request, once the line has a new ready connection.
  const [died, setDied] = useState<{ conn: number; args: JsonValue | null } | null>(null);
  // The risk the core sees in sending it again, shown for confirmation.
  const [risk, setRisk] = useState<string | null>(null);
  // The links the server requires before it answers (-32042), with the call to send again.
  const [required, setRequired] = useState<{ conn: number; args: JsonValue | null; required: LinksRequired } | null>(
    null,
  );

  // The form's arguments once no field has a problem (each is shown by its field, and nothing
  // is sent); the raw JSON as typed, unchecked, because it is there to send what the form would
  // not. The form's arguments include what it holds without a field, as its note says.
  const args = (): { args: JsonValue | null } | { error: string } => {
    if (raw === null) {
      const found = problemsOf(schema, value);
      setProblems(found);
      if (found.length) return { error: `${found.map((p) => p.message).join("; ")}.` };
      return { args: (toJson(value) ?? {}) as JsonValue };
    }
    try {
      return { args: JSON.parse(raw) };
    } catch (e) {
      return { error: `the JSON does not parse: ${errorText(e)}` };
    }
  };
  const toggleRaw = () => {
    if (raw === null) {
      setRaw(typed && sameDraft(typed.value, value) ? typed.text : JSON.stringify(toJson(value) ?? {}, null, 2));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      return setRawProblem(
        `The JSON does not parse (${errorText(e)}): fix it to go back to the form. Nothing typed is thrown away.`,
      );
    }
    setValue(parsed);
    setTyped({ text: raw, value: parsed });
    // Problems found before are found again, for the value the raw JSON gave.
    setProblems(problems && problemsOf(schema, parsed));
    setRawProblem(null);
    setRaw(null);
  };
  const edit = (v: Draft) => {
    setValue(v);
    // Once a Call has shown problems, they follow the edits, so a fixed field stops saying so.
    if (problems) setProblems(problemsOf(schema, v));
  };
  const send = async (conn: number, callArgs: JsonValue | null) => {
    if (tool.app?.resourceUri) startApp(conn, callArgs ?? {}, true);
    else replaceApp();
    setNotSent(null);
    setError(null);
    setOutcome(null);
    setProgress(null);
    setDied(null);
    setRisk(null);
    setRequired(null);
    setRunning(true);
    setSent({ conn, args: callArgs });
    try {
      setOutcome(await backend.toolCall(conn, tool.raw as JsonValue, callArgs, (p) => setProgress(p as never)));
      setOutcomeConn(conn);
      setOutcomeArgs(callArgs);
      setSavedTest(null);
    } catch (e) {
      setError(errorText(e));
      if (isBackendError(e) && e.code === "server_gone") setDied({ conn, args: callArgs });
      if (isBackendError(e) && e.urlElicitations) setRequired({ conn, args: callArgs, required: e.urlElicitations });
    } finally {
      setRunning(false);
      setEnded((n) => n + 1);
    }
  };
  const call = async () => {
    const a = args();
    if ("error" in a) return setNotSent(a.error);
    setBefore(null);
    await send(target.conn, a.args);
  };
  // Call again: the last call, as it was sent, to the line's new connection (less the arguments
  // set aside, which are said not to be sent); its result is set beside the one before when
  // they differ.
  const canCallAgain = sent !== null && target.ready && target.conn !== sent.conn && !running;
  const callAgain = async () => {
    if (!sent || !canCallAgain) return;
    setBefore(outcome && outcomeConn !== null ? { conn: outcomeConn, outcome } : null);
    const args = isObject(sent.args)
      ? Object.fromEntries(Object.entries(sent.args).filter(([name]) => !aside.some((k) => k.path === name)))
      : sent.args;
    await send(target.conn, args as JsonValue);
  };
  const again = useRef(callAgain);
  useEffect(() => {
    again.current = callAgain;
  });
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const keys = (e: KeyboardEvent) => {
      // Only the form in view answers: the panels of other lines and tabs stay mounted, hidden.
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key === "Enter" && root.current?.offsetParent) {
        e.preventDefault();
        void again.current();
      }
    };
    window.addEventListener("keydown", keys);
    return () => window.removeEventListener("keydown", keys);
  }, []);
  // Send again goes to the line's new connection; the core says whether that needs a yes.
  const canResend = died !== null && target.ready && target.conn !== died.conn;
  const sendAgain = async (confirmed: boolean) => {
    if (!died) return;
    if (!confirmed) {
      const why = await backend.toolResendRisk(tool.raw);
      if (why) return setRisk(why);
    }
    await send(target.conn, died.args);
  };
  // A call's arguments put in the form (from the history or the log): the form shows them as
  // sent, and Send again sends them as they are at once.
  const put = (args: JsonValue | null, andSend: boolean) => {
    if (tool.inputSchema == null || !isObject(args)) setRaw(JSON.stringify(args ?? {}, null, 2));
    else {
      setValue(args);
      setRaw(null);
      setProblems(problems && problemsOf(schema, args));
    }
    setRawProblem(null);
    setAside([]);
    if (!andSend) return root.current?.querySelector<HTMLElement>("form input, form textarea, form select")?.focus();
    if (!target.ready) return setNotSent(`connection ${target.conn} is not ready`);
    setBefore(null);
    void send(target.conn, args);
  };
  const putNow = useRef(put);
  useEffect(() => {
    putNow.current = put;
  });
  // Each call put here is taken once, whatever renders follow.
  const filled = useRef(0);
  useEffect(() => {
    if (!fill || fill.n <= filled.current) return;
    filled.current = fill.n;
    onFilled(fill.n);
    putNow.current(fill.args, fill.send);
  }, [fill, onFilled]);
  return (
    <div className="tool-call" ref={root}>
      <header>
        <h2>{title(tool)}</h2>
        {tool.app?.resourceUri && (
          <button
            disabled={!target.ready}
            onClick={() => {
              const a = args();
              if ("error" in a) return setNotSent(a.error);
              setOutcome(null);
              setError(null);
              startApp(target.conn, a.args ?? {}, false);
            }}
          >
            Open app
          </button>
        )}
        <button onClick={toggleRaw}>{raw === null ? "Raw JSON" : "Form"}</button>
      </header>
      <p className="muted">{tool.description}</p>
      <Problems problems={tool.problems} what={title(tool)} />
      {!listed && (
        <p className="banner" role="status">
          Connection {target.conn} does not list {title(tool)}: a call is sent as typed, and the server answers it.
        </p>
      )}
      {aside.length > 0 && (
        <p className="banner" role="status" aria-label="Set aside">
          The new schema does not take{" "}
          {aside.map((k, n) => (
            <span key={k.path}>
              {n > 0 && ", "}
              <code>
                {k.path} = {JSON.stringify(k.value)}
              </code>
            </span>
          ))}
          : set aside, not sent. <button onClick={putBack}>Put back</button>{" "}
          <button onClick={() => setAside([])}>Forget</button>
        </p>
      )}
      <form onSubmit={(e) => (e.preventDefault(), call())}>
        {raw !== null ? (
          <>
            <textarea
              className="mono"
              aria-label="Arguments as JSON"
              aria-invalid={rawProblem ? true : undefined}
              aria-describedby={rawProblem ? "raw-json-problem" : undefined}
              rows={8}
              value={raw}
              onChange={(e) => {
                setRaw(e.target.value);
                setRawProblem(null);
              }}
            />
            {rawProblem && (
              <p id="raw-json-problem" className="error" role="alert">
                {rawProblem}
              </p>
            )}
          </>
        ) : (
          <SchemaForm schema={schema} value={value} onChange={edit} problems={problems} />
        )}
        <div className="call-row">
          <button type="submit" className="primary" disabled={running || !target.ready || tool.name === null}>
            {running ? "Calling…" : "Call"}
          </button>
          <button
            type="button"
            disabled={running || !target.ready || tool.name === null || loading !== null}
            onClick={loadTest}
          >
            Load test…
          </button>
          {canCallAgain && (
            <button type="button" title="Ctrl+Shift+Enter" onClick={callAgain}>
              Call again on connection {target.conn}
            </button>
          )}
          {running && (
            <button type="button" onClick={() => backend.requestCancel(target.conn)}>
              Cancel
            </button>
          )}
          {running && progress && (
            <span className="progress" aria-label="Progress">
              <progress value={progress.progress} max={progress.total ?? undefined} />
              {stepOf(progress)}
            </span>
          )}
        </div>
      </form>
      {notSent && (
        <p className="error" role="alert">
          Not sent: {notSent}
        </p>
      )}
      {loading && tool.name !== null && (
        <LoadDialog
          conn={target.conn}
          tool={tool.name}
          args={loading.args}
          server={target.server}
          onClose={() => setLoading(null)}
        />
      )}
      {appCalls.map((app) => (
        <div key={app.n} hidden={app.closing !== null}>
          <ErrorBoundary name="app">
            <AppPane
              conn={app.conn}
              ready={target.ready && target.conn === app.conn}
              tool={tool.raw as JsonValue}
              input={app.input}
              result={app.called && !app.closing && outcome && !outcome.task ? outcome.result : null}
              failed={app.called && !app.closing && error && !running ? error : null}
              closing={app.closing}
              onGone={() => setAppCalls((calls) => calls.filter((c) => c.n !== app.n || !c.closing))}
            />
          </ErrorBoundary>
        </div>
      ))}
      {(progress || error || died || required || outcome) && (
        <section
          ref={lastCall}
          className={`last-call${notSent ? " previous" : ""}`}
          aria-label={notSent ? "Previous call" : "Last call"}
        >
          {notSent && <h3>The previous call (the attempt above was not sent)</h3>}
          {progress && !running && (
            <p className="muted" aria-label="Progress when the call ended">
              The call ended; its last progress: {stepOf(progress)}
            </p>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          {died && !canResend && !running && (
            <p className="muted">Restart the server (or let supervision restart it) to send this call again.</p>
          )}
          {canResend && risk === null && !running && (
            <button className="primary" onClick={() => sendAgain(false)}>
              Send again to connection {target.conn}
            </button>
          )}
          {canResend && risk !== null && (
            <div className="confirm" role="alertdialog" aria-label="Send again?">
              <p>{risk}</p>
              <button className="primary" autoFocus onClick={() => sendAgain(true)}>
                Send again
              </button>
              <button onClick={() => setRisk(null)}>Cancel</button>
            </div>
          )}
          {required && (
            <RequiredLinks
              conn={required.conn}
              required={required.required}
              canSend={!running && target.ready && target.conn === required.conn}
              onSendAgain={() => send(required.conn, required.args)}
            />
          )}
          {outcome?.task && (
            <TaskBanner conn={outcomeConn ?? target.conn} taskId={outcome.task.taskId} created={outcome.task.status} />
          )}
          {outcome && !outcome.task && before && outcomeConn !== null && !running && (
            <Compared
              before={{ label: `Before: connection ${before.conn}`, outcome: before.outcome }}
              now={{ label: `Now: connection ${outcomeConn}`, outcome }}
              line={target.line}
            />
          )}
          {outcome && !outcome.task && !(before && !running) && (
            <ErrorBoundary name="result view">
              <ResultView outcome={outcome} line={target.line} />
            </ErrorBoundary>
          )}
          {outcome && !outcome.task && !running && (
            <div className="call-row">
              <button onClick={() => setSavingTest(true)}>Save as test…</button>
              {savedTest && (
                <span role="status" aria-label="Test saved">
                  {savedTest}
                </span>
              )}
            </div>
          )}
          {savingTest && outcome && tool.name && (
            <SaveTestDialog
              tool={tool.name}
              args={outcomeArgs}
              outcome={outcome}
              onCancel={() => setSavingTest(false)}
              onSaved={(words) => {
                setSavingTest(false);
                setSavedTest(words);
              }}
            />
          )}
        </section>
      )}
      {tool.name !== null && (
        <CallHistory
          conn={target.conn}
          tool={tool.name}
          refresh={ended}
          line={target.line}
          canSend={target.ready && !running}
          onEdit={(args) => put(args, false)}
          onSend={(args) => put(args, true)}
        />
      )}
    </div>
  );
}

/** The tools only the server's apps call (`visibility: ["app"]`): listed apart, never offered
 * as ordinary tools. */
function AppOnlyTools({
  tools,
  chosen,
  onChoose,
}: {
  tools: Tool[];
  chosen: Tool | null;
  onChoose: (t: Tool) => void;
}) {
  if (!tools.length) return null;
  return (
    <section aria-label="Tools only apps call">
      <h3 className="muted">Only for apps</h3>
      <ul>
        {tools.map((t) => (
          <li key={t.at} className={chosen?.at === t.at ? "selected" : ""}>
            <button className="tool" onClick={() => onChoose(t)}>
              <strong>{title(t)}</strong>
              {t.name !== null && title(t) !== t.name && <code>{t.name}</code>}
              <span className="desc">{t.description}</span>
              <span className="badges">
                <span className="badge">app only</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A progress notification in words: its message, or how far of how much. */
const stepOf = (p: { progress: number; total?: number; message?: string }) =>
  p.message ?? `${p.progress}${p.total ? ` / ${p.total}` : ""}`;

/** A call that became a task, with the task's status as the core follows it now (the Tasks
 * panel's), not the status it had when it was created. */
function TaskBanner({ conn, taskId, created }: { conn: number; taskId: string; created: TaskStatus }) {
  const { tasks } = useTasks(conn);
  const status = tasks.find((t) => t.task.taskId === taskId)?.task.status ?? created;
  return (
    <p className="banner" role="status" data-task-status={status}>
      The server runs this call as task <code>{taskId}</code> ({statusText(status)}). Sonde follows it to its result in
      the Tasks panel (View menu).
    </p>
  );
}
