// Diff…: a connection or a session set beside another side (a connection open now, a saved
// server started for the comparison, a recorded session, a snapshot or session file), and the
// changes the core found, grouped by verdict, each one click from its definition on both sides
// with the changed key marked. The comparison, the verdicts and where each change is are the
// core's (`interface_diff`); this dialog chooses the sides and draws the answer.
import { useEffect, useState } from "react";
import {
  backend,
  errorText,
  type DiffSide,
  type ConnectionState,
  type Placed,
  type SavedServer,
  type SessionInfo,
  type ChangeSeverity,
} from "../ipc";
import { serversOf, sessionTitle } from "../log/format";
import type { NamedSide } from "./context";
import { SideBySide } from "./MarkedJson";

interface Props {
  /** The side "Diff…" was chosen on. */
  subject: NamedSide;
  lines: ConnectionState[];
  servers: SavedServer[];
  onClose(): void;
}

interface Option extends NamedSide {
  value: string;
  group: string;
}

interface Compared {
  old: string;
  new: string;
  changes: Placed[];
}

const VERDICTS: [ChangeSeverity, string][] = [
  ["breaking", "Breaking: a client that worked may fail"],
  ["change", "Changes: clients still work; worth a look"],
  ["addition", "Additions: new things to use"],
];

const CHOOSE_FILE = "choose-file";

function same(a: DiffSide, b: DiffSide): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a comparison found, in one line. */
export function tally(changes: Placed[]): string {
  if (changes.length === 0) return "No changes: the two interfaces are the same.";
  const count = (v: ChangeSeverity) => changes.filter((c) => c.change.severity === v).length;
  return `${count("breaking")} breaking, ${plural(count("change"), "change", "changes")}, ${plural(count("addition"), "addition", "additions")}.`;
}

export function DiffDialog({ subject, lines, servers, onClose }: Props) {
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [files, setFiles] = useState<string[]>([]);
  const [other, setOther] = useState("");
  const [subjectIsNew, setSubjectIsNew] = useState(true);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [compared, setCompared] = useState<Compared | null>(null);
  const [picked, setPicked] = useState(0);

  useEffect(() => {
    backend.sessionsList().then(setSessions, (e) => setError(errorText(e)));
  }, []);

  const options: Option[] = [
    ...lines
      .filter((l) => l.event.state.state === "ready")
      .map((l) => ({
        value: `conn:${l.event.conn}`,
        group: "Connections open now",
        side: { kind: "connection", id: l.event.conn } as DiffSide,
        label: `${l.name} · connection ${l.event.conn}`,
      })),
    ...servers.map((s) => ({
      value: `server:${s.id}`,
      group: "Saved servers, started for the diff",
      side: { kind: "server", id: s.id } as DiffSide,
      label: s.name,
    })),
    ...sessions.map((s) => ({
      value: `session:${s.name}`,
      group: "Recorded sessions",
      side: { kind: "session", name: s.name } as DiffSide,
      label: `${sessionTitle(s)} · ${serversOf(s)}${s.current ? " (this window's)" : ""}`,
    })),
    ...files.map((path) => ({
      value: `file:${path}`,
      group: "Files",
      side: { kind: "file", path } as DiffSide,
      label: path,
    })),
  ].filter((o) => !same(o.side, subject.side));
  const chosen = options.find((o) => o.value === other) ?? null;
  const groups = [...new Set(options.map((o) => o.group))];

  const choose = async (value: string) => {
    setError(null);
    if (value !== CHOOSE_FILE) return setOther(value);
    try {
      const path = await backend.snapshotFileChoose();
      if (path) {
        setFiles((known) => (known.includes(path) ? known : [...known, path]));
        setOther(`file:${path}`);
      }
    } catch (e) {
      setError(errorText(e));
    }
  };

  const compare = async () => {
    if (!chosen) return;
    const [oldSide, newSide] = subjectIsNew ? [chosen, subject] : [subject, chosen];
    setRunning(true);
    setError(null);
    try {
      const changes = await backend.interfaceDiff(oldSide.side, newSide.side);
      setCompared({ old: oldSide.label, new: newSide.label, changes });
      setPicked(0);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  };

  const change = compared?.changes[picked] ?? null;
  return (
    <div className="dialog-backdrop" onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <div className="dialog diff-dialog" role="dialog" aria-label="Diff interfaces">
        <h2>Diff interfaces</h2>
        <div className="diff-sides">
          <span>
            {subjectIsNew ? "New" : "Old"}: <strong>{subject.label}</strong>
          </span>
          <label>
            {subjectIsNew ? "Old" : "New"}
            <select aria-label="The other side" value={other} onChange={(e) => void choose(e.target.value)}>
              <option value="" disabled>
                Choose what to diff against…
              </option>
              {groups.map((g) => (
                <optgroup key={g} label={g}>
                  {options
                    .filter((o) => o.group === g)
                    .map((o) => (
                      <option key={o.value} value={o.value}>
                        {o.label}
                      </option>
                    ))}
                </optgroup>
              ))}
              <option value={CHOOSE_FILE}>A snapshot or session file…</option>
            </select>
          </label>
          <button type="button" onClick={() => setSubjectIsNew((n) => !n)} title="Swap which side is old and which new">
            Swap old and new
          </button>
          <button type="button" className="primary" disabled={!chosen || running} onClick={() => void compare()}>
            {running ? "Diffing…" : "Diff"}
          </button>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {compared && (
          <>
            <p role="status" aria-label="Comparison">
              From <strong>{compared.old}</strong> to <strong>{compared.new}</strong>: {tally(compared.changes)}
            </p>
            <div className="diff-body">
              <div className="diff-changes" aria-label="Changes">
                {VERDICTS.map(([verdict, heading]) => {
                  const group = compared.changes
                    .map((c, i) => [c, i] as const)
                    .filter(([c]) => c.change.severity === verdict);
                  if (group.length === 0) return null;
                  return (
                    <section key={verdict}>
                      <h3 className={`verdict ${verdict}`}>
                        {heading} ({group.length})
                      </h3>
                      {group.map(([c, i]) => (
                        <button
                          key={i}
                          type="button"
                          className="change"
                          aria-pressed={i === picked}
                          onClick={() => setPicked(i)}
                        >
                          <span className="mono">{c.change.path}</span>: {c.change.detail}
                        </button>
                      ))}
                    </section>
                  );
                })}
              </div>
              {change && (
                <SideBySide
                  label={`Definition of ${change.definition}`}
                  panes={(
                    [
                      ["Old", compared.old, change.old],
                      ["New", compared.new, change.new],
                    ] as const
                  ).map(([which, label, definition]) => ({
                    heading: (
                      <>
                        {which}: {change.definition} <span className="muted">({label})</span>
                      </>
                    ),
                    name: `${which} definition`,
                    value: definition?.value ?? null,
                    marks: definition ? [definition.at] : [],
                    missing: `Not in the ${which.toLowerCase()} interface.`,
                  }))}
                />
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
