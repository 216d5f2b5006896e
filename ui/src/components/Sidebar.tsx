// The lines of connections, above the saved servers they were started from (a connection just
// started, and its failure, stay in view however many servers are saved): each card shows the
// state the core reports, as it happens (never a guess), with what the user does next, and the
// connection's authorization flow when it has one. The sidebar stays short: ended lines fold
// into one group, a job's connection has a card only while it runs, and a failed line's last
// words are in the main pane.
import { useState } from "react";
import type { ConnectionState, SavedServer, ServerDescription } from "../ipc";
import type { Flows } from "../auth/flows";
import { AuthFlowView } from "./AuthFlowView";
import { colourOf } from "../log/labels";
import { canStop, isFinal, reasonOf, stateName, stateText } from "../connections/lines";

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
  /** Opens the Authorizations dialog. */
  onAuthorizations(): void;
}

export function Sidebar(p: Props) {
  // A job's connection (a comparison, a replay, a check-up) has a card while it runs only: its
  // session stays in the log. Ended lines fold into one group, but for the one selected.
  const cards = p.lines.filter((l) => !(l.event.job && isFinal(l.event.state)));
  const live = cards.filter((l) => !isFinal(l.event.state) || l.event.line === p.selected);
  const ended = cards.filter((l) => isFinal(l.event.state) && l.event.line !== p.selected);
  const [showEnded, setShowEnded] = useState(false);
  const card = (l: ConnectionState) => <Card key={l.event.line} p={p} line={l} />;
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
      <h3 className="with-action">Connections</h3>
      <ul className="connections">
        {cards.length === 0 && <li className="hint">None yet.</li>}
        {live.map(card)}
      </ul>
      {ended.length > 0 && (
        <div className="ended-group">
          <div className="with-action">
            <button
              className="fold"
              aria-expanded={showEnded}
              title={showEnded ? "Fold the ended connections" : "Show the ended connections"}
              onClick={() => setShowEnded(!showEnded)}
            >
              {showEnded ? "▾" : "▸"} Ended ({ended.length})
            </button>
            <button
              title="Remove the cards of connections that ended (their entries stay in the log)"
              onClick={() => ended.forEach((l) => p.onDismiss(l.event.line))}
            >
              Clear ended
            </button>
          </div>
          {showEnded && (
            <ul className="connections ended" aria-label="Ended connections">
              {ended.map(card)}
            </ul>
          )}
        </div>
      )}
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

/** One line's card: its name whole, its state in words and by the dot's shape, what to do
 * next. A failed line's last words and their fixes are in the main pane when it is selected. */
function Card({ p, line: l }: { p: Props; line: ConnectionState }) {
  const { conn, line, state } = l.event;
  const reason = reasonOf(state);
  const flow = p.flows.get(conn);
  const words = "words" in state && !isEmpty(state.words);
  return (
    <li
      className={[line === p.selected && "selected", isFinal(state) && "final"].filter(Boolean).join(" ")}
      onClick={() => p.onSelect(line)}
    >
      <div className="row">
        <span className={`dot ${stateName(state)}`} aria-hidden />
        <span className="name" title={l.name}>
          {l.name}
        </span>
      </div>
      <div className="row facts">
        {state.state === "ready" && <EraBadge server={state.server} />}
        <span className="conn muted" title={`connection ${conn}: its rows in the log carry this colour`}>
          <i className="conn-mark" style={{ background: colourOf(conn) }} aria-hidden /> conn {conn}
        </span>
        {l.event.job && (
          <span className="badge" title="Started for a comparison, a replay or a check-up">
            job
          </span>
        )}
      </div>
      <div className="status" data-status={stateName(state)} role="status">
        {stateText(state)}
        {reason && (
          <div className="reason" title={reason}>
            {reason}
          </div>
        )}
        {words && line !== p.selected && <div className="muted">Select it for the server&apos;s last words.</div>}
      </div>
      {flow && <AuthFlowView flow={flow} />}
      <div className="actions" onClick={(e) => e.stopPropagation()}>
        {canStop(state) && <button onClick={() => p.onStop(conn)}>Stop</button>}
        {(state.state === "ready" || isFinal(state)) && l.serverId !== null && !l.event.job && (
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
}

const isEmpty = (w: { lines: string[]; minimalEnv: boolean }) => w.lines.length === 0 && !w.minimalEnv;

export function EraBadge({ server }: { server: ServerDescription }) {
  return (
    <span className={`era ${server.era}`} title={`${server.protocolVersion}: ${server.decidedBy}`}>
      {server.protocolVersion}
    </span>
  );
}
