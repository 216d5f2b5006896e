// The window: saved servers and live connections on the left, the selected connection's tools
// above, the wire log (or stderr) below.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, blankServer, errorText, lastWordsOf, type ConnectionDto, type SavedServer } from "./ipc";
import { ServerDialog } from "./components/ServerDialog";
import { Sidebar, type Live } from "./components/Sidebar";
import { ToolsPanel } from "./components/ToolsPanel";
import { LogView } from "./components/LogView";
import { StderrPane } from "./components/StderrPane";
import { QuestionDialog } from "./components/QuestionDialog";
import { ImportDialog } from "./components/ImportDialog";
import { OpenSessionDialog } from "./components/OpenSessionDialog";
import { usePastSession } from "./log/past";
import type { ServerQuestion } from "./ipc";

export function App() {
  const [servers, setServers] = useState<SavedServer[]>([]);
  const [live, setLive] = useState<Live[]>([]);
  const [selected, setSelected] = useState<number | null>(null);
  const [editing, setEditing] = useState<SavedServer | null>(null);
  const [bottom, setBottom] = useState<"log" | "stderr">("log");
  const [filter, setFilter] = useState("");
  const [follow, setFollow] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);
  const filterBox = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState(false);
  // File → Open Session, and the past session the log view shows instead of the live one.
  const [choosingSession, setChoosingSession] = useState(false);
  const { past, showPast } = usePastSession();
  // Server requests waiting for an answer, oldest first.
  const [questions, setQuestions] = useState<ServerQuestion[]>([]);

  useEffect(() => {
    backend.onServerRequest((q) => setQuestions((all) => [...all, q])).catch((e) => setNotice(errorText(e)));
  }, []);

  useEffect(() => {
    backend
      .serversList()
      .then(setServers)
      .catch((e) => setNotice(errorText(e)));
  }, []);

  const update = (id: number, patch: Partial<Live>) =>
    setLive((all) => all.map((l) => (l.id === id ? { ...l, ...patch } : l)));

  const connect = useCallback(async (server: SavedServer) => {
    const pending = -Date.now();
    setLive((all) => [
      ...all,
      { id: pending, name: server.name, serverId: server.id, status: server.url ? "connecting" : "spawning" },
    ]);
    try {
      const conn: ConnectionDto = await backend.connect(server.id, ({ id, stage }) =>
        setLive((all) => all.map((l) => (l.id === pending ? { ...l, status: stage, connId: Number(id) } : l))),
      );
      setLive((all) =>
        all.map((l) => (l.id === pending ? { id: conn.id, name: conn.name, status: "ready", conn } : l)),
      );
      setSelected(conn.id);
    } catch (e) {
      const words = lastWordsOf(e) ?? undefined;
      setLive((all) =>
        all.map((l) => (l.id === pending ? { ...l, status: "failed", reason: errorText(e), words } : l)),
      );
    }
  }, []);

  const stop = useCallback(async (id: number) => {
    update(id, { status: "stopping" });
    try {
      const how = await backend.disconnect(id);
      update(id, { status: "exited", reason: how ?? "stopped" });
    } catch (e) {
      update(id, { status: "exited", reason: errorText(e) });
    }
  }, []);

  useEffect(
    () =>
      backend.onMenu((id) => {
        if (id === "new-connection") setEditing(blankServer());
        if (id === "close-connection" && selected !== null) stop(selected);
        if (id === "find") filterBox.current?.focus();
        if (id === "toggle-stderr") setBottom((b) => (b === "stderr" ? "log" : "stderr"));
        if (id === "toggle-lifecycle") setFilter((f) => (f.includes("kind:lifecycle") ? "" : "kind:lifecycle"));
        if (id === "toggle-follow") setFollow((f) => !f);
        if (id === "import") setImporting(true);
        if (id === "open-session") setChoosingSession(true);
      }),
    [selected, stop],
  );

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
    };
    window.addEventListener("keydown", keys);
    return () => window.removeEventListener("keydown", keys);
  }, []);

  const current = live.find((l) => l.id === selected && l.status === "ready");

  return (
    <div className="app">
      <Sidebar
        servers={servers}
        live={live}
        selected={selected}
        onSelect={setSelected}
        onConnect={connect}
        onStop={stop}
        onEdit={setEditing}
        onNew={() => setEditing(blankServer())}
        onImport={() => setImporting(true)}
        onAddEnv={async (serverId, name) => {
          try {
            setServers(await backend.serversAddEnvFromHost(serverId, name));
            setNotice(`Added ${name} from your environment to the saved server; connect it again.`);
          } catch (e) {
            setNotice(errorText(e));
          }
        }}
        onShowStderr={(connId) => {
          setSelected(connId);
          setBottom("stderr");
        }}
        onDelete={async (s) => {
          if (window.confirm(`Delete the saved server "${s.name}"?`)) setServers(await backend.serversDelete(s.id));
        }}
      />
      <main className="main">
        {notice && (
          <div className="notice" role="status">
            {notice} <button onClick={() => setNotice(null)}>Dismiss</button>
          </div>
        )}
        <section className="top">
          {current?.conn ? (
            <ToolsPanel key={current.id} conn={current.conn} />
          ) : (
            <div className="empty">
              <h2>No server selected</h2>
              <p>Connect a saved server on the left (the Demo server is ready to go), or add one with Ctrl+N.</p>
            </div>
          )}
        </section>
        <section className="bottom">
          <div className="tabs" role="tablist">
            <button role="tab" aria-selected={bottom === "log"} onClick={() => setBottom("log")}>
              Wire log
            </button>
            <button role="tab" aria-selected={bottom === "stderr"} onClick={() => setBottom("stderr")}>
              stderr
            </button>
          </div>
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
            />
          ) : (
            <StderrPane conn={selected} />
          )}
        </section>
      </main>
      {questions[0] && (
        <QuestionDialog
          key={String(questions[0].qid)}
          question={questions[0]}
          serverName={
            live.find((l) => l.id === Number(questions[0].conn))?.name ?? `connection #${String(questions[0].conn)}`
          }
          onAnswer={async ({ result, refusal }) => {
            const qid = Number(questions[0].qid);
            try {
              await backend.answerServerRequest(qid, result, refusal);
            } catch (e) {
              setNotice(`The answer was not delivered: ${errorText(e)}`);
            } finally {
              setQuestions((all) => all.filter((q) => Number(q.qid) !== qid));
            }
          }}
        />
      )}
      {importing && (
        <ImportDialog
          onCancel={() => setImporting(false)}
          onImport={async (text) => {
            const r = await backend.serversImport(text);
            setServers(await backend.serversList());
            setImporting(false);
            setNotice(
              `Imported ${r.servers.length} server(s)${r.skipped.length ? `; skipped: ${r.skipped.join("; ")}` : ""}`,
            );
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
  );
}
