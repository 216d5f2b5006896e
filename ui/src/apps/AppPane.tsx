// An MCP App in the window: the tool's `ui://` page drawn in a frame on an origin of its own
// (the shell's `sonde-app` scheme), sandboxed without `allow-same-origin`, popups or top
// navigation, under the policy the core built from what the resource declares. The pane passes
// each message between the frame and the core, which answers it and records it (`kind:app`);
// it shows what the app declared, what the core found wrong, the app's console and bridge
// errors, and switches for theme and display mode so an author sees how the app answers each.
import { useEffect, useRef, useState } from "react";
import { backend, errorText, type JsonValue } from "../ipc";
import type * as B from "../ipc/bindings";
import { Inbox } from "./inbox";

type Opened = B.AppOpened_Serialize;
type Turn = B.AppTurn_Serialize;
type Ask = B.AskOf_Serialize;
type Mode = "inline" | "fullscreen" | "pip";
const MODES: Mode[] = ["inline", "fullscreen", "pip"];
const MODE_NAMES: Record<Mode, string> = { inline: "Inline", fullscreen: "Fullscreen", pip: "Picture in picture" };

/** The tallest an inline app is drawn; taller content scrolls inside its frame. */
const INLINE_MAX = 640;

/** Where an app's page is served: the shell's scheme, as WebKitGTK names a custom scheme. */
export const appUrl = (app: number) => `sonde-app://localhost/${app}`;

/** The window's theme as an app reads it: light or dark, "system" resolved. */
function windowTheme(): "light" | "dark" {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === "light" || chosen === "dark") return chosen;
  return globalThis.matchMedia?.("(prefers-color-scheme: light)").matches ? "light" : "dark";
}

/** A line the pane shows under the app: what it logged or said, or an error or refusal. */
interface Line {
  kind: string;
  text: string;
}

interface Props {
  conn: number;
  ready: boolean;
  tool: JsonValue;
  input: JsonValue;
  /** The call's result once it has one; the app is drawn as the call starts. */
  result: JsonValue | null;
  /** Why the call gave no result (an error, a cancel), once it ended so. */
  failed: string | null;
}

/** The app of one call (or of "Open app"), drawn as the call starts and told how it ended.
 * Reload opens it afresh: the old one is torn down and the resource read again. */
export function AppPane(props: Props) {
  const [loads, setLoads] = useState(0);
  return <AppSession key={loads} {...props} reload={loads > 0} onReload={() => setLoads((n) => n + 1)} />;
}

