// How entries read in the log: glyphs, sizes, times, summaries, and bytes shown exactly.
import type { Entry } from "../ipc/bindings";

export const GLYPH: Record<string, string> = { out: ">", in: "<", meta: "*" };

export function formatMs(ms: number): string {
  return ms < 10_000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(3)} s`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The recorded bytes of an entry. */
export function entryBytes(e: Entry): Uint8Array {
  if (e.text != null) return new TextEncoder().encode(e.text);
  if (e.base64 != null) return Uint8Array.from(atob(e.base64), (c) => c.charCodeAt(0));
  return new Uint8Array();
}

/**
 * The bytes as text exactly: valid UTF-8 as it is, every invalid byte as `\xNN`, so nothing
 * is hidden or replaced.
 */
export function showBytes(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  while (i < bytes.length) {
    let end = bytes.length;
    for (; end > i; end--) {
      try {
        out += decoder.decode(bytes.subarray(i, end));
        break;
      } catch {
        /* shrink until the prefix is valid */
      }
    }
    if (end === i) {
      out += `\\x${bytes[i].toString(16).padStart(2, "0")}`;
      i += 1;
    } else {
      i = end;
    }
  }
  return out;
}

/** ESC [ … m: a colour code, as a pty writes them into stderr. */
// eslint-disable-next-line no-control-regex -- ESC is exactly what a colour code starts with
const COLOUR_CODE = /\x1b\[[0-9;]*m/g;

/** One line saying what an entry is: method and id, error code, or its text. */
export function summaryOf(e: Entry): string {
  const s = e.summary;
  if (s) {
    const parts = [
      s.method ?? "",
      s.id != null ? `#${s.id}` : "",
      s.type === "error" ? `error ${s.error_code ?? ""}` : s.type === "result" ? "result" : "",
    ];
    return parts.filter(Boolean).join(" ");
  }
  if (e.detail) return e.detail;
  const text = e.text ?? (e.base64 ? `base64 ${e.base64.slice(0, 40)}` : "");
  return text.replace(COLOUR_CODE, "").replace(/\s+/g, " ").slice(0, 200);
}

export function sizeOf(e: Entry): number {
  if (e.text != null) return new TextEncoder().encode(e.text).length;
  if (e.base64 != null) return Math.floor((e.base64.length * 3) / 4);
  return 0;
}

/** Pretty JSON of an entry's text when it is JSON, else null. */
export function prettyJson(e: Entry): string | null {
  if (e.text == null) return null;
  try {
    return JSON.stringify(JSON.parse(e.text), null, 2);
  } catch {
    return null;
  }
}
