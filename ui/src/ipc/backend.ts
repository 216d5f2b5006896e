// The one interface the UI talks to, derived from the generated commands. `tauri.ts` adapts the
// commands to it over IPC; `memory.ts` implements it in memory for UI tests and for running the
// UI in a plain browser.
// The types as the backend sends them. Rust serializes and deserializes some of them with
// different shapes (`#[serde(default)]` fields may be missing on the way in, never on the way
// out), so the bindings name both; the UI reads what the backend sends.
import type * as B from "./bindings";

// The core's numbers and data, generated with the bindings: the UI copies none by hand.
export { MAX_OPEN_QUESTIONS, SCHEMA_MAX_DEPTH } from "./bindings";

export type CallOutcome = B.CallOutcome_Serialize;
export type Check = B.Check_Serialize;
export type Era = B.Era;
export type Checkup = B.Checkup_Serialize;
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
export type SpansView = B.SpansView_Serialize;
export type ToolsListing = B.ToolsListing_Serialize;
export type ListenSpec = B.ListenSpec_Deserialize;
export type LogLevel = B.LogLevel;
export type Notice = B.Notice_Serialize;
export type NoticeEvent = B.NoticeEvent_Serialize;
export type Ping = B.Ping;
export type PromptView = B.PromptView_Serialize;
export type ReadView = B.ReadView_Serialize;
export type SubscriptionEvent = B.SubscriptionEvent_Serialize;
/** A skill as listed, a file of it read and checked against its entry, and the check's verdict. */
export type SkillEntry = B.SkillEntry_Serialize;
export type SkillFileRead = B.SkillFileRead_Serialize;
export type SkillsListing = B.SkillsListing_Serialize;
export type FileCheck = B.FileCheck;
/** A host profile (how a host connects, what it shows, its limits), and a host beside a server. */
export type HostProfile = B.HostProfile_Serialize;
export type HostView = B.HostView;
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
export type Recording = B.Recording_Serialize;
export type SessionsBudget = B.SessionsBudget_Serialize;
/** What a prune of the sessions folder removed, or would remove. */
export type Pruned = B.Pruned;
export type SessionsSettings = B.SessionsSettings_Deserialize;
export type Theme = B.Theme;
export type Layout = B.Layout_Serialize;
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
/** One side of an interface comparison, and a change placed on both sides. */
export type DiffSide = B.Side;
export type Placed = B.Placed_Serialize;
export type ChangeSeverity = B.ChangeSeverity;
/** A replayed request against its recording, and a replay's end. */
export type Replayed = B.Replayed_Serialize;
export type ReplayRun = B.ReplayRun_Serialize;
export type ReplayVerdict = B.ReplayVerdict;
/** Restart on change: a saved server's settings, a line's latest step, and a change it said. */
export type OnChange = B.OnChange_Serialize;
export type Rebuild = B.Rebuild_Serialize;
export type Change = B.Change_Serialize;
/** A tool call read back from the log (the call history), and one with the line it was made on. */
export type RecordedCall = B.RecordedCall_Serialize;
export type LoggedCall = B.LoggedCall_Serialize;
/** A load run: each second as it closes, the report at its end, a run kept to compare with, and
 * the form's settings. */
export type LoadSecond = B.LoadSecond_Serialize;
export type LoadReport = B.LoadReport_Serialize;
export type SavedRun = B.SavedRun_Serialize;
export type LoadSettings = B.LoadSettings_Deserialize;
/** A connection's interface beside its server's drift baseline. */
export type BaselineCheck = B.BaselineCheck_Serialize;

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

/** The generated command functions (bindings.ts), as a type: the backend's calls are derived
 * from them, so a command added in Rust is callable from the UI with no other edit here. */
type Commands = typeof B.commands;

/** What a channel of the bindings carries, as the UI receives it: the bindings type a channel
 * argument by its deserialize shape, while its messages are what Rust serializes. */
type Sent<T> = T extends B.ConnectionState_Deserialize
  ? ConnectionState
  : T extends B.LogBatch_Deserialize
    ? LogBatch
    : T extends B.QuestionEvent_Deserialize
      ? QuestionEvent
      : T extends B.NoticeEvent_Deserialize
        ? NoticeEvent
        : T extends B.SubscriptionEvent_Deserialize
          ? SubscriptionEvent
          : T extends B.Flow_Deserialize
            ? Flow
            : T extends B.TaskView_Deserialize
              ? TaskView
              : T extends B.Check_Deserialize
                ? Check
                : T extends B.Recording_Deserialize
                  ? Recording
                  : T extends B.Replayed_Deserialize
                    ? Replayed
                    : T extends B.Rebuild_Deserialize
                      ? Rebuild
                      : T extends B.LoadSecond_Deserialize
                        ? LoadSecond
                        : T;

/** A command's arguments as the UI passes them: a channel (known by its `onmessage`) becomes
 * the callback that hears it. */
type Callbacks<A extends unknown[]> = {
  [K in keyof A]: A[K] extends { onmessage: (message: infer T) => void } ? (message: Sent<T>) => void : A[K];
};

/** Every command, called as the bindings name it, with callbacks for channels. */
export type Calls = {
  [N in keyof Commands]: (...args: Callbacks<Parameters<Commands[N]>>) => ReturnType<Commands[N]>;
};

/** The one interface the UI talks to: every command of the desktop shell, and the app menu
 * (events, not commands). `tauri.ts` adapts the generated commands to it; `memory.ts` is a
 * double of it for UI tests and the browser preview. */
export type Backend = Calls & {
  /** "desktop" over Tauri IPC, or "memory" for tests and the browser preview. */
  readonly kind: "desktop" | "memory";
  /** Menu items chosen in the app menu, by id. */
  onMenu(handler: (id: string) => void): () => void;
  /** Sets the check mark of a View menu toggle to what the window shows. */
  menuChecked(id: string, checked: boolean): Promise<void>;
};