function AppSession({
  conn,
  ready,
  tool,
  input,
  result,
  failed,
  reload,
  onReload,
}: Props & { reload: boolean; onReload: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const pane = useRef<HTMLElement>(null);
  // Whether the app's teardown was sent (its connection ended, or it asked to be closed).
  const tornDown = useRef(false);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [theme, setTheme] = useState<"light" | "dark">(windowTheme);
  const [mode, setMode] = useState<Mode>("inline");
  const [height, setHeight] = useState(240);
  const [link, setLink] = useState<{ app: number; ask: Ask; url: string } | null>(null);
  const [asked, setAsked] = useState<string | null>(null);
  // The app is closed when it asked to be, or when its connection ended.
  const closed = asked ?? (opened && !ready ? "the app's connection ended" : null);
  const say = (line: Line) => setLines((l) => [...l.slice(-199), line]);

  const post = (turn: Turn) => {
    for (const text of turn.post) frame.current?.contentWindow?.postMessage(JSON.parse(text), "*");
    if (turn.note) say(turn.note);
  };

  const decide = (app: number, ask: Ask) => {
    const what = ask.ask;
    switch (what.kind) {
      case "openLink":
        setLink({ app, ask, url: what.url });
        break;
      case "displayMode": {
        const granted = (MODES as string[]).includes(what.mode) ? (what.mode as Mode) : mode;
        void backend.appAnswer(app, ask.id, granted).then(post);
        changeMode(app, granted);
        break;
      }
      case "size":
        if (what.height) setHeight(Math.max(60, Math.min(INLINE_MAX, Math.ceil(what.height))));
        break;
      case "teardown":
        tornDown.current = true;
        void backend.appClose(app, "the app asked to be closed").then(post);
        setAsked("the app asked to be closed");
        break;
    }
  };

  const changeMode = (app: number, next: Mode) => {
    setMode(next);
    void backend.appContext(app, { displayMode: next }).then(post);
  };
  const changeTheme = (app: number, next: "light" | "dark") => {
    setTheme(next);
    void backend.appContext(app, { theme: next }).then(post);
  };
  // Escape brings a fullscreen or picture-in-picture app back inline (while the window has the
  // keyboard; inside the frame, the app has it).
  useEffect(() => {
    if (!opened || mode === "inline") return;
    const app = opened.app;
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") changeMode(app, "inline");
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened, mode]);

  // Open the app, and close it (with its teardown) when the result is replaced or the pane goes.
  useEffect(() => {
    let current = true;
    let app: number | null = null;
    const width = pane.current?.clientWidth ?? 600;
    const context = {
      theme: windowTheme(),
      displayMode: "inline",
      availableDisplayModes: MODES,
      containerDimensions: { width, maxHeight: INLINE_MAX },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "desktop",
      toolInfo: { tool },
    };
    backend.appOpen(conn, tool, input, null, context as JsonValue, reload).then(
      (o) => {
        if (!current) return void backend.appClose(o.app, "the result was replaced");
        app = o.app;
        setOpened(o);
      },
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
      if (app !== null) void backend.appClose(app, "the result was replaced").then(post, () => undefined);
    };
    // The app is opened once per call (and per Reload); its context changes are sent to it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conn, tool, input, reload]);

  // How the call ended, told to the app once (the core holds it until the app is ready).
  useEffect(() => {
    if (!opened || (result === null && failed === null)) return;
    backend.appEnded(opened.app, result, failed).then(post, () => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened, result, failed]);

  // The connection ending tears the app down: what it would call is gone.
  useEffect(() => {
    if (ready || !opened || tornDown.current) return;
    tornDown.current = true;
    backend.appClose(opened.app, "the app's connection ended").then(post, () => undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, opened]);

  // The frame's messages: only from this frame, one at a time to the core, a flood bounded.
  useEffect(() => {
    if (!opened) return;
    const app = opened.app;
    const inbox = new Inbox<unknown>(
      async (data) => {
        const turn = await backend.appMessage(app, JSON.stringify(data));
        post(turn);
        if (turn.ask) decide(app, turn.ask);
      },
      (count) => {
        const text = `${count} message(s) from the app dropped: it sent faster than the window takes them`;
        say({ kind: "refused", text });
        void backend.appReport(app, `refused: ${text}`);
      },
    );
    const heard = (e: MessageEvent) => {
      if (!frame.current || e.source !== frame.current.contentWindow) return;
      const data = e.data as { sonde?: string; text?: string } | null;
      // Sonde's own reporter in the page: console errors, uncaught errors, policy refusals.
      if (data && typeof data === "object" && typeof data.sonde === "string") {
        const line = { kind: data.sonde, text: String(data.text ?? "") };
        say(line);
        void backend.appReport(app, `${line.kind}: ${line.text}`);
        return;
      }
      inbox.push(e.data);
    };
    window.addEventListener("message", heard);
    return () => window.removeEventListener("message", heard);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  const answerLink = async (open: boolean) => {
    if (!link) return;
    setLink(null);
    let opened = open;
    if (open) {
      try {
        await backend.linkOpen(conn, link.url);
      } catch (e) {
        opened = false;
        say({ kind: "error", text: `the link was not opened: ${errorText(e)}` });
      }
    }
    post(await backend.appAnswer(link.app, link.ask.id, opened));
  };

  const resource = opened?.resource;
  const declared = resource && [
    ...Object.entries(resource.csp)
      .filter(([, v]) => v.length)
      .map(([k, v]) => `${k}: ${v.join(" ")}`),
    ...(resource.permissions.length ? [`permissions: ${resource.permissions.join(", ")}`] : []),
  ];
  return (
    <section ref={pane} className={`app-pane ${mode}`} aria-label="App">
      <header>
        <h3>App</h3>
        {resource && <code>{resource.uri}</code>}
        {opened && !closed && (
          <span className="app-controls">
            <label>
              Theme{" "}
              <select
                aria-label="App theme"
                value={theme}
                onChange={(e) => changeTheme(opened.app, e.target.value as "light" | "dark")}
              >
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </label>
            <label>
              Display{" "}
              <select
                aria-label="Display mode"
                value={mode}
                onChange={(e) => changeMode(opened.app, e.target.value as Mode)}
              >
                {MODES.map((m) => (
                  <option key={m} value={m}>
                    {MODE_NAMES[m]}
                  </option>
                ))}
              </select>
            </label>
          </span>
        )}
        <button onClick={onReload} disabled={!ready}>
          Reload
        </button>
      </header>
      {error && (
        <p className="error" role="alert">
          The app could not be opened: {error}
        </p>
      )}
      {closed && <p className="muted">The app was closed: {closed}.</p>}
      {resource && resource.findings.length > 0 && (
        <ul className="problems" aria-label="Problems with the app">
          {resource.findings.map((f, i) => (
            <li key={i} data-rule={f.rule}>
              ⚠ {f.severity}: {f.detail}
            </li>
          ))}
        </ul>
      )}
      {opened && (
        <details className="app-declared">
          <summary>Declared: {declared?.length ? declared.join("; ") : "no network, no permissions"}</summary>
          <p>
            Served with <code>{opened.policy}</code>
          </p>
        </details>
      )}
      {opened && resource && !closed && (
        <div className={`app-frame ${mode}${resource.prefersBorder === false ? "" : " bordered"}`}>
          {mode !== "inline" && (
            <button className="app-back" onClick={() => changeMode(opened.app, "inline")}>
              Back inline
            </button>
          )}
          <iframe
            ref={frame}
            title={`App ${resource.uri}`}
            src={appUrl(opened.app)}
            sandbox="allow-scripts allow-forms"
            allow={opened.allow}
            referrerPolicy="no-referrer"
            // The frame's colour scheme is the theme the app is told: a page that declares none
            // then gets an opaque canvas of its own, not the window's colours behind it.
            style={mode === "inline" ? { height, colorScheme: theme } : { colorScheme: theme }}
          />
        </div>
      )}
      {link && (
        <div className="confirm" role="alertdialog" aria-label="Open the link?">
          <p>
            The app asks to open <code>{link.url}</code> in your browser.
          </p>
          <button className="primary" onClick={() => answerLink(true)}>
            Open in browser
          </button>
          <button autoFocus onClick={() => answerLink(false)}>
            Cancel
          </button>
        </div>
      )}
      {lines.length > 0 && (
        <ul className="app-lines mono" aria-label="App messages">
          {lines.map((l, i) => (
            <li key={i} data-kind={l.kind}>
              <span className="badge">{l.kind}</span> {l.text}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
