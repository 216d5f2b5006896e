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
  /** Why the app is to be closed (its result was replaced), once it is: it is torn down. */
  closing?: string | null;
  /** The app is gone (torn down, or it never opened): its pane may go. */
  onGone?: () => void;
}

/** What Sonde's reporter in the page said (a console error, an uncaught error, a policy
 * refusal), or `null` for any other message. Another kind is not a report: it goes to the core
 * as the app's message, which says what is wrong with it. */
function reported(data: unknown): Line | null {
  const d = data as { sonde?: unknown; text?: unknown } | null;
  if (!d || typeof d !== "object" || !["console", "error", "refused"].includes(String(d.sonde))) return null;
  return { kind: String(d.sonde), text: String(d.text ?? "").slice(0, 2000) };
}

/** How long a torn-down app has to answer its teardown before its frame goes anyway. */
const TEARDOWN_MS = 2000;

/** The app of one call (or of "Open app"), drawn as the call starts and told how it ended.
 * Reload tears the app down, then opens it afresh with its resource read again. */
export function AppPane(props: Props) {
  const [loads, setLoads] = useState(0);
  const [reloading, setReloading] = useState(false);
  return (
    <AppSession
      key={loads}
      {...props}
      closing={props.closing ?? (reloading ? "the app is reloaded" : null)}
      onGone={() => {
        if (!reloading) return props.onGone?.();
        setReloading(false);
        setLoads((n) => n + 1);
      }}
      reload={loads > 0}
      onReload={() => setReloading(true)}
    />
  );
}

