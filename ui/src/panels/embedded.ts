// A resource embedded in a tool result or a prompt (`{type: "resource", resource}`), read as the
// core reads an item of a `resources/read` (features/resources.rs, `content_view`) so both are
// shown alike by ContentsView: text as text (JSON pretty), images and audio by their MIME type,
// and, past what a read does, a blob of text (text/*, JSON) decoded to be read. The core reads
// only `resources/read` this way; a tool result reaches the window as the server sent it.
import type { ContentView } from "../ipc";

export interface Embedded {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** `resource` as a content item, or why it cannot be read. */
export function embeddedView(resource: Embedded): ContentView | { problem: string } {
  const mimeType = typeof resource.mimeType === "string" ? resource.mimeType : null;
  const essence = (mimeType ?? "").toLowerCase().split(";")[0].trim();
  const isJson = essence === "application/json" || essence.endsWith("+json");
  const item = { uri: resource.uri, mimeType, text: null, blob: null };
  if (typeof resource.text === "string") {
    const size = new TextEncoder().encode(resource.text).length;
    const pretty = isJson ? prettyJson(resource.text) : null;
    return pretty === null
      ? { ...item, kind: "text", text: resource.text, size }
      : { ...item, kind: "json", text: pretty, size };
  }
  const blob = resource.blob ?? "";
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(blob.trim()), (c) => c.charCodeAt(0));
  } catch {
    return { problem: "the blob is not base64" };
  }
  const withBlob = { ...item, blob, size: bytes.length };
  if (essence.startsWith("image/")) return { ...withBlob, kind: "image" };
  if (essence.startsWith("audio/")) return { ...withBlob, kind: "audio" };
  if (essence.startsWith("text/") || isJson) {
    const text = utf8(bytes);
    if (text !== null) {
      const pretty = isJson ? prettyJson(text) : null;
      return pretty === null ? { ...withBlob, kind: "text", text } : { ...withBlob, kind: "json", text: pretty };
    }
  }
  return { ...withBlob, kind: "binary" };
}

function prettyJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}

/** The bytes as UTF-8 text, or `null` when they are not UTF-8. */
function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}
