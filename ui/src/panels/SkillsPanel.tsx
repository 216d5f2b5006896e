// A line's skills (the Skills extension, SEP-2640), where the server declares it: each skill's
// name, description, SKILL.md URI and files as `skills/list` gave them (every page, no file read),
// with what the core found wrong with its entry; choosing one opens it (skills/SkillView).
import { useEffect, useState } from "react";
import { backend, errorText, type ConnectionState, type SkillEntry } from "../ipc";
import { ErrorBoundary } from "../components/ErrorBoundary";
import { SkillView } from "./skills/SkillView";
import { NotReady, Stopped, useLine } from "./line";

export function SkillsPanel({ line }: { line: ConnectionState }) {
  const view = useLine(line);
  const { conn, ready, server } = view;
  const [skills, setSkills] = useState<SkillEntry[] | null>(null);
  const [stopped, setStopped] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [listed, setListed] = useState(0);
  const declared = server?.skills ?? null;
  useEffect(() => {
    if (!ready || !declared) return;
    let current = true;
    backend.skillsList(conn).then(
      (l) => current && (setSkills(l.skills), setStopped(l.stopped), setError(null)),
      (e) => current && (setSkills(null), setError(errorText(e))),
    );
    return () => {
      current = false;
    };
  }, [conn, ready, declared, listed]);
  const skill = skills?.find((s) => s.uri === chosen) ?? null;
  return (
    <div className="tools">
      <div className="tool-list">
        <header>
          <h2>Skills</h2>
          <button onClick={() => setListed((n) => n + 1)} disabled={!ready || !declared}>
            Refresh
          </button>
        </header>
        <NotReady line={line} what="Skills" />
        {server && !declared && (
          <p className="muted">The server does not declare the Skills extension (io.modelcontextprotocol/skills).</p>
        )}
        {error && (
          <p className="error" role="alert">
            skills/list failed: {error}
          </p>
        )}
        {stopped && <Stopped why={stopped} />}
        {skills === null && !error && ready && declared && <p className="muted">Listing skills…</p>}
        {skills?.length === 0 && <p className="muted">The server lists no skills.</p>}
        <ul aria-label="Skills">
          {skills?.map((s) => (
            <li key={s.uri} className={s.uri === chosen ? "selected" : ""}>
              <button className="tool" onClick={() => setChosen(s.uri)}>
                <strong>{s.name ?? "(no name)"}</strong>
                <code>{s.uri}</code>
                <span className="desc">{s.description}</span>
                <span className="badges">
                  <span className="badge">
                    {s.files ? `${s.files.length} file${s.files.length === 1 ? "" : "s"}` : "files: dynamic"}
                  </span>
                  {s.invalid && <span className="badge bad">invalid</span>}
                  {s.problems.length > 0 && (
                    <span className="badge bad">
                      {s.problems.length} problem{s.problems.length === 1 ? "" : "s"}
                    </span>
                  )}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {skill === null || declared === null ? (
        <div className="empty">Choose a skill to read its SKILL.md and check its files.</div>
      ) : (
        <ErrorBoundary key={skill.uri} name="skill">
          <SkillView view={view} skill={skill} directoryRead={declared.directoryRead} />
        </ErrorBoundary>
      )}
    </div>
  );
}
