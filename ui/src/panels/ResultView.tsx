// A CallToolResult: every content kind, structuredContent with its outputSchema verdict, and
// isError shown as a tool error rather than a crash. What the core found wrong with its shape is
// listed first; a part of the wrong shape is shown as JSON rather than read. Each block shows its
// annotations; a resource link opens in the line's Resources panel; an embedded resource is shown
// as a read's item is (by MIME type, its blob saved with Save as…).
import type { CallOutcome, EmbeddedView, JsonValue } from "../ipc";
import { Problems } from "../components/Problems";
import { Annotations, annotationWords } from "./Annotations";
import { ContentBlock } from "./ContentsView";
import { ImageView } from "./ImageView";
import { useOpenResource } from "../layout/navigate";

type Block = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const texts = (b: Record<string, unknown>, keys: string[]) => keys.every((k) => typeof b[k] === "string");

/** A block whose fields have the kinds its type needs; anything else is `null` and shown as JSON. */
function readable(b: unknown): Block | null {
  if (!isObject(b) || typeof b.type !== "string") return null;
  const needs: Record<string, string[]> = {
    text: ["text"],
    image: ["data", "mimeType"],
    audio: ["data", "mimeType"],
    resource_link: ["uri"],
  };
  // An embedded resource is read by the core (`outcome.embedded`), which says what is wrong.
  if (b.type === "resource") return b as Block;
  return needs[b.type] && texts(b, needs[b.type]) ? (b as Block) : null;
}

/** `line`: the line the result came from, whose Resources panel opens its links (none: no Open). */
export function ResultView({ outcome, line }: { outcome: CallOutcome; line?: number }) {
  const result = (isObject(outcome.result) ? outcome.result : {}) as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
  };
  const check = outcome.check;
  const content = Array.isArray(result.content) ? result.content : [];
  return (
    <div className={`result ${result.isError === true ? "tool-error" : ""}`} aria-label="Tool result">
      {result.isError === true && <p className="error-title">The tool reported an error (isError: true)</p>}
      {outcome.problems.length > 0 && (
        <>
          <p className="error-title">The result is malformed:</p>
          <Problems problems={outcome.problems} what="the result" />
        </>
      )}
      {content.length === 0 && outcome.problems.length > 0 && (
        <pre className="mono" aria-label="The result as received">
          {JSON.stringify(outcome.result, null, 2)}
        </pre>
      )}
      {content.map((raw, i) => (
        <div className="block" key={i}>
          <BlockView raw={raw} line={line} embedded={outcome.embedded.find((e) => e.index === i)} />
        </div>
      ))}
      {result.structuredContent !== undefined && outcome.structured_in_text && (
        <p className="muted" aria-label="structuredContent">
          structuredContent repeats the text above, so it is not shown again.
        </p>
      )}
      {result.structuredContent !== undefined && !outcome.structured_in_text && (
        <div className="block">
          <h4>structuredContent</h4>
          <pre className="mono">{JSON.stringify(result.structuredContent, null, 2)}</pre>
        </div>
      )}
      {check && (
        <p className={`verdict ${check.verdict}`}>
          {check.verdict === "valid" && "✓ structuredContent matches the outputSchema"}
          {check.verdict === "invalid" &&
            `✗ does not match the outputSchema: ${"errors" in check ? check.errors.join("; ") : ""}`}
          {check.verdict === "missing" && "✗ the tool has an outputSchema but the result has no structuredContent"}
          {check.verdict === "bad_schema" && `the outputSchema cannot be used: ${"error" in check ? check.error : ""}`}
        </p>
      )}
    </div>
  );
}

/** One content block with its annotations, or its JSON when it is not of a shape Sonde reads.
 * `line`: where a resource link opens; `embedded`: the core's reading of an embedded resource. */
export function BlockView({ raw, line, embedded }: { raw: unknown; line?: number; embedded?: EmbeddedView }) {
  const b = readable(raw);
  if (b === null) return <pre className="mono">{JSON.stringify(raw, null, 2)}</pre>;
  return (
    <>
      {annotationWords(raw).length > 0 && (
        <p className="annotations" aria-label="Annotations">
          <Annotations item={raw} />
        </p>
      )}
      <BlockBody b={b} raw={raw} line={line} embedded={embedded} />
    </>
  );
}

function BlockBody({ b, raw, line, embedded }: { b: Block; raw: unknown; line?: number; embedded?: EmbeddedView }) {
  const open = useOpenResource();
  const word = (v: unknown) => (typeof v === "string" ? v : "");
  if (b.type === "text") return <pre className="mono">{b.text}</pre>;
  if (b.type === "image") return <ImageView alt="tool image" mimeType={b.mimeType ?? "image"} data={b.data ?? ""} />;
  if (b.type === "audio") return <audio controls src={`data:${b.mimeType};base64,${b.data}`} />;
  if (b.type === "resource_link")
    return (
      <div className="resource-link" aria-label={`Resource link ${b.uri}`}>
        <p>
          Resource link: <strong>{word(b.title) || word(b.name)}</strong> <code>{b.uri}</code>{" "}
          {word(b.mimeType) && <span className="badge">{word(b.mimeType)}</span>}
        </p>
        {word(b.description) && <p className="muted">{word(b.description)}</p>}
        {open && line !== undefined && (
          <button title="Show the Resources panel and read this URI there" onClick={() => open(line, raw as JsonValue)}>
            Open in Resources
          </button>
        )}
      </div>
    );
  const uri = isObject(b.resource) && typeof b.resource.uri === "string" ? b.resource.uri : "";
  return (
    <div className="embedded" aria-label={`Embedded resource ${uri}`}>
      <p>Embedded resource</p>
      {embedded?.view ? (
        <ContentBlock item={embedded.view} />
      ) : (
        <>
          <p className="error">
            <code>{uri}</code>: {embedded?.problem ?? "not read"}
          </p>
          <pre className="mono">{JSON.stringify(raw, null, 2)}</pre>
        </>
      )}
    </div>
  );
}
