// How entries read in the log: glyphs, sizes, times, summaries, and bytes shown exactly.
import type { Entry, SessionInfo_Serialize as SessionInfo } from "../ipc/bindings";

export const GLYPH: Record<string, string> = { out: ">", in: "<", meta: "*" };

// Times as the contracts write them, the window's one formatter: a time of day as local
// `HH:MM:SS.mmm`, a duration as `0.4 ms`, `12 ms`, `1.25 s`, `2 min 5 s`.

/** A duration in milliseconds: tenths under 10 ms, whole milliseconds under a second,
 * hundredths of a second under a minute, then minutes and seconds (hours and minutes past an hour). */
export function formatDuration(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 59_995) return `${(ms / 1000).toFixed(2)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A moment (ISO 8601) as the local time of day, `HH:MM:SS.mmm`; text that does not parse is
 * shown as written, so the window never shows a time it made up. */
export function formatTimeOfDay(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** When a session started, in the person's time zone: `2026-11-30 14:03:12`. */
export function formatStarted(rfc3339: string): string {
  const at = new Date(rfc3339);
  if (Number.isNaN(at.getTime())) return rfc3339;
  const two = (n: number) => String(n).padStart(2, "0");
  const date = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  return `${date} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/** A session as a heading names it: `Session of 2026-11-30 14:03:12`, or the name the person gave
 * it (`sonde proxy --name`) first, quoted as `sonde sessions` quotes it: `"checkout" · session of …`. */
export function sessionTitle(s: Pick<SessionInfo, "given_name" | "started">): string {
  const at = formatStarted(s.started);
  return s.given_name ? `"${s.given_name}" · session of ${at}` : `Session of ${at}`;
}

/** A session as a sentence names it: `the session of 2026-11-30 14:03:12`, or its given name first:
 * `"checkout" (the session of …)`. */
export function sessionLabel(s: Pick<SessionInfo, "given_name" | "started">): string {
  const of = `the session of ${formatStarted(s.started)}`;
  return s.given_name ? `"${s.given_name}" (${of})` : of;
}

/** The servers a session talked to, in words, as its card says. */
export function serversOf(s: Pick<SessionInfo, "servers">): string {
  if (s.servers == null) return "servers not recorded";
  if (s.servers.length === 0) return "no server";
  return s.servers.join(", ");
}

/** The recorded bytes of an entry. */
export function entryBytes(e: Entry): Uint8Array {
  if (e.text != null) return new TextEncoder().encode(e.text);
  if (e.base64 != null) return Uint8Array.from(atob(e.base64), (c) => c.charCodeAt(0));
  return new Uint8Array();
}

/** The UTF-16 code units of `\xNN` for each byte value, made once. */
const ESCAPES = Array.from({ length: 256 }, (_, b) =>
  Array.from(`\\x${b.toString(16).padStart(2, "0")}`, (c) => c.charCodeAt(0)),
);

/** Whether `b[i]` exists and is in `lo..=hi` (a continuation byte by default). */
function inRange(b: Uint8Array, i: number, lo = 0x80, hi = 0xbf): boolean {
  return i < b.length && b[i] >= lo && b[i] <= hi;
}

/**
 * How many bytes the well-formed UTF-8 sequence at `i` takes (Unicode's table 3-7: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 when none starts there.
 */
function sequenceAt(b: Uint8Array, i: number): number {
  const lead = b[i];
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return inRange(b, i + 1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const second = inRange(b, i + 1, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf);
    return second && inRange(b, i + 2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const second = inRange(b, i + 1, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf);
    return second && inRange(b, i + 2) && inRange(b, i + 3) ? 4 : 0;
  }
  return 0;
}

/** How many UTF-16 code units are turned into a string at a time. */
const CHUNK = 1 << 16;

/**
 * The bytes as text exactly: valid UTF-8 as it is (a byte-order mark included), every byte
 * that is not part of a well-formed sequence as `\xNN`, so nothing is hidden or replaced.
 * One pass that looks at each byte once and decodes by hand what it has just found well formed
 * (a decoder called per valid run would cost a call per run on text that alternates).
 */
export function showBytes(bytes: Uint8Array): string {
  const parts: string[] = [];
  // ignoreBOM: a leading U+FEFF is text to show, not a mark to drop.
  const utf16 = new TextDecoder("utf-16le", { ignoreBOM: true });
  // Room for a chunk and the longest thing written at once (an escape: 4 units).
  const units = new Uint16Array(CHUNK + 4);
  let n = 0;
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const length = sequenceAt(bytes, i);
    if (length === 1) units[n++] = b;
    else if (length === 2) units[n++] = ((b & 0x1f) << 6) | (bytes[i + 1] & 0x3f);
    else if (length === 3) units[n++] = ((b & 0x0f) << 12) | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f);
    else if (length === 4) {
      const above =
        (((b & 0x07) << 18) | ((bytes[i + 1] & 0x3f) << 12) | ((bytes[i + 2] & 0x3f) << 6) | (bytes[i + 3] & 0x3f)) -
        0x10000;
      units[n++] = 0xd800 + (above >> 10);
      units[n++] = 0xdc00 + (above & 0x3ff);
    } else {
      units.set(ESCAPES[b], n);
      n += 4;
    }
    i += Math.max(length, 1);
    if (n >= CHUNK) {
      parts.push(utf16.decode(units.subarray(0, n)));
      n = 0;
    }
  }
  parts.push(utf16.decode(units.subarray(0, n)));
  return parts.join("");
}

/** ESC [ … m: a colour code, as a pty writes them into stderr. */
// eslint-disable-next-line no-control-regex -- ESC is exactly what a colour code starts with
const COLOUR_CODE = /\x1b\[[0-9;]*m/g;

/** How long a row lets a target (a tool's, prompt's or resource's name) be before it is cut, so
 * the request id after it always shows. */
const ROW_TARGET = 24;

/** One line saying what an entry is: method, what it names (a tool, prompt or resource) and id
 * (`#` is only ever a JSON-RPC id), error code, or its text: `tools/call echo #3 result`.
 * `short` cuts a long target (the row's width would otherwise hide the id after it); the row's
 * tooltip and the detail show it whole. */
export function summaryOf(e: Entry, short = false): string {
  const s = e.summary;
  if (s) {
    const target = s.target ?? "";
    const id = s.id != null ? `#${s.id}` : "";
    const outcome = s.type === "error" ? `error ${s.error_code ?? ""}` : s.type === "result" ? "result" : "";
    // A row's column is narrow: the id and outcome go before a long name, which the column clips.
    const parts = short
      ? [s.method ?? "", id, outcome, target.length > ROW_TARGET ? `${target.slice(0, ROW_TARGET - 1)}…` : target]
      : [s.method ?? "", target, id, outcome];
    return parts.filter(Boolean).join(" ");
  }
  if (e.detail) return e.detail;
  const text = e.text ?? (e.base64 ? `base64 ${e.base64.slice(0, 40)}` : "");
  return text.replace(COLOUR_CODE, "").replace(/\s+/g, " ").slice(0, 200);
}

/** The size of an entry's payload: the whole of it, when the entry is a preview. */
export function sizeOf(e: Entry): number {
  if (e.whole_size != null) return Number(e.whole_size);
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
