// The one interface the UI talks to. `tauri.ts` implements it over IPC; `memory.ts` implements
// it in memory for UI tests and for running the UI in a plain browser.
// The types as the backend sends them. Rust serializes and deserializes some of them with
// different shapes (`#[serde(default)]` fields may be missing on the way in, never on the way
// out), so the bindings name both; the UI reads what the backend sends.
import type * as B from "./bindings";

// The core's numbers and data, generated with the bindings: the UI copies none by hand.
export { DEMO_TOOLS, MAX_OPEN, SCHEMA_MAX_DEPTH } from "./bindings";

export type CallOutcome = B.CallOutcome_Serialize;
export type Check = B.Check_Serialize;
export type Report = B.Report_Serialize;
export type RuleGroup = B.RuleGroup;
export type Completion = B.Completion_Serialize;
export type CompletionRef = B.CompletionRef;
export type CredentialView = B.CredentialView_Serialize;
export type ContentView = B.ContentView_Serialize;
export type EmbeddedView = B.EmbeddedView_Serialize;
export type ListKind = B.ListKind;
export type ListPage = B.ListPage_Serialize;
export type Listing = B.Listing_Serialize;
export type Exported = B.Exported;
export type ToolsListing = B.ToolsListing_Serialize;
export type ListenSpec = B.ListenSpec_Deserialize;
export type LogLevel = B.LogLevel;
export type Notice = B.Notice_Serialize;
export type NoticeEvent = B.NoticeEvent_Serialize;
export type Ping = B.Ping;
export type PromptView = B.PromptView_Serialize;
export type ReadView = B.ReadView_Serialize;
export type SubscriptionEvent = B.SubscriptionEvent_Serialize;
export type ConnectionState = B.ConnectionState_Serialize;
export type ConnState = B.ConnState_Serialize;
export type Entry = B.Entry_Serialize;
export type ConnectionLabel = B.ConnectionLabel;
export type FilterChip = B.FilterChip;
export type FilterView = B.FilterView_Serialize;
export type Flow = B.Flow_Serialize;
export type FlowStep = B.Step;
export type StepState = B.StepState;
export type StepView = B.StepView;
export type Imported = B.Imported_Serialize;
export type JsonValue = B.JsonValue;
export type LastWords = B.LastWords;
export type LogBatch = B.LogBatch_Serialize;
export type MatchCount = B.MatchCount;
export type OpenedSession = B.OpenedSession_Serialize;
export type Page = B.Page_Serialize;
export type SavedServer = B.SavedServer_Serialize;
export type QuestionEvent = B.QuestionEvent_Serialize;
export type ServerDescription = B.ServerDescription_Serialize;
export type ServerQuestion = B.ServerQuestion_Serialize;
export type SessionInfo = B.SessionInfo_Serialize;
export type Stage = B.Stage;
export type TaskStatus = B.TaskStatus;
export type TaskView = B.TaskView_Serialize;
export type ToolView = B.ToolView_Serialize;
export type UrlElicitation = B.UrlElicitation_Serialize;
export type LinksRequired = B.LinksRequired_Serialize;
export type RootsChange = B.RootsChange;

/** Which session a log call reads: a past one opened by `sessionOpen` (its id), or `null` for the
 * window's own live session. */
export type SessionRef = number | null;

/** A saved server with nothing filled in: what the dialog starts from and records are made from. */
export function blankServer(): SavedServer {
  return {
    id: "",
    name: "",
    command: "",
    env: [],
    cwd: null,
    era: "auto",
    timeoutMs: null,
    graceStdinMs: null,
    graceTermMs: null,
    inheritEnv: false,
    restartOnExit: false,
  } as unknown as SavedServer;
}

/** An error from the backend: a stable code and a sentence for people; for a server that failed
 * to open, what it last said on stderr and the environment hint. */
export interface BackendError {
  /** The core's code (its `ErrorCode`, generated), so a branch on a code that does not exist
   * fails to type-check. */
  code: B.ErrorCode;
  message: string;
  lastWords?: LastWords | null;
  /** For `url_elicitation_required` (-32042): the links to open before the request is sent again. */
  urlElicitations?: LinksRequired | null;
}

/** What the in-memory double throws, typed as what the desktop rejects with: a code the core
 * does not have fails to type-check. */
export function backendError(e: BackendError): BackendError {
  return e;
}

export function isBackendError(e: unknown): e is BackendError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

/** A failed opening's last words, when the error carries them. */
export function lastWordsOf(e: unknown): LastWords | null {
  return isBackendError(e) ? (e.lastWords ?? null) : null;
}

