// The desktop backend: every call is one Tauri command (see src-tauri/src/commands.rs).
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Backend, ConnectStage, LogBatch, ServerQuestion } from "./backend";

export const tauriBackend: Backend = {
  kind: "desktop",
  serversList: () => invoke("servers_list"),
  serversSave: (server) => invoke("servers_save", { server }),
  serversDelete: (id) => invoke("servers_delete", { id }),
  serversImport: (text) => invoke("servers_import", { text }),
  connect: (serverId, onStage) => {
    const stages = new Channel<ConnectStage>();
    stages.onmessage = onStage;
    return invoke("connect", { serverId, stages });
  },
  disconnect: (id) => invoke("disconnect", { id }),
  toolsList: (id) => invoke("tools_list", { id }),
  toolCall: (id, tool, args, onProgress) => {
    const progress = new Channel<unknown>();
    progress.onmessage = onProgress;
    return invoke("tool_call", { id, tool, arguments: args, progress });
  },
  requestCancel: (id) => invoke("request_cancel", { id }),
  logPage: (from, to, filter, limit) => invoke("log_page", { from, to, filter, limit }),
  logFilter: (filter) => invoke("log_filter", { filter }),
  logFollow: (onBatch) => {
    const channel = new Channel<LogBatch>();
    channel.onmessage = onBatch;
    return invoke("log_follow", { channel });
  },
  logExport: (path, filter) => invoke("log_export", { path, filter }),
  onServerRequest: (handler) => {
    const onQuestion = new Channel<ServerQuestion>();
    onQuestion.onmessage = handler;
    return invoke("server_requests_follow", { onQuestion });
  },
  answerServerRequest: (qid, result, refusal) => invoke("server_request_answer", { qid, result, refusal }),
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
