// Saved servers and live connections, each connection with its state and era badge.
import type { ConnectionDto, LastWords, SavedServer, Stage } from "../ipc";
import { LastWordsView } from "./LastWordsView";

export interface Live {
  id: number;
  name: string;
  /** An opening stage (spawning, probing…), then ready, stopping, exited, or failed. */
  status: Stage | "ready" | "stopping" | "exited" | "failed";
  reason?: string;
  conn?: ConnectionDto;
  /** The saved server it was started from. */
  serverId?: string;
  /** The connection's id in the log, known from its first stage report. */
  connId?: number;
  /** For a failed opening: what the server last said and the environment hint. */
  words?: LastWords;
}

interface Props {
  servers: SavedServer[];
  live: Live[];
  selected: number | null;
  onSelect(id: number): void;
  onConnect(s: SavedServer): void;
  onStop(id: number): void;
  onEdit(s: SavedServer): void;
  onNew(): void;
  onImport(): void;
  onDelete(s: SavedServer): void;
  /** Adds a withheld variable from Sonde's environment to a saved server. */
  onAddEnv(serverId: string, name: string): void;
  onShowStderr(connId: number): void;
}

export function Sidebar(p: Props) {
  return (
    <aside className="sidebar">
      <header>
        <h1>Sonde</h1>
        <button title="Import an mcpServers config" onClick={p.onImport}>
          Import
        </button>
        <button title="New connection (Ctrl+N)" aria-label="Add a server" onClick={p.onNew}>
          +
        </button>
      </header>
      <h3>Servers</h3>
      <ul className="servers">
        {p.servers.map((s) => (
          <li key={s.id}>
            <div className="name" title={s.url || s.command}>
              {s.name}
            </div>
            <div className="command">{s.url || s.command}</div>
            <div className="actions">
              <button className="primary" onClick={() => p.onConnect(s)}>
                Connect
              </button>
              <button onClick={() => p.onEdit(s)}>Edit</button>
              <button onClick={() => p.onDelete(s)}>Delete</button>
            </div>
          </li>
        ))}
      </ul>
      <h3>Connections</h3>
      <ul className="connections">
        {p.live.length === 0 && <li className="hint">None yet.</li>}
        {p.live.map((l) => (
          <li
            key={l.id}
            className={l.id === p.selected ? "selected" : ""}
            onClick={() => l.status === "ready" && p.onSelect(l.id)}
          >
            <div className="row">
              <span className={`dot ${statusName(l.status)}`} aria-hidden />
              <span className="name">{l.name}</span>
              {l.conn && <EraBadge conn={l.conn} />}
            </div>
            <div className="status" data-status={statusName(l.status)}>
              {l.status === "ready" && l.conn
                ? `ready · ${l.conn.pid != null ? `pid ${l.conn.pid}` : "HTTP"}`
                : statusText(l.status)}
              {l.reason && <div className="reason">{l.reason}</div>}
            </div>
            {l.words && <LastWordsView words={l.words} {...fixes(p, l)} />}
            {l.status === "ready" && <button onClick={(e) => (e.stopPropagation(), p.onStop(l.id))}>Stop</button>}
          </li>
        ))}
      </ul>
    </aside>
  );
}

/** What a failed card offers: the fixes that apply to its saved server, and its stderr. */
function fixes(p: Props, l: Live) {
  const saved = p.servers.find((s) => s.id === l.serverId);
  const connId = l.connId;
  return {
    onAddEnv: saved && ((name: string) => p.onAddEnv(saved.id, name)),
    onEdit: saved && (() => p.onEdit(saved)),
    onShowStderr: connId !== undefined ? () => p.onShowStderr(connId) : undefined,
  };
}

/** A status's name, for styling: a server still starting is `starting` however long it has been. */
function statusName(s: Live["status"]): string {
  return typeof s === "object" ? "starting" : s;
}

/** A status in words; a server that has written nothing yet says for how long it has been starting. */
function statusText(s: Live["status"]): string {
  return typeof s === "object" ? `starting: no output yet, ${s.starting} s` : s;
}

export function EraBadge({ conn }: { conn: ConnectionDto }) {
  const s = conn.server;
  return (
    <span className={`era ${s.era}`} title={`${s.protocolVersion}: ${s.decidedBy}`}>
      {s.protocolVersion}
    </span>
  );
}
