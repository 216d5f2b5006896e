// One skill: its entry (URI, description, what the core found wrong with it), its files as a tree
// (the server's directory reads where it declares `directoryRead`, the entry's list otherwise),
// each file's verdict once read, a check of every listed file at once, and the file chosen
// (SKILL.md first, read as the skill opens). Every verdict is the core's.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, errorText, type SkillEntry, type SkillFileRead } from "../../ipc";
import { Problems } from "../../components/Problems";
import type { LineView } from "../line";
import { FileView } from "./FileView";
import { listedChildren, readChildren, rootOf, type Node } from "./tree";

/** A file's read, or why it could not be read. */
export type Read = { read: SkillFileRead } | { error: string };

/** A file's mark in the tree: ✓ verified, ✗ not what the entry lists, ? nothing to check it
 * against (the entry does not list it), ! not read. */
export function markOf(read: Read | undefined): { mark: string; words: string } | null {
  if (!read) return null;
  if ("error" in read) return { mark: "!", words: `not read: ${read.error}` };
  if (read.read.verified) return { mark: "✓", words: "verified" };
  if (read.read.check.verdict === "unlisted" && read.read.frontmatter.length === 0)
    return { mark: "?", words: "not in the entry's list: nothing to verify it against" };
  return { mark: "✗", words: "does not match its entry" };
}

export function SkillView({
  view,
  skill,
  directoryRead,
}: {
  view: LineView;
  skill: SkillEntry;
  directoryRead: boolean;
}) {
  const [reads, setReads] = useState<Record<string, Read>>({});
  const [open, setOpen] = useState(skill.uri);
  const [checking, setChecking] = useState<{ done: number; of: number } | null>(null);
  const read = useCallback(
    (uri: string): Promise<void> =>
      backend.skillRead(view.conn, skill, uri).then(
        (r) => setReads((all) => ({ ...all, [uri]: { read: r } })),
        (e) => setReads((all) => ({ ...all, [uri]: { error: errorText(e) } })),
      ),
    [view.conn, skill],
  );
  // The file opened is read once as it opens; "Read again" and "Verify all" read on request.
  const opened = useRef(new Set<string>());
  useEffect(() => {
    if (!view.ready || opened.current.has(open)) return;
    opened.current.add(open);
    void read(open);
  }, [view.ready, open, read]);
  const checkAll = async () => {
    const files = skill.files ?? [];
    for (const [i, f] of files.entries()) {
      setChecking({ done: i, of: files.length });
      await read(f.uri);
    }
    setChecking(null);
  };
  const listed = skill.files ?? [];
  const failed = listed.filter((f) => reads[f.uri] && markOf(reads[f.uri])?.mark !== "✓").length;
  const checked = listed.filter((f) => reads[f.uri]).length;
  return (
    <div className="tool-call skill">
      <header>
        <h2>{skill.name ?? "(no name)"}</h2>
        <code>{skill.uri}</code>
      </header>
      <p className="muted">{skill.description}</p>
      {skill.invalid && (
        <p className="error" role="alert">
          ✗ A host must not load this skill: {skill.invalid}.
        </p>
      )}
      <Problems problems={skill.problems} what="the skill's entry" />
      <div className="skill-body">
        <nav className="skill-files" aria-label="Skill files">
          <p className="skill-check">
            {skill.files ? (
              <button onClick={checkAll} disabled={!view.ready || checking !== null}>
                Verify all files
              </button>
            ) : (
              <span className="muted">The server lists this skill's files as dynamic: only a read file is known.</span>
            )}
          </p>
          <p className="muted" role="status">
            {checking
              ? `Verifying ${checking.done + 1} of ${checking.of}…`
              : checked > 0 && skill.files
                ? failed > 0
                  ? `✗ ${failed} of the ${checked} files read ${failed === 1 ? "differs" : "differ"} from the entry`
                  : `✓ ${checked} of ${listed.length} verified`
                : ""}
          </p>
          <Directory
            view={view}
            skill={skill}
            uri={rootOf(skill)}
            directoryRead={directoryRead}
            reads={reads}
            open={open}
            onOpen={setOpen}
          />
        </nav>
        <FileView key={open} skill={skill} uri={open} read={reads[open]} onOpen={setOpen} onRead={() => read(open)} />
      </div>
    </div>
  );
}

interface DirectoryProps {
  view: LineView;
  skill: SkillEntry;
  uri: string;
  directoryRead: boolean;
  reads: Record<string, Read>;
  open: string;
  onOpen: (uri: string) => void;
}

/** A directory's children, listed from the entry or read from the server as it is opened. */
function Directory(props: DirectoryProps) {
  const { view, skill, uri, directoryRead } = props;
  const [children, setChildren] = useState<Node[] | null>(directoryRead ? null : listedChildren(skill, uri));
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!directoryRead || !view.ready) return;
    let current = true;
    backend.skillDirectory(view.conn, uri).then(
      (c) => current && setChildren(readChildren(c, skill.uri)),
      (e) => current && setError(errorText(e)),
    );
    return () => {
      current = false;
    };
  }, [directoryRead, view.ready, view.conn, uri, skill.uri]);
  if (error) return <p className="error">resources/directory/read failed: {error}</p>;
  if (children === null) return <p className="muted">Reading the directory…</p>;
  if (children.length === 0) return <p className="muted">(empty)</p>;
  return (
    <ul className="tree">
      {children.map((n) =>
        n.dir ? <Folder key={n.uri} node={n} {...props} /> : <File key={n.uri} node={n} {...props} />,
      )}
    </ul>
  );
}

function Folder({ node, ...props }: DirectoryProps & { node: Node }) {
  const [expanded, setExpanded] = useState(false);
  return (
    <li>
      <button className="tree-item" aria-expanded={expanded} onClick={() => setExpanded((e) => !e)}>
        {expanded ? "▾" : "▸"} {node.name}/
      </button>
      {expanded && <Directory {...props} uri={node.uri} />}
    </li>
  );
}

function File({ node, reads, open, onOpen }: DirectoryProps & { node: Node }) {
  const mark = markOf(reads[node.uri]);
  return (
    <li className={node.uri === open ? "selected" : ""}>
      <button className="tree-item" onClick={() => onOpen(node.uri)} aria-current={node.uri === open}>
        <span className={`mark ${mark?.mark === "✓" ? "ok" : mark ? "bad" : ""}`} title={mark?.words ?? "not read yet"}>
          {mark?.mark ?? "·"}
        </span>{" "}
        {node.name}
      </button>
    </li>
  );
}
