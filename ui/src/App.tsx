// The window: saved servers and their connections on the left, the selected line's tools
// above, the wire log (or stderr) below.
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { backend, blankServer, errorText, isBackendError, type ConnectionState, type SavedServer } from "./ipc";
import { ServerDialog } from "./components/ServerDialog";
import { ClientSnippetDialog } from "./components/ClientSnippetDialog";
import { Sidebar } from "./components/Sidebar";
import { isFinal, stateText, useConnections } from "./connections/lines";
import { useFilterView } from "./log/filter";
import { PANELS, panelOfDigit, panelOfMenu } from "./panels";
import { NoticesProvider } from "./panels/notices";
import { Kept } from "./panels/kept";
import { useShowsPanels } from "./layout/navigate";
import { LineFixes, type Fixes } from "./connections/fixes";
import { useShowsLog } from "./log/reveal";
import { LogView } from "./components/LogView";
import { RecordingBanner } from "./components/RecordingBanner";
import { QuestionDialog } from "./components/QuestionDialog";
import { ImportDialog } from "./components/ImportDialog";
import { ErrorBoundary } from "./components/ErrorBoundary";
import { useQuestions } from "./components/useQuestions";
import { AcceptedLinks } from "./components/AcceptedLinks";
import { OpenSessionDialog } from "./components/OpenSessionDialog";
import { SettingsDialog } from "./components/SettingsDialog";
import { DiffDialog } from "./builds/DiffDialog";
import { DiffWith, ReplayWith, type NamedSession, type NamedSide } from "./builds/context";
import { ReplayDialog } from "./builds/ReplayDialog";
import { RebuildBanner } from "./builds/RebuildBanner";
import { DriftBanner } from "./builds/DriftBanner";
import { useRebuilds } from "./builds/rebuilds";
import { usePastSession } from "./log/past";
import { useAuthFlows } from "./auth/flows";
import { AuthorizationsDialog } from "./components/AuthorizationsDialog";
import { useLayout } from "./layout/layout";
import { Splitter } from "./layout/Splitter";

// The stderr terminal is xterm.js, over a third of the window's script: it is loaded when its
// tab is first shown, so the window's first paint does not wait to parse it.
/** The room the log keeps below an open timeline: its bar and a few rows. */
const LOG_ROOM = 200;

const StderrPane = lazy(() => import("./components/StderrPane").then((m) => ({ default: m.StderrPane })));

