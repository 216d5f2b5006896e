// What the line's server does wrong, said by the core: the findings on its connection's frames
// grouped by rule, with counts, each frame one click from the wire log; and the check-up of the
// saved server (`sonde doctor`), its checks shown as the core makes them, each with its evidence
// and the era it was made in; and each host beside its tools (HostsTable). Nothing here judges a
// frame: the rules and the checks are the core's.
import { useEffect, useState } from "react";
import { backend, errorText, type Check, type ConnectionState, type Era, type RuleGroup } from "../ipc";
import { ERA_REVISIONS } from "../ipc/bindings";
import { onEntries } from "../log/stream";
import { useReveal } from "../log/reveal";
import { HostsTable } from "./HostsTable";

export function DiagnosticsPanel({ line }: { line: ConnectionState }) {
  const conn = line.event.conn;
  return (
    <div className="diagnostics">
      <Findings conn={conn} />
      <CheckUp serverId={line.serverId} name={line.name} />
      <HostsTable conn={conn} ready={line.event.state.state === "ready"} />
    </div>
  );
}

/** The findings of connection `conn`, read again whenever a frame of it with a finding arrives. */
function useFindings(conn: number): { groups: RuleGroup[] | null; error: string | null } {
  const [groups, setGroups] = useState<RuleGroup[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let reading = false;
    let again = false;
    const read = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      backend
        .diagnostics(conn)
        .then((g) => live && (setGroups(g), setError(null)))
        .catch((e) => live && setError(errorText(e)))
        .finally(() => {
          reading = false;
          if (again && live) {
            again = false;
            read();
          }
        });
    };
    read();
    const stop = onEntries((entries) => {
      if (entries.some((e) => Number(e.conn) === conn && (e.findings ?? []).length > 0)) read();
    });
    return () => {
      live = false;
      stop();
    };
  }, [conn]);
  return { groups, error };
}

function Findings({ conn }: { conn: number }) {
  const { groups, error } = useFindings(conn);
  const reveal = useReveal();
  return (
    <section aria-label="Findings by rule">
      <h2>Findings on connection {conn}</h2>
      {error && <p className="error">{error}</p>}
      {groups === null && !error && <p className="muted">Reading…</p>}
      {groups?.length === 0 && (
        <p className="muted">
          No frame of connection {conn} broke a protocol rule so far. Frames are checked as they are recorded.
        </p>
      )}
      <ul className="rule-groups">
        {groups?.map((g) => (
          <li key={g.rule} className={g.severity}>
            <div>
              <span className={`badge diag ${g.severity}`}>{g.rule}</span>
              <strong>
                {g.severity} × {g.count}
              </strong>{" "}
              {g.detail}
            </div>
            <div className="muted">{g.spec}</div>
            <div className="frames" aria-label={`Frames breaking ${g.rule}`}>
              {g.seqs.map((seq) => (
                <button
                  key={String(seq)}
                  className="link"
                  onClick={() => reveal?.(Number(seq))}
                  title="Show in the wire log"
                >
                  #{String(seq)}
                </button>
              ))}
              {g.count > g.seqs.length && (
                <span className="muted"> and {g.count - g.seqs.length} more (filter diag:any)</span>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The protocol revision of each era as a person names it, the core's own (`era::LEGACY`,
 * `era::MODERN`), as `sonde doctor` names it. */
const REVISION = Object.fromEntries(ERA_REVISIONS) as Record<Era, string>;

/** The era a check was made in, as a tag: a dual-era server is checked in each era, and its two
 * `handshake` checks differ only here. Nothing for an opening that failed before an era was decided. */
function EraTag({ era }: { era?: Era | null }) {
  if (era == null) return null;
  return (
    <span className="badge era" title={`Checked in the ${era} era`}>
      {REVISION[era]}
    </span>
  );
}

function CheckUp({ serverId, name }: { serverId?: string | null; name: string }) {
  const [checks, setChecks] = useState<Check[]>([]);
  const [running, setRunning] = useState(false);
  const [tally, setTally] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reveal = useReveal();
  const run = async (id: string) => {
    setChecks([]);
    setTally(null);
    setError(null);
    setRunning(true);
    try {
      const report = await backend.doctorRun(id, (c) => setChecks((all) => [...all, c]));
      setChecks(report.checks);
      setTally(report.tally);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  };
  return (
    <section aria-label="Check-up">
      <header>
        <h2>Check-up</h2>
        {serverId && (
          <button onClick={() => run(serverId)} disabled={running}>
            {running ? "Checking…" : `Check up ${name}`}
          </button>
        )}
      </header>
      {!serverId && <p className="muted">The check-up runs on a saved server; this line was not started from one.</p>}
      {serverId && checks.length === 0 && !running && !error && (
        <p className="muted">
          Starts the server on connections of its own and checks it over: the opening exchange in each era it claims,
          ping, an unknown method, invalid params, its tools' schemas, its listings, stdout, every rule its frames
          break, and whether it exits when stdin closes. It calls no tool.
        </p>
      )}
      {error && <p className="error">{error}</p>}
      {tally && (
        <p role="status" aria-label="Check-up result">
          {tally}
        </p>
      )}
      {checks.length > 0 && (
        <table className="checks" aria-label="Checks">
          <tbody>
            {checks.map((c, i) => (
              <tr key={i} className={c.status}>
                <td className="status">{c.status}</td>
                <td className="id">
                  {c.id}
                  <EraTag era={c.era} />
                </td>
                <td>
                  {c.detail}
                  {c.seq != null && (
                    <>
                      {" "}
                      <button className="link" onClick={() => reveal?.(Number(c.seq))} title="Show in the wire log">
                        #{String(c.seq)}
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
