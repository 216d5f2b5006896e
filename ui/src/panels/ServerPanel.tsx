// What the server said about itself: serverInfo (the icons the core allows), the protocol
// version and the evidence for it, capabilities in words, instructions, the 2026-07-28 cache
// hints; its drift since the baseline, in a word; the log level asked of it, changeable while
// connected; Ping with its round trip; and the roots Sonde offers it, editable while connected.
import { useContext, useEffect, useState } from "react";
import { backend, errorText, type ConnectionState, type LogLevel, type Ping } from "../ipc";
import { isObject, NotReady, str, useLine } from "./line";
import { RootsEditor } from "../components/RootsEditor";
import { DiffWith } from "../builds/context";
import { driftWords, useDrift } from "../builds/drift";
import { LOG_LEVELS } from "../ipc/bindings";

/** The levels a server may be asked for, least severe first, as the core lists them. */
const LEVELS: readonly LogLevel[] = LOG_LEVELS;

/** Capabilities as lines: the capability, then its sub-capabilities that are switched on. */
export function capabilityLines(caps: unknown): string[] {
  if (!isObject(caps)) return [];
  return Object.entries(caps).map(([name, sub]) => {
    const on = isObject(sub)
      ? Object.entries(sub)
          .filter(([, v]) => v !== false && v !== null)
          .map(([k, v]) => (isObject(v) && Object.keys(v).length ? `${k} (${Object.keys(v).join(", ")})` : k))
      : [];
    return on.length ? `${name}: ${on.join(", ")}` : name;
  });
}

export function ServerPanel({ line }: { line: ConnectionState }) {
  const { conn, ready, server } = useLine(line);
  const [level, setLevel] = useState<LogLevel | null>(null);
  const [ping, setPing] = useState<Ping | null>(null);
  const [pinging, setPinging] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [savedTo, setSavedTo] = useState<string | null>(null);
  const compare = useContext(DiffWith);
  const drift = useDrift(line);
  useEffect(() => {
    if (!ready) return;
    backend.logLevelGet(conn).then(setLevel, (e) => setError(errorText(e)));
  }, [conn, ready]);
  if (!server) return <NotReady line={line} what="Details" />;
  const info = isObject(server.serverInfo) ? server.serverInfo : {};
  // The core says which icons may be shown: data: raster images only, never fetched.
  const shown = server.icons;
  const changeLevel = async (next: LogLevel) => {
    setError(null);
    try {
      await backend.logLevelSet(conn, next);
      setLevel(await backend.logLevelGet(conn));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const saveSnapshot = async () => {
    setError(null);
    setSavedTo(null);
    try {
      setSavedTo(await backend.snapshotSave(conn));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const doPing = async () => {
    setPinging(true);
    setError(null);
    try {
      setPing(await backend.ping(conn));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setPinging(false);
    }
  };
  return (
    <div className="server-panel">
      <NotReady line={line} what="Ping and the log level" />
      <header className="server-head">
        {shown.slice(0, 1).map((src) => (
          <img key={src} src={src} alt="" width={32} height={32} />
        ))}
        <div>
          <h2>{str(info, "title") ?? str(info, "name") ?? "(the server gave no name)"}</h2>
          <span className="muted">
            {str(info, "name")} {str(info, "version") && `version ${str(info, "version")}`}
          </span>
        </div>
      </header>
      {server.iconsHidden > 0 && (
        <p className="muted">
          {server.iconsHidden} icon(s) not shown: Sonde shows icons only as data: raster images (PNG, JPEG, GIF, WebP),
          never fetching one.
        </p>
      )}
      <dl className="facts">
        <dt>Protocol</dt>
        <dd>
          {server.protocolVersion} (
          {server.era === "modern" ? "stateless: each request carries _meta" : "initialize handshake, one session"})
        </dd>
        <dt>Decided by</dt>
        <dd>{server.decidedBy}</dd>
        {server.ttlMs != null && (
          <>
            <dt>Cacheable</dt>
            <dd>
              for {server.ttlMs} ms{server.cacheScope && `, ${server.cacheScope}`}
            </dd>
          </>
        )}
        {drift && (
          <>
            <dt>Baseline</dt>
            <dd aria-label="Drift baseline">{driftWords(drift)}</dd>
          </>
        )}
        <dt>Capabilities</dt>
        <dd>
          <ul aria-label="Capabilities">
            {capabilityLines(server.capabilities).map((c) => (
              <li key={c}>{c}</li>
            ))}
            {capabilityLines(server.capabilities).length === 0 && <li className="muted">none declared</li>}
          </ul>
        </dd>
      </dl>
      {server.instructions && (
        <>
          <h3>Instructions</h3>
          <pre className="instructions">{server.instructions}</pre>
        </>
      )}
      <div className="call-row">
        <button
          disabled={!ready}
          onClick={() =>
            compare({ side: { kind: "connection", id: conn }, label: `${line.name} · connection ${conn}` })
          }
        >
          Diff…
        </button>
        <button disabled={!ready} onClick={() => void saveSnapshot()}>
          Save snapshot…
        </button>
        {savedTo ? (
          <span role="status" aria-label="Snapshot saved">
            The interface is in <span className="mono">{savedTo}</span>
          </span>
        ) : (
          <span className="muted">
            Its interface beside another build&apos;s (a session, a snapshot, a saved server): what changed, and what
            breaks.
          </span>
        )}
      </div>
      <div className="call-row">
        <label>
          Server log level{" "}
          <select
            aria-label="Server log level"
            value={level ?? ""}
            disabled={!ready}
            onChange={(e) => changeLevel(e.target.value as LogLevel)}
          >
            {level === null && <option value="">not asked</option>}
            {LEVELS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {server.era === "modern"
            ? "2026-07-28: later requests carry the level in _meta; messages come with their replies."
            : "2025-11-25: sent as logging/setLevel for the whole session."}
        </span>
      </div>
      <div className="call-row">
        <button onClick={doPing} disabled={pinging || !ready}>
          {pinging ? "Pinging…" : "Ping"}
        </button>
        {ping && (
          <span role="status" aria-label="Round trip">
            {ping.method === "ping"
              ? `ping answered in ${ping.ms} ms`
              : `${ping.method} answered in ${ping.ms} ms (2026-07-28 has no ping; Sonde measures a discover)`}
          </span>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h3>Roots</h3>
      <RootsEditor conn={conn} ready={ready} />
    </div>
  );
}