export function App() {
  const [servers, setServers] = useState<SavedServer[]>([]);
  // Every line's state comes from the core as it changes; the window only chooses which to show.
  const { lines, error: linesError } = useConnections();
  const { rebuilds, error: rebuildsError } = useRebuilds();
  // Each connection's authorization flow, shown on its card, as the core reports it.
  const { flows, error: flowsError } = useAuthFlows();
  const [authorizations, setAuthorizations] = useState(false);
  const [dismissed, setDismissed] = useState<ReadonlySet<number>>(new Set());
  const [selected, setSelected] = useState<number | null>(null);
  // The connection whose stderr the bottom pane shows, when a card's link chose one; otherwise
  // the selected line's current connection.
  const [stderrConn, setStderrConn] = useState<number | null>(null);
  const [editing, setEditing] = useState<SavedServer | null>(null);
  // The saved server whose config entry for a client is shown.
  const [usingWith, setUsingWith] = useState<SavedServer | null>(null);
  const [bottom, setBottom] = useState<"log" | "stderr">("log");
  const [panel, setPanel] = useState(PANELS[0].id);
  // The panels opened so far; they stay mounted (hidden) while another is shown.
  const [visited, setVisited] = useState<ReadonlySet<string>>(new Set([PANELS[0].id]));
  if (!visited.has(panel)) setVisited(new Set(visited).add(panel));
  const [filter, setFilter] = useState("");
  const [follow, setFollow] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  // A saved server just started: its new line is selected as soon as the core reports it, so a
  // start that fails shows in the main pane at once, not only once connect returns.
  const [starting, setStarting] = useState<{ serverId: string; after: number } | null>(null);
  if (starting) {
    const started = [...lines.values()].find(
      (l) => !l.event.job && l.serverId === starting.serverId && l.event.line > starting.after,
    );
    if (started) {
      setStarting(null);
      setSelected(started.event.line);
    }
  }
  // A saved server already connected, waiting for the person to ask for a second connection.
  const [again, setAgain] = useState<{ server: SavedServer; line: ConnectionState } | null>(null);
  // The lines whose panels were shown: each keeps its panels (forms, results, a call still
  // running) mounted while another line is shown, until it is dismissed.
  const [visitedLines, setVisitedLines] = useState<ReadonlySet<number>>(new Set());
  if (selected !== null && !visitedLines.has(selected)) setVisitedLines(new Set(visitedLines).add(selected));
  // The kinds the filter hides, as the core reads it (its `hide:` chip): the View menu's Show
  // toggles add and remove them, and their check marks say whether those rows are shown.
  const { view: filterView } = useFilterView(filter);
  const hideChip = filterView.chips.find((c) => c.key === "hide");
  const hidden = hideChip ? hideChip.value.split(",") : [];
  const lifecycleShown = !hidden.includes("lifecycle");
  const stderrShown = !hidden.includes("stderr");
  // Shows or hides the rows of `kind`, keeping the rest of what was typed.
  const toggleShown = (kind: string) => {
    const rest = hideChip ? hideChip.without : filter.trim();
    const next = hidden.includes(kind) ? hidden.filter((k) => k !== kind) : [...hidden, kind];
    setFilter(next.length ? `${rest} hide:${next.join(",")}`.trim() : rest);
  };
  const filterBox = useRef<HTMLInputElement>(null);
  // The splitter's place and the question panel's fold, as the person left them (Settings file).
  const layout = useLayout();
  const topPane = useRef<HTMLElement>(null);
  const bottomPane = useRef<HTMLElement>(null);
  const [importing, setImporting] = useState(false);
  // File → Open Session, and the past session the log view shows instead of the live one.
  const [choosingSession, setChoosingSession] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [comparing, setComparing] = useState<NamedSide | null>(null);
  const [replaying, setReplaying] = useState<NamedSession | null>(null);
  const { past, showPast } = usePastSession();
  // Server requests waiting for an answer, oldest first.
  const {
    questions,
    declined,
    remove: removeQuestion,
    accepted,
    accept: noteAccepted,
    dismiss: dismissLink,
  } = useQuestions(setNotice, lines);
  // A panel of a line shown from elsewhere (a resource link, a call from the log): that line is
  // selected, when the window still shows it, and the live panels come back into view.
  const linesNow = useRef(lines);
  useEffect(() => {
    linesNow.current = lines;
  }, [lines]);
  const showLinePanel = useCallback(
    (panel: "resources" | "tools", line: number) => {
      setPanel(panel);
      if (linesNow.current.has(line)) setSelected(line);
      showPast(null);
    },
    [showPast],
  );
  useShowsPanels(showLinePanel, selected);
  // An entry shown from a panel is one of the live session's: the wire log comes into view.
  const showLiveLog = useCallback(() => {
    setBottom("log");
    showPast(null);
  }, [showPast]);
  useShowsLog(showLiveLog);
  const asking = questions[0];
  const askingConn = asking && Number(asking.conn);
  const shown = [...lines.values()].filter((l) => !dismissed.has(l.event.line));
  const current = selected === null ? undefined : lines.get(selected);
  const shownPanel = PANELS.find((p) => p.id === panel) ?? PANELS[0];

  // The window is usable once its saved servers are drawn: the frame that paints them is marked
  // for make bench's launch figure (window_bench.py reads the mark).
  const serversRead = useRef(false);
  const usable = useRef(false);
  useEffect(() => {
    backend
      .serversList()
      .then((list) => {
        serversRead.current = true;
        setServers(list);
      })
      .catch((e) => setNotice(errorText(e)));
  }, []);
  useEffect(() => {
    if (!serversRead.current || usable.current) return;
    usable.current = true;
    requestAnimationFrame(() => performance.mark("sonde:usable"));
  }, [servers]);

  // A failed opening's reason and last words are in its line's state; other errors (a saved
  // server that cannot be started at all) are told here.
  const told = (e: unknown) => {
    if (!(isBackendError(e) && (e.code === "connect_failed" || e.code === "spawn_failed"))) setNotice(errorText(e));
  };

  const connect = useCallback(
    async (server: SavedServer, second = false) => {
      setAgain(null);
      const open = second
        ? undefined
        : [...lines.values()].find((l) => l.serverId === server.id && !isFinal(l.event.state));
      if (open) {
        setSelected(open.event.line);
        setAgain({ server, line: open });
        return;
      }
      setStarting({ serverId: server.id, after: Math.max(-1, ...lines.keys()) });
      try {
        setSelected(await backend.connect(server.id));
      } catch (e) {
        told(e);
      }
    },
    [lines],
  );

  const stop = useCallback(async (conn: number) => {
    try {
      await backend.disconnect(conn);
    } catch (e) {
      setNotice(errorText(e));
    }
  }, []);

  const restart = useCallback(async (conn: number) => {
    try {
      await backend.restart(conn);
    } catch (e) {
      told(e);
    }
  }, []);

  // What a menu item does, with this render's state. The listener is subscribed once and calls
  // the newest handler: subscribing again on every change (each keystroke in the filter changes
  // the filter's view) left moments with no listener, and a menu item chosen then was lost.
  const menuHandler = (id: string) => {
    if (id === "new-connection") setEditing(blankServer());
    if (id === "close-connection" && current) stop(current.event.conn);
    if (id === "find") filterBox.current?.focus();
    // The Show toggles add or remove rows of their kind from what the log shows (`hide:`),
    // whatever else was typed; the core's chips say what is hidden and the filter without it.
    if (id === "toggle-stderr") toggleShown("stderr");
    if (id === "toggle-lifecycle") toggleShown("lifecycle");
    // Undo and Redo have no native menu item on Linux: the webview undoes in the field
    // that has the focus.
    if (id === "undo" || id === "redo") document.execCommand(id);
    if (id === "toggle-follow") setFollow((f) => !f);
    if (id === "import") setImporting(true);
    if (id === "open-session") setChoosingSession(true);
    if (id === "settings") setSettingsOpen(true);
    const chosen = panelOfMenu(id);
    if (chosen) setPanel(chosen.id);
  };
  const onMenu = useRef(menuHandler);
  useEffect(() => {
    onMenu.current = menuHandler;
  });
  useEffect(() => backend.onMenu((id) => onMenu.current(id)), []);
  // What pruning the sessions folder removed as this session started, said once.
  useEffect(() => {
    backend.sessionsBudgetGet().then(
      (b) => b.pruned && setNotice(`Sonde ${b.pruned}.`),
      (e) => setNotice(`The sessions budget cannot be read: ${errorText(e)}`),
    );
  }, []);

  // The View menu's check marks follow what the window shows, however it was changed.
  useEffect(() => void backend.menuChecked("toggle-stderr", stderrShown), [stderrShown]);
  useEffect(() => void backend.menuChecked("toggle-follow", follow), [follow]);
  useEffect(() => void backend.menuChecked("toggle-lifecycle", lifecycleShown), [lifecycleShown]);

  useEffect(() => {
    const keys = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "n") {
        e.preventDefault();
        setEditing(blankServer());
      }
      if ((e.ctrlKey || e.metaKey) && e.key === "f") {
        e.preventDefault();
        filterBox.current?.focus();
      }
      if ((e.ctrlKey || e.metaKey) && e.key === "o") {
        e.preventDefault();
        setChoosingSession(true);
      }
      if ((e.ctrlKey || e.metaKey) && e.key === ",") {
        e.preventDefault();
        setSettingsOpen(true);
      }
      // The menu's accelerators reach the window only in the desktop app; the keys work anywhere.
      const digit = (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && panelOfDigit(e.key);
      if (digit) {
        e.preventDefault();
        setPanel(digit.id);
      }
    };
    window.addEventListener("keydown", keys);
    return () => window.removeEventListener("keydown", keys);
  }, []);

  // What the main pane offers beside a failed server's last words.
  const fixes: Fixes = {
    addEnv: async (serverId, name) => {
      try {
        setServers(await backend.serversAddEnvFromHost(serverId, name));
        setNotice(`Added ${name} from your environment to the saved server; Restart runs it with it.`);
      } catch (e) {
        setNotice(errorText(e));
      }
    },
    edit: (serverId) => {
      const saved = servers.find((s) => s.id === serverId);
      if (saved) setEditing(saved);
    },
    showStderr: (conn) => {
      setStderrConn(conn);
      setBottom("stderr");
    },
  };
  return (
    <NoticesProvider>
      <LineFixes.Provider value={fixes}>
        <DiffWith.Provider value={setComparing}>
          <ReplayWith.Provider value={setReplaying}>
            <div className="app">
              <ErrorBoundary name="sidebar">
                <Sidebar
                  servers={servers}
                  lines={shown}
                  flows={flows}
                  onAuthorizations={() => setAuthorizations(true)}
                  selected={selected}
                  onSelect={(line) => {
                    setSelected(line);
                    setStderrConn(null);
                  }}
                  onConnect={connect}
                  onStop={stop}
                  onRestart={restart}
                  onDismiss={(line) => {
                    setDismissed((d) => new Set(d).add(line));
                    // An ended line may still be watched (Restart on change): removing its card stops
                    // that too, so it does not start again out of sight.
                    const conn = lines.get(line)?.event.conn;
                    if (conn !== undefined) stop(conn);
                  }}
                  onEdit={setEditing}
                  onUseWithClient={setUsingWith}
                  onNew={() => setEditing(blankServer())}
                  onImport={() => setImporting(true)}
                  onDelete={async (s) => {
                    if (window.confirm(`Delete the saved server "${s.name}"?`))
                      setServers(await backend.serversDelete(s.id));
                  }}
                />
              </ErrorBoundary>
              <main className="main">
                <RecordingBanner />
                {linesError && (
                  <div className="notice error" role="alert">
                    Connection states cannot be followed: {linesError}
                  </div>
                )}
                {rebuildsError && (
                  <div className="notice error" role="alert">
                    Restarts on change cannot be followed: {rebuildsError}
                  </div>
                )}
                {flowsError && (
                  <div className="notice error" role="alert">
                    Authorizations cannot be followed: {flowsError}
                  </div>
                )}
                {layout.error && (
                  <div className="notice warn" role="status">
                    {layout.error}
                  </div>
                )}
                {notice && (
                  <div className="notice" role="status">
                    {notice} <button onClick={() => setNotice(null)}>Dismiss</button>
                  </div>
                )}
                {asking && (
                  <ErrorBoundary key={String(asking.qid)} name="question panel">
                    <QuestionDialog
                      question={asking}
                      serverName={
                        [...lines.values()].find((l) => l.event.conn === askingConn)?.name ?? `connection ${askingConn}`
                      }
                      waiting={questions.filter((q) => Number(q.conn) === askingConn).length}
                      others={questions.filter((q) => Number(q.conn) !== askingConn).length}
                      folded={layout.questionFolded}
                      onFold={layout.setQuestionFolded}
                      declined={declined.get(askingConn)}
                      onDeclineAll={async () => void (await backend.serverRequestsDeclineAll(askingConn))}
                      onAnswer={async ({ result, refusal }) => {
                        const qid = Number(asking.qid);
                        try {
                          await backend.serverRequestAnswer(qid, result, refusal);
                          if ((result as { action?: string } | null)?.action === "accept") noteAccepted(asking);
                        } catch (e) {
                          setNotice(`The answer was not delivered: ${errorText(e)}`);
                        } finally {
                          removeQuestion(qid);
                        }
                      }}
                    />
                  </ErrorBoundary>
                )}
                {again && (
                  <div className="confirm notice" role="alertdialog" aria-label="Already connected">
                    <p>
                      {again.server.name} is already connected (connection {again.line.event.conn},{" "}
                      {stateText(again.line.event.state)}); it is selected on the left.
                    </p>
                    <button className="primary" onClick={() => connect(again.server, true)}>
                      Open a second connection
                    </button>
                    <button autoFocus onClick={() => setAgain(null)}>
                      Cancel
                    </button>
                  </div>
                )}
                <ErrorBoundary name="accepted links">
                  <AcceptedLinks
                    links={accepted}
                    nameOf={(conn) =>
                      [...lines.values()].find((l) => l.event.conn === conn)?.name ?? `connection ${conn}`
                    }
                    onDismiss={dismissLink}
                  />
                </ErrorBoundary>
                {/* The panels and the log share what the banners and a question leave, in the
            proportion the splitter sets. */}
                {/* A past session opened read-only takes the whole height: the live panels above it
            would belong to another session. They stay mounted (hidden), as typed. */}
                <section className="top" ref={topPane} style={{ flexGrow: layout.split }} hidden={past !== null}>
                  {current ? (
                    <>
                      <div className="tabs" role="tablist" aria-label="Server panels">
                        {PANELS.map((p, n) => (
                          <button
                            key={p.id}
                            role="tab"
                            aria-selected={shownPanel.id === p.id}
                            title={`${p.label} (Ctrl+${n + 1})`}
                            onClick={() => setPanel(p.id)}
                          >
                            {p.label}
                          </button>
                        ))}
                      </div>
                      {/* A panel is mounted when first shown and kept, so switching tabs or lines
                  loses no form or result; it asks the server for nothing until shown. A line's
                  panels stay mounted, out of the document, while another line is shown. */}
                      <Kept
                        shown={current.event.line}
                        keys={shown.map((l) => l.event.line).filter((line) => visitedLines.has(line))}
                        render={(line) => {
                          const l = lines.get(line)!;
                          const rebuild = rebuilds.get(line);
                          return (
                            <>
                              <ErrorBoundary name="line banners">
                                {rebuild && <RebuildBanner rebuild={rebuild} />}
                                <DriftBanner line={l} />
                              </ErrorBoundary>
                              {PANELS.filter((p) => visited.has(p.id) || p.id === shownPanel.id).map((p) => (
                                <div key={p.id} role="tabpanel" hidden={p.id !== shownPanel.id}>
                                  <ErrorBoundary name={`${p.label} panel`}>{p.render(l)}</ErrorBoundary>
                                </div>
                              ))}
                            </>
                          );
                        }}
                      />
                    </>
                  ) : (
                    <div className="empty">
                      <h2>No server selected</h2>
                      <p>
                        Connect a saved server on the left (the Demo server is ready to go), or add one with Ctrl+N.
                      </p>
                    </div>
                  )}
                </section>
                {past === null && (
                  <Splitter split={layout.split} onSplit={layout.setSplit} above={topPane} below={bottomPane} />
                )}
                <section className="bottom" ref={bottomPane} style={{ flexGrow: 1 - layout.split }}>
                  <div className="tabs" role="tablist">
                    <button role="tab" aria-selected={bottom === "log"} onClick={() => setBottom("log")}>
                      Wire log
                    </button>
                    <button role="tab" aria-selected={bottom === "stderr"} onClick={() => setBottom("stderr")}>
                      stderr
                    </button>
                  </div>
                  <ErrorBoundary key={bottom} name={bottom === "log" ? "wire log" : "stderr pane"}>
                    {bottom === "log" ? (
                      <LogView
                        key={past ? `past-${String(past.id)}` : "live"}
                        past={past}
                        onBackToLive={() => showPast(null)}
                        filter={filter}
                        setFilter={setFilter}
                        follow={follow}
                        setFollow={setFollow}
                        filterBox={filterBox}
                        live={[...lines.values()].filter((l) => !isFinal(l.event.state)).map((l) => l.event.conn)}
                        layout={{
                          timelineHeight: layout.timelineHeight,
                          setTimelineHeight: layout.setTimelineHeight,
                          detailWidth: layout.detailWidth,
                          setDetailWidth: layout.setDetailWidth,
                          makeRoom: (height) => {
                            // The log keeps a few rows below the timeline; the panels give up the rest.
                            const top = topPane.current?.getBoundingClientRect().height ?? 0;
                            const bottom = bottomPane.current?.getBoundingClientRect().height ?? 0;
                            const need = height + LOG_ROOM;
                            if (past === null && bottom < need && top + bottom > 0)
                              layout.setSplit(1 - need / (top + bottom), false);
                          },
                        }}
                      />
                    ) : (
                      <Suspense fallback={<div className="empty">Loading the terminal…</div>}>
                        <StderrPane conn={stderrConn ?? current?.event.conn ?? null} />
                      </Suspense>
                    )}
                  </ErrorBoundary>
                </section>
              </main>
              {usingWith && <ClientSnippetDialog server={usingWith} onClose={() => setUsingWith(null)} />}
              {importing && (
                <ImportDialog
                  onCancel={() => setImporting(false)}
                  onImport={async (text) => {
                    const r = await backend.serversImport(text);
                    setServers(await backend.serversList());
                    setImporting(false);
                    setNotice(
                      `Imported ${r.servers.length === 1 ? "1 server" : `${r.servers.length} servers`}${r.skipped.length ? `; skipped: ${r.skipped.join("; ")}` : ""}`,
                    );
                  }}
                />
              )}
              {comparing && (
                <DiffDialog subject={comparing} lines={shown} servers={servers} onClose={() => setComparing(null)} />
              )}
              {replaying && <ReplayDialog session={replaying} servers={servers} onClose={() => setReplaying(null)} />}
              {settingsOpen && (
                <SettingsDialog
                  onCancel={() => setSettingsOpen(false)}
                  onSaved={(pruned) => {
                    setSettingsOpen(false);
                    setNotice(pruned ? `Settings saved; Sonde ${pruned}.` : "Settings saved.");
                  }}
                />
              )}
              {choosingSession && (
                <OpenSessionDialog
                  onCancel={() => setChoosingSession(false)}
                  onLive={() => {
                    showPast(null);
                    setChoosingSession(false);
                    setBottom("log");
                  }}
                  onOpen={(opened) => {
                    showPast(opened);
                    setChoosingSession(false);
                    setBottom("log");
                  }}
                />
              )}
              {authorizations && <AuthorizationsDialog changes={flows} onClose={() => setAuthorizations(false)} />}
              {editing && (
                <ServerDialog
                  server={editing}
                  onCancel={() => setEditing(null)}
                  onSave={async (s) => {
                    setServers(await backend.serversSave(s));
                    setEditing(null);
                  }}
                />
              )}
            </div>
          </ReplayWith.Provider>
        </DiffWith.Provider>
      </LineFixes.Provider>
    </NoticesProvider>
  );
}