export function errorText(e: unknown): string {
  if (isBackendError(e)) return e.message;
  return e instanceof Error ? e.message : String(e);
}

export interface Backend {
  /** "desktop" over Tauri IPC, or "memory" for tests and the browser preview. */
  readonly kind: "desktop" | "memory";
  serversList(): Promise<SavedServer[]>;
  serversSave(server: SavedServer): Promise<SavedServer[]>;
  serversDelete(id: string): Promise<SavedServer[]>;
  serversImport(text: string): Promise<Imported>;
  /** Adds `name` to a saved server's environment with the value it has in Sonde's environment,
   * read by the backend: the value never reaches the UI. Returns the new list. */
  serversAddEnvFromHost(serverId: string, name: string): Promise<SavedServer[]>;
  /** Starts a saved server; resolves with the connection's id once it is ready. Its stages and
   * everything after arrive on `followConnections`. */
  connect(serverId: string): Promise<number>;
  /** Stops a connection and starts its server again as a new connection on the same line. */
  restart(id: number): Promise<number>;
  /** Every line's newest state now; `onState` hears each change after it, as it happens. */
  followConnections(onState: (s: ConnectionState) => void): Promise<ConnectionState[]>;
  disconnect(id: number): Promise<string | null>;
  /** Why sending a call of `tool` again needs confirmation, or null when it is safe. */
  toolResendRisk(tool: unknown): Promise<string | null>;
  /** Every tool, read by the core: the fields it could read, what is wrong, and the raw entry;
   * `stopped` says why the listing ended before the server's last page, when a cap ended it. */
  toolsList(id: number): Promise<ToolsListing>;
  toolCall(id: number, tool: unknown, args: unknown, onProgress: (p: unknown) => void): Promise<CallOutcome>;
  requestCancel(id: number): Promise<void>;
  // The log calls read the window's own session unless given a past one's id (`session`).
  // Every entry they give is a preview: a large payload comes cut, with `whole_size` set.
  logPage(from: number, to: number, filter: string, limit: number, session?: SessionRef): Promise<Page>;
  /** One entry whole, however large its payload. */
  logEntry(seq: number, session?: SessionRef): Promise<Entry>;
  /** Counts `filter`'s matches among the entries below `to`, a bounded amount of work per call:
   * call again until `scanned` reaches `to`. */
  logCountMatches(filter: string, to: number, session?: SessionRef): Promise<MatchCount>;
  /** The matches of `filter` at positions `from..from + limit` among all of its matches. */
  logMatchPage(filter: string, from: number, limit: number, session?: SessionRef): Promise<Entry[]>;
  /** How the core reads a filter expression: its chips, or what is wrong with it. */
  logFilter(filter: string): Promise<FilterView>;
  /** The config entry `client` needs to run the saved server through `sonde proxy`. */
  serverClientSnippet(serverId: string, client: string): Promise<string>;
  /** The findings on connection `conn`'s frames in the window's session, grouped by rule, the
   * most severe rules first. */
  diagnostics(conn: number): Promise<RuleGroup[]>;
  /** Checks a saved server over (`sonde doctor`) on connections of its own: each check reaches
   * `onCheck` as it is made; the whole report is the answer. */
  doctorRun(serverId: string, onCheck: (c: Check) => void): Promise<Report>;
  /** The seq of the reply to the request at `seq`, as the core paired them; null while none. */
  logReply(seq: number, session?: SessionRef): Promise<number | null>;
  /** The name each connection of a session goes by: its saved server, else its command or URL. */
  logConnections(session?: SessionRef): Promise<ConnectionLabel[]>;
  /** Streams appended entries; resolves with how many entries the log already held. A batch
   * with `ended` is the last: the session can grow no more. */
  logFollow(onBatch: (batch: LogBatch) => void, session?: SessionRef): Promise<number>;
  /** Exports the log (or `filter`'s matches) as JSONL where the person chooses in the native
   * save dialog, secrets redacted; null when they cancelled. */
  logExport(filter: string, session?: SessionRef): Promise<Exported | null>;
  /** Every recorded session (the window's own, other windows', the CLI's), newest first. */
  sessionsList(): Promise<SessionInfo[]>;
  /** Opens a past session read-only by its listed name; the log calls read it by the id. */
  sessionOpen(name: string): Promise<OpenedSession>;
  sessionClose(id: number): Promise<void>;
  /** Server requests that need a person (elicitation, sampling) as they come, the ones declined
   * at once for the per-connection limit, and the ones withdrawn. */
  onServerRequest(handler: (e: QuestionEvent) => void): Promise<void>;
  /** The answer to one: a result, or a refusal in words. */
  answerServerRequest(qid: number, result: JsonValue | null, refusal: string | null): Promise<void>;
  /** Declines every question a connection has waiting; resolves with how many. */
  declineAllServerRequests(connId: number): Promise<number>;
  // The MCP surface beyond tools; each is one core call.
  /** One page of a list, from `cursor` (null: the first). */
  listPage(id: number, kind: ListKind, cursor: JsonValue | null): Promise<ListPage>;
  /** Every item of a list, all pages followed up to the core's caps (`stopped` says which). */
  listAll(id: number, kind: ListKind): Promise<Listing>;
  resourceRead(id: number, uri: string): Promise<ReadView>;
  /** Saves a blob (base64) to `path` (relative: in the download directory), never over an
   * existing file; resolves with the path written. */
  resourceSave(path: string, blob: string): Promise<string>;
  /** A template's variables, each once, in order (the core reads RFC 6570). */
  templateVariables(template: string): Promise<string[]>;
  /** The URI a template names with these values (the core expands RFC 6570). */
  templateExpand(template: string, values: Record<string, string>): Promise<string>;
  promptGet(id: number, name: string, args: Record<string, string>): Promise<PromptView>;
  /** The server's suggestions for `argument` typed so far as `value`, with the other
   * arguments already filled as `context`. Rejects when the server does not declare completions. */
  complete(
    id: number,
    reference: CompletionRef,
    argument: string,
    value: string,
    context: Record<string, string>,
  ): Promise<Completion>;
  /** The log level asked of the server so far (null: none). */
  logLevelGet(id: number): Promise<LogLevel | null>;
  logLevelSet(id: number, level: LogLevel): Promise<void>;
  /** A round trip, measured by the core (`ping`, or `server/discover` in 2026-07-28). */
  ping(id: number): Promise<Ping>;
  /** Every server notification of every connection, as each is recorded. */
  onNotification(handler: (e: NoticeEvent) => void): Promise<void>;
  /** Starts a subscription; its events (the last says it ended) go to `onEvent`. Resolves with
   * its number, for `unsubscribe`. */
  subscribe(id: number, spec: ListenSpec, onEvent: (e: SubscriptionEvent) => void): Promise<number>;
  unsubscribe(subscription: number): Promise<void>;
  /** The tasks of a connection the core knows now; `onTask` hears each change after it, the
   * task's whole new view with a newer `version`. The core follows every task to its end. */
  tasksFollow(id: number, onTask: (v: TaskView) => void): Promise<TaskView[]>;
  /** The tasks of a connection, with the server's `tasks/list` asked where it has one. */
  tasksList(id: number): Promise<TaskView[]>;
  /** One task's state now, asked of the server (`tasks/get`). */
  taskGet(id: number, taskId: string): Promise<TaskView>;
  /** Asks the server to cancel a task (`tasks/cancel`); the core follows it until it ends. */
  taskCancel(id: number, taskId: string): Promise<TaskView>;
  /** Menu items chosen in the app menu, by id. */
  onMenu(handler: (id: string) => void): () => void;
  /** Sets the check mark of a View menu toggle to what the window shows. */
  menuChecked(id: string, checked: boolean): Promise<void>;
  /** Opens a link connection `connId`'s server asked the person to open, in the system browser
   * (the in-memory backend records it in the log instead). Refused for a link the core will not
   * open (not http or https). */
  openLink(connId: number, url: string): Promise<void>;
  /** Every connection's latest authorization flow now; `onFlow` hears each change after it, the
   * connection's whole flow (a new flow of a connection replaces its earlier one). */
  authFlowsFollow(onFlow: (flow: Flow) => void): Promise<Flow[]>;
  /** Opens the authorization URL connection `connId`'s flow waits at in the system browser again
   * (the in-memory backend records it in the log instead). Refused when no flow waits. */
  authOpen(connId: number): Promise<void>;
  /** The credentials Sonde keeps, without their secrets. */
  credentialsList(): Promise<CredentialView[]>;
  /** Forgets the credentials of the server at `resource` (every server's with null); resolves
   * with those left. */
  credentialsForget(resource: string | null): Promise<CredentialView[]>;
  /** The roots a live connection lists now. */
  connectionRoots(id: number): Promise<string[]>;
  /** Replaces a live connection's roots (absolute paths; blank ones left out); says what the
   * server was told. */
  connectionRootsSet(id: number, roots: string[]): Promise<RootsChange>;
}
