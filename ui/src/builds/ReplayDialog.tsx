// Replay against…: a recorded session sent again to a saved server (started for the replay and
// stopped after it), each request's answer beside the recorded one with the differences marked.
// The replay, the recorded client's answers and the comparison are the core's
// (`session_replay`); this dialog picks the server and draws what comes back, as it comes.
import { useState } from "react";
import { backend, errorText, type Replayed, type ReplayVerdict, type SavedServer } from "../ipc";
import type { NamedSession } from "./context";
import { SideBySide } from "./MarkedJson";

interface Props {
  session: NamedSession;
  servers: SavedServer[];
  onClose(): void;
}

function shown(value: unknown): string {
  return value === undefined || value === null ? "nothing" : JSON.stringify(value);
}

/** What a replay found, in one line: each verdict the core gave, and how many failed when that
 * is not plain from the verdicts. */
export function replayTally(replayed: Replayed[], notSent: number | null): string {
  const count = (verdict: ReplayVerdict) => replayed.filter((r) => r.verdict === verdict).length;
  const [changed, gone, differ, pages, unsent] = (["changed", "gone", "differs", "page", "unsent"] as const).map(count);
  const parts = [`${count("same")} same`];
  if (changed) parts.push(`${changed} changed`);
  if (gone) parts.push(`${gone} gone`);
  parts.push(`${differ} ${differ === 1 ? "differs" : "differ"}`);
  if (pages) parts.push(pages === 1 ? "1 page judged with its listing" : `${pages} pages judged with their listing`);
  if (unsent) parts.push(`${unsent} unsent`);
  const failed = replayed.filter((r) => r.fails).length;
  const tally = failed === differ + gone ? parts.join(", ") : `${parts.join(", ")}; ${failed} failed`;
  const words = `${replayed.length} ${replayed.length === 1 ? "request" : "requests"}: ${tally}`;
  return notSent ? `${words}; ${notSent} not sent (a listen, or never answered).` : `${words}.`;
}

export function ReplayDialog({ session, servers, onClose }: Props) {
  const [serverId, setServerId] = useState(servers[0]?.id ?? "");
  const [running, setRunning] = useState(false);
  const [replayed, setReplayed] = useState<Replayed[] | null>(null);
  const [notSent, setNotSent] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState(0);

  const run = async () => {
    setRunning(true);
    setError(null);
    setReplayed([]);
    setNotSent(null);
    setPicked(0);
    try {
      const report = await backend.sessionReplay(session.name, serverId, (r) =>
        setReplayed((all) => [...(all ?? []), r]),
      );
      // The whole report replaces what came one by one: it is the same, in order.
      setReplayed(report.replay.replayed);
      setNotSent(report.notSent);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  };

  const server = servers.find((s) => s.id === serverId);
  const one = replayed?.[picked] ?? null;
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <div className="dialog diff-dialog" role="dialog" aria-label="Replay a session">
        <h2>Replay {session.label}</h2>
        <p className="muted">
          Its requests are sent again, in order, to a saved server started for the replay and stopped after it. The
          server&apos;s own questions are answered as the recorded client answered them, and each answer is compared
          with the recorded one.
        </p>
        <div className="diff-sides">
          <label>
            Against
            <select aria-label="Saved server" value={serverId} onChange={(e) => setServerId(e.target.value)}>
              {servers.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="primary" disabled={!serverId || running} onClick={() => void run()}>
            {running ? "Replaying…" : "Replay"}
          </button>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {replayed && (
          <>
            <p role="status" aria-label="Replay">
              {running ? "Replaying against " : "Replayed against "}
              <strong>{server?.name}</strong>: {replayTally(replayed, notSent)}
            </p>
            <div className="diff-body">
              <div className="diff-changes" aria-label="Requests">
                {replayed.map((r, i) => (
                  <button
                    key={r.seq}
                    type="button"
                    className={`change ${r.fails ? "differs" : "same"}`}
                    aria-pressed={i === picked}
                    onClick={() => setPicked(i)}
                  >
                    <span className="verdict">{r.verdict}</span>{" "}
                    <span className="mono">
                      {r.method}
                      {r.name ? ` ${r.name}` : ""}
                    </span>{" "}
                    <span className="muted">(seq {r.seq})</span>
                  </button>
                ))}
              </div>
              {one && (
                <div className="replay-detail">
                  {one.why && <p aria-label="Why">{one.why}</p>}
                  {one.changes.length > 0 && (
                    <ul aria-label="Listing changes" className="mono">
                      {one.changes.map((c) => (
                        <li key={`${c.severity} ${c.path} ${c.detail}`}>
                          {c.severity} {c.path}: {c.detail}
                        </li>
                      ))}
                    </ul>
                  )}
                  {one.changesSaidBefore > 0 && (
                    <p className="muted">
                      {one.changesSaidBefore} {one.changesSaidBefore === 1 ? "change" : "changes"} of this listing said
                      above.
                    </p>
                  )}
                  {one.differences.length > 0 && (
                    <ul aria-label="Differences" className="mono">
                      {one.differences.map((d) => (
                        <li key={d.path}>
                          {d.path}: {shown(d.old)} → {shown(d.new)}
                        </li>
                      ))}
                    </ul>
                  )}
                  <SideBySide
                    panes={(
                      [
                        ["Recorded", one.recorded],
                        ["Now", one.answer],
                      ] as const
                    ).map(([which, value]) => ({
                      heading: which,
                      name: `${which} answer`,
                      value,
                      marks: one.differences.map((d) => d.steps),
                    }))}
                  />
                </div>
              )}
            </div>
          </>
        )}
        <footer>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </footer>
      </div>
    </div>
  );
}
