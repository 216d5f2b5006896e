// Generated from the Rust types by src-tauri (bindings.rs); do not edit.
// Regenerate: SONDE_UPDATE_BINDINGS=1 cargo test -p sonde-desktop --test bindings

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;

export type SavedServer = { id: string, name: string, 
/**
 * The command line as typed; split with shell-words rules when it is started.
 */
command: string, 
/**
 * The URL of an HTTP server; when set, `command`, `env` and `cwd` are not used.
 */
url?: string | null, headers?: Array<Header>, 
/**
 * Directories offered to the server as roots (`roots/list`).
 */
roots?: Array<string>, env: Array<EnvVar>, cwd: string | null, era: EraPolicy, timeoutMs: number | null, graceStdinMs: number | null, graceTermMs: number | null, };

export type EnvVar = { key: string, value: string, };

export type Header = { name: string, value: string, secret: boolean, };

export type Imported = { servers: Array<SavedServer>, skipped: Array<string>, };

export type EraPolicy = "auto" | "legacy" | "modern";

export type Era = "legacy" | "modern";

export type ServerDescription = { protocolVersion: string, era: Era, 
/**
 * The evidence for the version, in words: "server/discover",
 * "server/discover answered -32601; initialize", "cached verdict; server/discover".
 */
decidedBy: string, serverInfo: JsonValue, capabilities: JsonValue, instructions: string | null, 
/**
 * 2026-07-28 discover results are cacheable: how long, and for whom.
 */
ttlMs: number | null, cacheScope: string | null, };

export type Entry = { seq: number, 
/**
 * Wall-clock time, RFC 3339 with milliseconds.
 */
time: string, 
/**
 * Milliseconds since the session started, from a monotonic clock.
 */
ms: number, 
/**
 * The connection this entry belongs to (0 for the session itself).
 */
conn: number, kind: Kind, dir: Direction, 
/**
 * The bytes, when they are UTF-8.
 */
text?: string | null, 
/**
 * The bytes, base64-encoded, when they are not UTF-8.
 */
base64?: string | null, summary?: Summary | null, 
/**
 * The seq of the request this entry answers.
 */
answers?: number | null, 
/**
 * Milliseconds between the request and this reply.
 */
latency_ms?: number | null, 
/**
 * Human words: a decode error, a lifecycle step, a note.
 */
detail?: string | null, lifecycle?: Lifecycle | null, 
/**
 * True for frames of the era probe, so the transcript says why an era was chosen.
 */
probe?: boolean, http?: HttpInfo | null, };

export type Kind = "message" | "non_protocol" | "decode_error" | "batch" | "truncated" | "stderr" | "lifecycle" | "note" | "http";

export type Direction = "out" | "in" | "meta";

export type Summary = { 
/**
 * `request`, `notification`, `result` or `error`.
 */
type: string, method?: string | null, 
/**
 * The id as JSON text, so `1` and `"1"` stay different.
 */
id?: string | null, error_code?: number | null, };

export type HttpInfo = { 
/**
 * The exchange (one HTTP request and its response) this entry belongs to.
 */
exchange: number, 
/**
 * The request method and URL, on the entry that records the request.
 */
method?: string | null, url?: string | null, 
/**
 * The response status, on the entry that records the response head.
 */
status?: number | null, headers?: Array<[string, string]>, 
/**
 * The SSE fields of the event this entry came in.
 */
sse_id?: string | null, sse_event?: string | null, sse_retry?: number | null, };

export type Page = { entries: Array<Entry>, 
/**
 * The seq to ask for next, or `None` when the range was read to its end.
 */
next: number | null, };

export type FilterView = { chips: Array<FilterChip>, error: string | null, };

export type FilterChip = { key: FilterKey, 
/**
 * The value as the filter holds it: kinds joined by commas, `in`/`out`/`meta`, the text
 * lowercased.
 */
value: string, 
/**
 * The expression without this condition's terms, the others kept as they were typed.
 */
without: string, };

export type FilterKey = "kind" | "dir" | "conn" | "method" | "id" | "text";

export type Lifecycle = { "event": "spawned", pid: number, command: string, } | { "event": "spawn_failed", command: string, error: string, } | { "event": "stdout_closed" } | { "event": "stdin_closed", grace_ms: number, } | { "event": "signalled", signal: Signal, pgid: number, reason: string, } | { "event": "exited" } & ExitInfo | { "event": "group_gone", pgid: number, } | { "event": "group_stuck", pgid: number, pids: Array<number>, };

export type Signal = "SIGTERM" | "SIGKILL";

export type ExitInfo = { code?: number | null, 
/**
 * The signal number that ended it.
 */
signal?: number | null, 
/**
 * The shutdown step Sonde had reached when it ended, if Sonde was stopping it.
 */
during?: string | null, };

export type OutputCheck = { "verdict": "valid" } | { "verdict": "invalid", errors: Array<string>, } | { "verdict": "missing" } | { "verdict": "bad_schema", error: string, };

export type ErrorCode = "not_found" | "bad_input" | "io" | "spawn_failed" | "connect_failed" | "rpc_error" | "timeout" | "cancelled" | "server_gone" | "http_status" | "unreachable" | "too_large" | "protocol";

export type ErrorDto = { 
/**
 * What kind of failure, from the core's one list of codes: a core error says its own,
 * and the checks made here use `bad_input`, `not_found` and `io`.
 */
code: ErrorCode, message: string, };

export type ConnectionDto = { id: number, serverId: string, name: string, pid: number | null, server: ServerDescription, };

export type ConnectStage = { id: number, stage: Stage, };

export type Stage = "spawning" | "connecting" | "probing" | "initializing" | "discovering";

export type CallOutcome = { result: unknown, 
/**
 * No verdict when the tool declares no `outputSchema`, or the result is an error result.
 */
check: OutputCheck | null, };

export type LogBatch = { entries: Array<Entry>, 
/**
 * Entries that went by too fast to stream; the UI reads them by page.
 */
skipped: number, };

export type ServerQuestion = { 
/**
 * Names the question in the answer.
 */
qid: number, 
/**
 * The connection that asked.
 */
conn: number, method: string, params: JsonValue, };