function AppSession({
  conn,
  ready,
  tool,
  input,
  result,
  failed,
  closing,
  onGone,
  reload,
  onReload,
}: Props & { reload: boolean; onReload: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const pane = useRef<HTMLElement>(null);
  // Whether the app's teardown was sent (its result replaced, its connection ended, or it asked).
  const tornDown = useRef(false);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [lines, setLines] = useState<Line[]>([]);
  const [theme, setTheme] = useState<"light" | "dark">(windowTheme);
  const toolName =
    (tool as { title?: unknown; name?: unknown } | null)?.title ?? (tool as { name?: unknown } | null)?.name;
  const [mode, setMode] = useState<Mode>("inline");
  // The mode now, for the frame's messages, which are heard by a listener made once.
  const modeNow = useRef<Mode>("inline");
  const [height, setHeight] = useState(240);
  const [link, setLink] = useState<{ app: number; ask: Ask; url: string } | null>(null);
  // Whether a link waits for the person, for the frame's listener.
  const linkWaiting = useRef(false);
  // Why the app is being closed (its teardown sent, its answer awaited), and whether it is gone.
  const [closedBecause, setClosedBecause] = useState<string | null>(null);
  const [gone, setGone] = useState(false);
  const waitingForTeardown = useRef<ReturnType<typeof setTimeout> | null>(null);
  const say = (line: Line) => setLines((l) => [...l.slice(-199), line]);

  const post = (turn: Turn) => {
    for (const text of turn.post) frame.current?.contentWindow?.postMessage(JSON.parse(text), "*");
    if (turn.note) say(turn.note);
    if (turn.gone) finish();
  };

  // The frame goes once the app answered its teardown (or had its time to).
  const finish = () => {
    if (waitingForTeardown.current) clearTimeout(waitingForTeardown.current);
    waitingForTeardown.current = null;
    setGone(true);
    onGone?.();
  };

  // Tears the app down: its teardown posted while its frame is still there, the frame kept
  // until the app answers or TEARDOWN_MS pass.
  const close = (app: number, reason: string) => {
    if (tornDown.current) return;
    tornDown.current = true;
    setClosedBecause(reason);
    backend.appClose(app, reason).then(
      (turn) => {
        post(turn);
        if (turn.gone) return;
        waitingForTeardown.current = setTimeout(() => {
          void backend.appForget(app, `it did not answer its teardown within ${TEARDOWN_MS / 1000} s`);
          finish();
        }, TEARDOWN_MS);
      },
      () => finish(),
    );
  };

  const decide = (app: number, ask: Ask) => {
    const what = ask.ask;
    switch (what.kind) {
      case "openLink":
        // One link waits at a time, so an app cannot swap the one the person is reading; and it
        // is asked inline, where nothing of the app covers the question.
        if (linkWaiting.current) return void backend.appAnswer(app, ask.id, false).then(post);
        linkWaiting.current = true;
        if (modeNow.current !== "inline") changeMode(app, "inline");
        setLink({ app, ask, url: what.url });
        break;
      case "displayMode": {
        const granted = (MODES as string[]).includes(what.mode) ? (what.mode as Mode) : modeNow.current;
        void backend.appAnswer(app, ask.id, granted).then(post);
        changeMode(app, granted);
        break;
      }
      case "size":
        if (what.height) setHeight(Math.max(60, Math.min(INLINE_MAX, Math.ceil(what.height))));
        break;
      case "teardown":
        close(app, "the app asked to be closed");
        break;
    }
  };

  const changeMode = (app: number, next: Mode) => {
    modeNow.current = next;
    setMode(next);
    void backend.appContext(app, { displayMode: next }).then(post);
  };
  // The app is told the window's theme, and follows it, until the person picks one for it.
  const picked = useRef(false);
  const themeNow = useRef(theme);
  useEffect(() => {
    themeNow.current = theme;
  });
  const changeTheme = (app: number, next: "light" | "dark") => {
    themeNow.current = next;
    setTheme(next);
    void backend.appContext(app, { theme: next }).then(post);
  };
  const follows = useRef(changeTheme);
  useEffect(() => {
    follows.current = changeTheme;
  });
  useEffect(() => {
    if (!opened) return;
    const follow = () => {
      const now = windowTheme();
      if (!picked.current && now !== themeNow.current) follows.current(opened.app, now);
    };
    follow();
    const observer = new MutationObserver(follow);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    const media = globalThis.matchMedia?.("(prefers-color-scheme: light)");
    media?.addEventListener?.("change", follow);
    return () => {
      observer.disconnect();
      media?.removeEventListener?.("change", follow);
    };
  }, [opened]);
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
        if (!current) return void backend.appForget(o.app, "its pane closed before it opened");
        app = o.app;
        setOpened(o);
      },
      (e) => {
        if (!current) return;
        setError(errorText(e));
        if (closing) onGone?.();
      },
    );
    // A pane that goes at once (its tool left, the window's line closed) takes its frame with
    // it: there is no frame left to tear down, and the core forgets the app.
    return () => {
      current = false;
      if (app !== null && !tornDown.current) void backend.appForget(app, "its pane closed");
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

  // Torn down when its result is replaced (or it is reloaded), and when its connection ends:
  // what it would call is gone.
  useEffect(() => {
    if (!opened) return;
    if (closing) close(opened.app, closing);
    else if (!ready) close(opened.app, "the app's connection ended");
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ready, opened, closing]);

  // The frame's messages: only from this frame, one at a time to the core, a flood bounded.
  useEffect(() => {
    if (!opened) return;
    const app = opened.app;
    const inbox = new Inbox<unknown>(
      async (data) => {
        const report = reported(data);
        if (report) {
          say(report);
          return void (await backend.appNote(app, `${report.kind} (the page reports): ${report.text}`));
        }
        let text: string;
        try {
          text = JSON.stringify(data);
        } catch (e) {
          return void (await backend.appNote(app, `error: a message that is not JSON: ${errorText(e)}`));
        }
        const turn = await backend.appMessage(app, text);
        post(turn);
        if (turn.ask) decide(app, turn.ask);
      },
      (count, requests) =>
        void backend
          .appDropped(
            app,
            count,
            requests.map((r) => JSON.stringify(r)),
          )
          .then(post, () => undefined),
      (data) => {
        const d = data as { id?: unknown; method?: unknown } | null;
        return !!d && typeof d === "object" && d.id !== undefined && typeof d.method === "string";
      },
    );
    // Only this frame's messages; its reports and its protocol share one bounded inbox.
    const heard = (e: MessageEvent) => {
      if (frame.current && e.source === frame.current.contentWindow) inbox.push(e.data);
    };
    window.addEventListener("message", heard);
    return () => window.removeEventListener("message", heard);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  const answerLink = async (open: boolean) => {
    if (!link) return;
    setLink(null);
    linkWaiting.current = false;
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
        <h3>App{typeof toolName === "string" && ` of ${toolName}`}</h3>
        {resource && <code>{resource.uri}</code>}
        {opened && !closedBecause && (
          <span className="app-controls">
            <label>
              Theme{" "}
              <select
                aria-label="App theme"
                value={theme}
                onChange={(e) => {
                  picked.current = true;
                  changeTheme(opened.app, e.target.value as "light" | "dark");
                }}
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
        <button onClick={onReload} disabled={!ready || closedBecause !== null}>
          Reload
        </button>
      </header>
      {error && (
        <p className="error" role="alert">
          The app could not be opened: {error}
        </p>
      )}
      {closedBecause && (
        <p className="muted">
          {gone ? "The app was closed" : "Closing the app"}: {closedBecause}.
        </p>
      )}
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
      {opened && resource && opened.drawable && !gone && (
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
