// A resource read as the core read it: each item by its kind. Text is shown as text whatever its
// MIME type (Markdown and HTML as source, never rendered), JSON pretty, images and audio inline,
// other bytes as their size; every blob can be saved (Save as…). A resource embedded in a tool
// result or a prompt is shown by the same ContentBlock (the core reads it: `CallOutcome.embedded`).
import { useState } from "react";
import { backend, errorText, type ContentView, type ReadView } from "../ipc";
import { Problems } from "../components/Problems";
import { bytes, ImageView } from "./ImageView";

export function ContentsView({ read }: { read: ReadView }) {
  return (
    <div className="result" aria-label="Resource contents">
      {read.problems.length > 0 && (
        <>
          <p className="error-title">The result is malformed:</p>
          <Problems problems={read.problems} what="the read" />
          <pre className="mono" aria-label="The result as received">
            {JSON.stringify(read.result, null, 2)}
          </pre>
        </>
      )}
      {read.contents.map((c, i) => (
        <div className="block" key={i}>
          <ContentBlock item={c} />
        </div>
      ))}
    </div>
  );
}

/** One content item: its URI, MIME type and size, then the item by its kind. */
export function ContentBlock({ item }: { item: ContentView }) {
  return (
    <>
      <p className="muted">
        <code>{item.uri}</code> {item.mimeType ?? "(no MIME type)"} · {bytes(item.size)}
        {item.kind === "json" && " · JSON, pretty-printed"}
        {item.kind !== "binary" && item.text != null && item.blob != null && " · decoded from its blob"}
      </p>
      <Content item={item} />
    </>
  );
}

function Content({ item }: { item: ContentView }) {
  const save = item.blob != null && <SaveBlob item={item} />;
  if (item.kind === "text" || item.kind === "json")
    return (
      <>
        <pre className="mono">{item.text}</pre>
        {save}
      </>
    );
  if (item.kind === "image")
    return (
      <>
        <ImageView alt={item.uri ?? "resource image"} mimeType={item.mimeType ?? "image"} data={item.blob ?? ""} />
        {save}
      </>
    );
  if (item.kind === "audio")
    return (
      <>
        <audio controls src={`data:${item.mimeType};base64,${item.blob}`} />
        {save}
      </>
    );
  return (
    <>
      <p>
        {bytes(item.size)} of {item.mimeType ?? "bytes"}, not shown.
      </p>
      {save}
    </>
  );
}

/** Save as…: the bytes of a blob written where the person says (the backend never overwrites). */
function SaveBlob({ item }: { item: ContentView }) {
  const [said, setSaid] = useState<string | null>(null);
  const suggested = (item.uri ?? "resource").split(/[/:]/).filter(Boolean).pop() ?? "resource";
  return (
    <p className="save-blob">
      <button
        onClick={() => {
          const path = window.prompt("Save the bytes to (a relative name goes in your Downloads folder):", suggested);
          if (path)
            backend.resourceSave(path, item.blob ?? "").then(
              (written) => setSaid(`Saved to ${written}`),
              (e) => setSaid(errorText(e)),
            );
        }}
      >
        Save as…
      </button>{" "}
      {said && <span role="status">{said}</span>}
    </p>
  );
}
