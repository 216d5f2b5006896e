// A skill's file as read, under the core's verdict on it: ✓ when its size and digest (and, for
// SKILL.md, its frontmatter) are the entry's; on a mismatch, a clear ✗ with both values, and the
// content held back until the person asks for it, marked unverified. SKILL.md's instructions are
// rendered as Markdown (no HTML, no remote image; a link to a file of the skill opens it here)
// beside the entry's frontmatter; another file as text, or by its size when it is bytes. Any file
// can be saved.
import { lazy, Suspense, useState, type ReactNode } from "react";
import { backend, errorText, type FileCheck, type JsonValue, type SkillEntry, type SkillFileRead } from "../../ipc";
import { bytes } from "../ImageView";
import type { Read } from "./SkillView";
import { linkedUri, rootOf } from "./tree";

// The Markdown renderer is loaded the first time a SKILL.md is shown, not with the window.
const Markdown = lazy(() => import("react-markdown"));

interface Props {
  skill: SkillEntry;
  uri: string;
  read: Read | undefined;
  onOpen: (uri: string) => void;
  onRead: () => void;
}

export function FileView({ skill, uri, read, onOpen, onRead }: Props) {
  const [shown, setShown] = useState(false);
  const path = uri.startsWith(`${rootOf(skill)}/`) ? uri.slice(rootOf(skill).length + 1) : uri;
  const head = (
    <header>
      <h3>{path}</h3>
      <button onClick={onRead} title="Read the file again">
        Read again
      </button>
    </header>
  );
  if (!read)
    return (
      <section className="skill-file" aria-label={`File ${path}`}>
        {head}
        <p className="muted">Reading {uri}…</p>
      </section>
    );
  if ("error" in read)
    return (
      <section className="skill-file" aria-label={`File ${path}`}>
        {head}
        <p className="error" role="alert">
          resources/read {uri} failed: {read.error}
        </p>
      </section>
    );
  const file = read.read;
  return (
    <section className="skill-file" aria-label={`File ${path}`}>
      {head}
      <p className="muted">
        <code>{file.uri}</code> {file.mimeType ?? "(no MIME type)"} · {bytes(file.size)}
      </p>
      <Verdict file={file} />
      {file.verified || shown ? (
        <>
          {!file.verified && (
            <p className="banner unverified" role="status">
              Unverified content: shown as the server sent it, not as the entry describes it.
            </p>
          )}
          <Content skill={skill} file={file} onOpen={onOpen} />
          <SaveFile file={file} name={path.split("/").pop() ?? path} />
        </>
      ) : (
        <p>
          <button onClick={() => setShown(true)}>Show the unverified content</button>
        </p>
      )}
    </section>
  );
}

/** The core's verdict on a file, both values given on a mismatch. */
function Verdict({ file }: { file: SkillFileRead }) {
  const lines: ReactNode[] = [];
  if (file.check.verdict === "verified") lines.push(<>✓ Verified: its size and sha256 digest are the entry's.</>);
  else lines.push(<Mismatch check={file.check} />);
  for (const d of file.frontmatter) lines.push(<>✗ Frontmatter: {d}</>);
  return (
    <ul className={`verdict ${file.verified ? "ok" : "bad"}`} aria-label="Verification">
      {lines.map((l, i) => (
        <li key={i}>{l}</li>
      ))}
    </ul>
  );
}

function Mismatch({ check }: { check: FileCheck }) {
  switch (check.verdict) {
    case "digest_mismatch":
      return (
        <>
          ✗ Digest mismatch: the entry lists <code>{check.listed}</code>, the file&apos;s is <code>{check.read}</code>.
        </>
      );
    case "size_mismatch":
      return (
        <>
          ✗ Size mismatch: the entry lists {check.listed} bytes, the file has {check.read}.
        </>
      );
    case "unlisted":
      return <>? Not in the skill&apos;s list of files: nothing to verify it against.</>;
    default:
      return <>✓ Verified.</>;
  }
}

function Content({ skill, file, onOpen }: { skill: SkillEntry; file: SkillFileRead; onOpen: (uri: string) => void }) {
  const [source, setSource] = useState(false);
  if (file.body != null)
    return (
      <div className="skill-md">
        <div>
          <label className="inline">
            <input type="checkbox" checked={source} onChange={(e) => setSource(e.target.checked)} /> Source
          </label>
          {source ? (
            <pre className="mono">{file.text}</pre>
          ) : (
            <article className="markdown" aria-label="SKILL.md rendered">
              <Suspense fallback={<p className="muted">Rendering…</p>}>
                <Markdown
                  components={{
                    a: ({ href, children }) => (
                      <Link skill={skill} from={file.uri} href={href} onOpen={onOpen}>
                        {children}
                      </Link>
                    ),
                    img: ({ alt, src }) => <span className="muted">[image {alt || src}: not loaded]</span>,
                  }}
                >
                  {file.body}
                </Markdown>
              </Suspense>
            </article>
          )}
        </div>
        <Frontmatter value={skill.frontmatter} />
      </div>
    );
  if (file.text != null) return <pre className="mono">{file.text}</pre>;
  return (
    <p>
      {bytes(file.size)} of {file.mimeType ?? "bytes"}, not shown.
    </p>
  );
}

/** A link in SKILL.md: one to a file of the skill opens it here; any other is shown, not followed. */
function Link({
  skill,
  from,
  href,
  onOpen,
  children,
}: {
  skill: SkillEntry;
  from: string;
  href?: string;
  onOpen: (uri: string) => void;
  children: ReactNode;
}) {
  const target = href ? linkedUri(skill, from, href) : null;
  if (target)
    return (
      <button className="link" onClick={() => onOpen(target)} title={target}>
        {children}
      </button>
    );
  return (
    <span className="external" title={href}>
      {children} {href && <small className="muted">({href})</small>}
    </span>
  );
}

/** The entry's frontmatter, field by field, as the server listed it. */
function Frontmatter({ value }: { value: JsonValue }) {
  const fields = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
  return (
    <aside className="frontmatter" aria-label="Frontmatter">
      <h4>Frontmatter (the entry&apos;s)</h4>
      <dl>
        {fields.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? v : <code>{JSON.stringify(v)}</code>}</dd>
          </div>
        ))}
      </dl>
    </aside>
  );
}

/** Save as…: the file's bytes written where the person says (the backend never overwrites). */
function SaveFile({ file, name }: { file: SkillFileRead; name: string }) {
  const [said, setSaid] = useState<string | null>(null);
  const save = () => {
    const path = window.prompt("Save the file to (a relative name goes in your Downloads folder):", name);
    if (!path) return;
    backend.skillSave(path, file).then(
      (written) => setSaid(`Saved to ${written}`),
      (e) => setSaid(`Not saved: ${errorText(e)}`),
    );
  };
  return (
    <p className="save-blob">
      <button onClick={save}>Save as…</button> {said && <span role="status">{said}</span>}
    </p>
  );
}
