// A line's prompts: the list, a form for a prompt's arguments with the server's completions as
// the person types (the arguments already filled go along as context), and the messages it
// renders to: text, image, audio, embedded resource, resource link, each under its role.
import { useEffect, useState } from "react";
import { backend, errorText, type ConnectionState, type JsonValue, type PromptView } from "../ipc";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { Problems } from "../components/Problems";
import { BlockView } from "./ResultView";
import { CompletingInput } from "./CompletingInput";
import { declares, isObject, NotReady, Stopped, str, useLine, type LineView } from "./line";
import { useListChanges } from "./useListChanges";

interface Argument {
  name: string;
  title: string | null;
  description: string | null;
  required: boolean;
}

/** A prompt's arguments as listed; an entry without a name cannot be filled and is left out. */
export const argumentsOf = (prompt: JsonValue): Argument[] => {
  const list = isObject(prompt) && Array.isArray(prompt.arguments) ? prompt.arguments : [];
  return list.flatMap((a) =>
    isObject(a) && typeof a.name === "string"
      ? [{ name: a.name, title: str(a, "title"), description: str(a, "description"), required: a.required === true }]
      : [],
  );
};

const titleOf = (p: JsonValue) => str(p, "title") ?? str(p, "name") ?? "(no name)";

export function PromptsPanel({ line }: { line: ConnectionState }) {
  const view = useLine(line);
  const { conn, ready, server } = view;
  const [prompts, setPrompts] = useState<JsonValue[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stopped, setStopped] = useState<string | null>(null);
  const [chosen, setChosen] = useState<JsonValue | null>(null);
  const [listed, setListed] = useState(0);
  const offered = declares(server, "prompts");
  useListChanges(conn, ready && offered, "prompts", () => setListed((n) => n + 1));
  useEffect(() => {
    if (!ready || !offered) return;
    let current = true;
    backend.listAll(conn, "prompts").then(
      (p) => current && (setPrompts(p.items), setStopped(p.stopped), setError(null)),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [conn, ready, offered, listed]);
  return (
    <div className="tools">
      <div className="tool-list">
        <header>
          <h2>Prompts</h2>
          <button onClick={() => setListed((n) => n + 1)} disabled={!ready}>
            Refresh
          </button>
        </header>
        <NotReady line={line} what="Prompts" />
        {server && !offered && <p className="muted">The server does not declare the prompts capability.</p>}
        {error && <p className="error">{error}</p>}
        {stopped && <Stopped why={stopped} />}
        {prompts === null && !error && ready && offered && <p className="muted">Listing prompts…</p>}
        <ul aria-label="Prompts">
          {prompts?.map((p, i) => (
            <li key={i} className={chosen === p ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen(p)}>
                <strong>{titleOf(p)}</strong>
                {str(p, "name") !== titleOf(p) && <code>{str(p, "name")}</code>}
                <span className="desc">{str(p, "description")}</span>
                <span className="badges">
                  <span className="badge">
                    {argumentsOf(p).length} argument{argumentsOf(p).length === 1 ? "" : "s"}
                  </span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {chosen === null ? (
        <div className="empty">Choose a prompt to fill in its arguments.</div>
      ) : (
        <ErrorBoundary key={JSON.stringify(chosen)} name="prompt form">
          <PromptForm view={view} prompt={chosen} line={line.event.line} />
        </ErrorBoundary>
      )}
    </div>
  );
}

/** `line`: the line whose Resources panel opens a message's resource links. */
function PromptForm({ view, prompt, line }: { view: LineView; prompt: JsonValue; line: number }) {
  const name = str(prompt, "name");
  const args = argumentsOf(prompt);
  const [values, setValues] = useState<Record<string, string>>({});
  const [rendered, setRendered] = useState<PromptView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [getting, setGetting] = useState(false);
  const filled = (except?: string) =>
    Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== except && v !== ""));
  const get = async () => {
    if (name === null) return;
    const missing = args.filter((a) => a.required && !values[a.name]);
    if (missing.length) return setError(`Fill in ${missing.map((a) => a.name).join(", ")} first.`);
    setGetting(true);
    setError(null);
    try {
      setRendered(await backend.promptGet(view.conn, name, filled()));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setGetting(false);
    }
  };
  return (
    <div className="tool-call">
      <header>
        <h2>{titleOf(prompt)}</h2>
      </header>
      <p className="muted">{str(prompt, "description")}</p>
      <form onSubmit={(e) => (e.preventDefault(), get())}>
        {args.map((a) => (
          <div key={a.name}>
            <CompletingInput
              conn={view.conn}
              reference={{ type: "ref/prompt", name: name ?? "" }}
              name={a.name}
              label={a.title ?? a.name}
              required={a.required}
              value={values[a.name] ?? ""}
              context={filled(a.name)}
              enabled={view.ready && name !== null && declares(view.server, "completions")}
              onChange={(v) => setValues((all) => ({ ...all, [a.name]: v }))}
            />
            {a.description && <small className="muted">{a.description}</small>}
          </div>
        ))}
        <div className="call-row">
          <button type="submit" className="primary" disabled={getting || !view.ready || name === null}>
            {getting ? "Getting…" : "Get prompt"}
          </button>
        </div>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {rendered && <Messages view={rendered} line={line} />}
    </div>
  );
}

function Messages({ view, line }: { view: PromptView; line: number }) {
  const result = isObject(view.result) ? view.result : {};
  const messages = Array.isArray(result.messages) ? result.messages : [];
  return (
    <div className="result" aria-label="Prompt messages">
      {view.problems.length > 0 && (
        <>
          <p className="error-title">The result is malformed:</p>
          <Problems problems={view.problems} what="the prompt" />
        </>
      )}
      {typeof result.description === "string" && <p className="muted">{result.description}</p>}
      {messages.map((m, i) => (
        <div className={`block message ${str(m, "role") ?? ""}`} key={i}>
          <h4>{str(m, "role") ?? "(no role)"}</h4>
          <BlockView
            raw={isObject(m) ? m.content : m}
            line={line}
            embedded={view.embedded.find((e) => e.index === i)}
          />
        </div>
      ))}
    </div>
  );
}
