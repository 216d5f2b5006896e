// The desktop backend: every call is one generated command function (bindings.ts, from
// src-tauri/src/commands.rs), so a renamed command or argument fails to type-check here.
// A command's promise rejects with its `{code, message}` error, as the bindings are generated
// to throw.
import { Channel } from "@tauri-apps/api/core";
import { emit, listen } from "@tauri-apps/api/event";
import type { Backend, JsonValue } from "./backend";
import {
  commands,
  type ConnectionState_Deserialize,
  type Flow_Deserialize,
  type LogBatch_Deserialize,
  type NoticeEvent_Deserialize,
  type QuestionEvent_Deserialize,
  type SubscriptionEvent_Deserialize,
} from "./bindings";

/** A channel that hands each message to `onMessage`. */
function channel<T>(onMessage: (message: T) => void): Channel<T> {
  const c = new Channel<T>();
  c.onmessage = onMessage;
  return c;
}

export const tauriBackend: Backend = {
  kind: "desktop",
  serversList: () => commands.serversList(),
  serversSave: (server) => commands.serversSave(server),
  serversDelete: (id) => commands.serversDelete(id),
  serversImport: (text) => commands.serversImport(text),
  serversAddEnvFromHost: (serverId, name) => commands.serversAddEnvFromHost(serverId, name),
  connect: (serverId) => commands.connect(serverId),
  restart: (id) => commands.restart(id),
  // As for the log, the channel's messages are what Rust serializes.
  followConnections: (onState) =>
    commands.connectionsFollow(channel(onState) as unknown as Channel<ConnectionState_Deserialize>),
  disconnect: (id) => commands.disconnect(id),
  toolResendRisk: (tool) => commands.toolResendRisk(tool as JsonValue),
  toolsList: (id) => commands.toolsList(id),
  toolCall: (id, tool, args, onProgress) =>
    commands.toolCall(id, tool as JsonValue, (args ?? null) as JsonValue | null, channel(onProgress)),
  requestCancel: async (id) => void (await commands.requestCancel(id)),
  logPage: (from, to, filter, limit, session = null) => commands.logPage(session, from, to, filter, limit),
  logCountMatches: (filter, to, session = null) => commands.logCountMatches(session, filter, to),
  logMatchPage: (filter, from, limit, session = null) => commands.logMatchPage(session, filter, from, limit),
  logFilter: (filter) => commands.logFilter(filter),
  logEntry: (seq, session = null) => commands.logEntry(session, seq),
  logReply: (seq, session = null) => commands.logReply(session, seq),
  logConnections: (session = null) => commands.logConnections(session),
  // The bindings type a channel argument's messages in their deserialize shape; they are what
  // Rust serializes, the shape `onBatch` takes.
  logFollow: (onBatch, session = null) =>
    commands.logFollow(session, channel(onBatch) as unknown as Channel<LogBatch_Deserialize>),
  logExport: (filter, session = null) => commands.logExport(session, filter),
  sessionsList: () => commands.sessionsList(),
  sessionOpen: (name) => commands.sessionOpen(name),
  sessionClose: async (id) => void (await commands.sessionClose(id)),
  onServerRequest: (handler) =>
    commands.serverRequestsFollow(channel(handler) as unknown as Channel<QuestionEvent_Deserialize>),
  answerServerRequest: async (qid, result, refusal) => void (await commands.serverRequestAnswer(qid, result, refusal)),
  declineAllServerRequests: (connId) => commands.serverRequestsDeclineAll(connId),
  listPage: (id, kind, cursor) => commands.listPage(id, kind, cursor),
  listAll: (id, kind) => commands.listAll(id, kind),
  resourceRead: (id, uri) => commands.resourceRead(id, uri),
  resourceSave: (path, blob) => commands.resourceSave(path, blob),
  templateVariables: (template) => commands.templateVariables(template),
  templateExpand: (template, values) => commands.templateExpand(template, values),
  promptGet: (id, name, args) => commands.promptGet(id, name, args),
  complete: (id, reference, argument, value, context) => commands.complete(id, reference, argument, value, context),
  logLevelGet: (id) => commands.logLevelGet(id),
  logLevelSet: async (id, level) => void (await commands.logLevelSet(id, level)),
  ping: (id) => commands.ping(id),
  onNotification: (handler) =>
    commands.notificationsFollow(channel(handler) as unknown as Channel<NoticeEvent_Deserialize>),
  subscribe: (id, spec, onEvent) =>
    commands.subscribe(id, spec, channel(onEvent) as unknown as Channel<SubscriptionEvent_Deserialize>),
  unsubscribe: (subscription) => commands.unsubscribe(subscription),
  openLink: async (connId, url) => void (await commands.linkOpen(connId, url)),
  authFlowsFollow: (onFlow) => commands.authFlowsFollow(channel(onFlow) as unknown as Channel<Flow_Deserialize>),
  authOpen: async (connId) => void (await commands.authOpen(connId)),
  credentialsList: () => commands.credentialsList(),
  credentialsForget: (resource) => commands.credentialsForget(resource),
  connectionRoots: (id) => commands.connectionRoots(id),
  connectionRootsSet: (id, roots) => commands.connectionRootsSet(id, roots),
  tasksFollow: (id, onTask) => commands.tasksFollow(id, channel(onTask) as never),
  tasksList: (id) => commands.tasksList(id),
  taskGet: (id, taskId) => commands.taskGet(id, taskId),
  taskCancel: (id, taskId) => commands.taskCancel(id, taskId),
  diagnostics: (conn) => commands.diagnostics(conn),
  serverClientSnippet: (serverId, client) => commands.serverClientSnippet(serverId, client),
  doctorRun: (serverId, onCheck) => commands.doctorRun(serverId, channel(onCheck) as never),
  menuChecked: (id, checked) => emit("menu-checked", { id, checked }),
  onMenu: (handler) => {
    let stop: (() => void) | undefined;
    let stopped = false;
    listen<string>("menu", (e) => handler(e.payload)).then((un) => (stopped ? un() : (stop = un)));
    return () => {
      stopped = true;
      stop?.();
    };
  },
};
