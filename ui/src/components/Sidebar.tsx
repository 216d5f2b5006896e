// The lines of connections, above the saved servers they were started from (a connection just
// started, and its failure, stay in view however many servers are saved): each card shows the state the
// core reports, as it happens (never a guess), with what the user does next, and the connection's
// authorization flow when it has one.
import type { ConnectionState, SavedServer, ServerDescription } from "../ipc";
import type { Flows } from "../auth/flows";
import { AuthFlowView } from "./AuthFlowView";
import { colourOf } from "../log/labels";
import { canStop, isFinal, reasonOf, stateName, stateText } from "../connections/lines";
import { LastWordsView } from "./LastWordsView";

interface Props {
  servers: SavedServer[];
  /** The newest state of each line, oldest line first. */
  lines: ConnectionState[];
  /** Each connection's latest authorization flow. */
  flows: Flows;
  /** The selected line. */
  selected: number | null;
  onSelect(line: number): void;
  onConnect(s: SavedServer): void;
  onStop(conn: number): void;
  onRestart(conn: number): void;
  /** Hides an ended line's card. */
  onDismiss(line: number): void;
  onEdit(s: SavedServer): void;
  /** Shows the config entry a client needs to run `s` through `sonde proxy`. */
  onUseWithClient(s: SavedServer): void;
  onNew(): void;
  onImport(): void;
  onDelete(s: SavedServer): void;
  /** Adds a withheld variable from Sonde's environment to a saved server. */
  onAddEnv(serverId: string, name: string): void;
  onShowStderr(conn: number): void;
  /** Opens the Authorizations dialog. */
  onAuthorizations(): void;
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
      <h3 className="with-action">
        Connections
        {p.lines.some((l) => isFinal(l.event.state)) && (
          <button
            title="Remove the cards of connections that ended"
            onClick={() => p.lines.filter((l) => isFinal(l.event.state)).forEach((l) => p.onDismiss(l.event.line))}
          >
            Clear ended
          </button>
        )}
      </h3>
      <ul className="connections">
        {p.lines.length === 0 && <li className="hint">None yet.</li>}
        {p.lines.map((l) => {
          const { conn, line, state } = l.event;
          const words = "words" in state && !isEmpty(state.words) ? state.words : null;
          const reason = reasonOf(state);
          const flow = p.flows.get(conn);
          return (
            <li key={line} className={line === p.selected ? "selected" : ""} onClick={() => p.onSelect(line)}>
              <div className="row">
                <span className={`dot ${stateName(state)}`} aria-hidden />
                <span className="name" title={l.name}>
                  {l.name}
                </span>
                {state.state === "ready" && <EraBadge server={state.server} />}
                <span className="conn muted" title={`connection ${conn}: its rows in the log carry this colour`}>
                  <i className="conn-mark" style={{ background: colourOf(conn) }} aria-hidden /> conn {conn}
                </span>
              </div>
              <div className="status" data-status={stateName(state)} role="status">
                {stateText(state)}
                {reason && <div className="reason">{reason}</div>}
              </div>
              {flow && <AuthFlowView flow={flow} />}
              {words && <LastWordsView words={words} {...fixes(p, l.serverId, conn)} />}
              <div className="actions" onClick={(e) => e.stopPropagation()}>
                {canStop(state) && <button onClick={() => p.onStop(conn)}>Stop</button>}
                {(state.state === "ready" || isFinal(state)) && l.serverId !== null && (
                  <button onClick={() => p.onRestart(conn)}>Restart</button>
                )}
                {isFinal(state) && (
                  <button
                    title="Remove this ended connection from the list (its entries stay in the log)"
                    onClick={() => p.onDismiss(line)}
                  >
                    Remove
                  </button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
      <h3 className="with-action">
        Servers
        <button title="The servers Sonde holds tokens for; forget them" onClick={p.onAuthorizations}>
          Authorizations…
        </button>
      </h3>
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
              <button
                title="Use with a client: the config entry that runs it through sonde proxy, so the client's sessions are recorded"
                onClick={() => p.onUseWithClient(s)}
              >
                Client…
              </button>
            </div>
          </li>
        ))}
      </ul>
    </aside>
  );
}

const isEmpty = (w: { lines: string[]; minimalEnv: boolean }) => w.lines.length === 0 && !w.minimalEnv;

/** What a card with last words offers: the fixes that apply to its saved server, and its stderr. */
function fixes(p: Props, serverId: string | null, conn: number) {
  const saved = p.servers.find((s) => s.id === serverId);
  return {
    onAddEnv: saved && ((name: string) => p.onAddEnv(saved.id, name)),
    onEdit: saved && (() => p.onEdit(saved)),
    onShowStderr: () => p.onShowStderr(conn),
  };
}

export function EraBadge({ server }: { server: ServerDescription }) {
  return (
    <span className={`era ${server.era}`} title={`${server.protocolVersion}: ${server.decidedBy}`}>
      {server.protocolVersion}
    </span>
  );
}
