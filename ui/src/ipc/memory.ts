// An in-memory backend: a simulated demo server with a wire log, for UI tests and for the UI
// in a plain browser. It follows the desktop backend's contract, not its implementation.
import type {
  Backend,
  ConnectionDto,
  Entry,
  FilterView,
  JsonValue,
  SavedServer,
  ServerQuestion,
  SessionRef,
} from "./backend";
import { blankServer } from "./backend";
import { infoOf, keepWriting, MemoryLog, recordedSessions, type Recorded } from "./memoryLog";
import type { FilterKey, Kind } from "./bindings";

/** Sonde's own environment as the in-memory backend pretends it: what "add from my environment"
 * takes values from. A saved server whose command is not the demo's needs `API_KEY`. */
const HOST_ENV: Record<string, string> = { API_KEY: "memory-secret-value" };

/** How long the in-memory backend keeps a connection in each opening stage. */
const STAGE_MS = 600;

const TOOLS = [
  {
    name: "echo",
    title: "Echo",
    description: "Returns the text it is given.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", description: "What to echo" } },
      required: ["text"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "add",
    title: "Add",
    description: "Adds two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
  },
  {
    name: "greet",
    title: "Greet",
    description: "Asks who you are (an elicitation), then greets you.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "summarize",
    title: "Summarize",
    description: "Asks the client's model for a summary (sampling).",
    inputSchema: { type: "object", properties: {} },
  },
  // A form with every shape the schema form handles: nested object, array, enum, oneOf.
  {
    name: "ship",
    title: "Ship a parcel",
    description: "Returns the arguments it is given.",
    inputSchema: {
      type: "object",
      properties: {
        to: { type: "object", properties: { city: { type: "string" }, zip: { type: "string" } }, required: ["city"] },
        items: { type: "array", items: { type: "string" } },
        speed: { type: "string", enum: ["standard", "express"] },
        payment: {
          oneOf: [
            { title: "Card", type: "object", properties: { card: { type: "string" } }, required: ["card"] },
            { title: "Invoice", type: "object", properties: { invoice: { type: "integer" } }, required: ["invoice"] },
          ],
        },
      },
      required: ["to", "speed"],
    },
  },
  {
    name: "slow",
    title: "Slow task",
    description: "Works for a while, reporting progress.",
    inputSchema: { type: "object", properties: { seconds: { type: "number" }, steps: { type: "integer" } } },
  },
];

export function memoryBackend(
  seed = Number(new URLSearchParams(globalThis.location?.search ?? "").get("entries") ?? 0),
): Backend {
  // The window's own session, and the recorded ones it may open (by id once opened).
  const own = new MemoryLog(matcherOf);
  const entries = own.entries;
  const recorded = recordedSessions(matcherOf);
  const opened = new Map<number, Recorded>();
  let nextSession = 1;
  const ownServers: string[] = [];
  const logOf = (session: SessionRef = null): MemoryLog => {
    if (session === null) return own;
    const r = opened.get(session);
    if (!r) throw { code: "not_found", message: `session ${session} is not open (it was closed, or never opened)` };
    return r.log;
  };
  const menuHandlers: ((id: string) => void)[] = [];
  let servers: SavedServer[] = [{ ...blankServer(), id: "demo", name: "Demo server", command: "sonde demo-server" }];
  let nextConn = 1;
  let nextId = 1;
  const started = Date.now();
  const cancelled = new Set<number>();
  let askPerson: ((q: ServerQuestion) => void) | null = null;
  let nextQid = 1;
  const answers = new Map<number, (a: { result: JsonValue | null; refusal: string | null }) => void>();

  const append = (e: Partial<Entry> & Pick<Entry, "conn" | "kind" | "dir">) => {
    const ms = Date.now() - started;
    const entry = { seq: entries.length, time: new Date().toISOString(), ms, probe: false, ...e } as Entry;
    own.append(entry);
    return entry.seq;
  };
  for (let i = 0; i < seed; i++) {
    const text = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: `seeded ${i}` },
    });
    entries.push({
      seq: i,
      time: new Date(started).toISOString(),
      ms: i,
      conn: 0,
      kind: "message",
      dir: "in",
      text,
      summary: { type: "notification", method: "notifications/message" },
      probe: false,
    } as unknown as Entry);
  }
  const message = (conn: number, dir: "in" | "out", msg: Record<string, unknown>, extra: Partial<Entry> = {}) =>
    append({
      conn,
      kind: "message",
      dir,
      text: JSON.stringify(msg),
      summary: {
        type: "method" in msg ? ("id" in msg ? "request" : "notification") : "error" in msg ? "error" : "result",
        method: (msg.method as string) ?? extra.summary?.method,
        id: "id" in msg ? JSON.stringify(msg.id) : undefined,
      } as Entry["summary"],
      ...extra,
    } as Entry);
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const request = async (
    conn: number,
    method: string,
    params: unknown,
    result: (id: number) => unknown | Promise<unknown>,
  ) => {
    const id = nextId++;
    const t0 = performance.now();
    const seq = message(conn, "out", { jsonrpc: "2.0", id, method, params });
    const value = await result(id);
    if (cancelled.has(id)) throw { code: "cancelled", message: `${method} was cancelled: cancelled by the user` };
    message(conn, "in", { jsonrpc: "2.0", id, result: value }, {
      answers: seq,
      latency_ms: Math.round((performance.now() - t0) * 1000) / 1000,
      summary: { type: "result", method, id: String(id) },
    } as Partial<Entry>);
    return value;
  };

  return {
    kind: "memory",
    serversList: async () => servers,
    serversSave: async (server) => {
      if (!server.name.trim()) throw { code: "bad_input", message: "a server needs a name" };
      if (!server.command.trim() && !server.url?.trim())
        throw { code: "bad_input", message: "the command line is empty" };
      const i = servers.findIndex((s) => s.id === server.id && server.id !== "");
      servers =
        i >= 0 ? servers.map((s, j) => (j === i ? server : s)) : [...servers, { ...server, id: `s${Date.now()}` }];
      return servers;
    },
    serversDelete: async (id) => (servers = servers.filter((s) => s.id !== id)),
    serversImport: async (text) => {
      // The same rules as the core's import, for the preview: commands and URLs, the rest skipped.
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(text);
      } catch (e) {
        throw { code: "bad_input", message: `not JSON: ${(e as Error).message}` };
      }
      const table = (doc.mcpServers ?? doc.servers) as
        Record<string, { command?: string; args?: string[]; url?: string }> | undefined;
      if (!table || typeof table !== "object")
        throw { code: "bad_input", message: 'no "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) object' };
      const added: SavedServer[] = [];
      const skipped: string[] = [];
      for (const [name, entry] of Object.entries(table)) {
        if (!entry.command && !entry.url) {
          skipped.push(`${name}: no command and no url`);
          continue;
        }
        added.push({
          ...blankServer(),
          id: `imported-${name}`,
          name,
          command: [entry.command ?? "", ...(entry.args ?? [])].join(" ").trim(),
          url: entry.url ?? undefined,
        });
      }
      servers = [...servers, ...added];
      return { servers: added, skipped };
    },
    serversAddEnvFromHost: async (serverId, name) => {
      if (!(name in HOST_ENV)) throw { code: "bad_input", message: `${name} is not set in Sonde's environment` };
      if (!servers.some((s) => s.id === serverId)) throw { code: "not_found", message: `no saved server ${serverId}` };
      servers = servers.map((s) =>
        s.id === serverId
          ? { ...s, env: [...s.env.filter((v) => v.key !== name), { key: name, value: HOST_ENV[name] }] }
          : s,
      );
      return servers;
    },
    connect: async (serverId, onStage) => {
      const saved = servers.find((s) => s.id === serverId);
      if (!saved) throw { code: "not_found", message: `no saved server ${serverId}` };
      const conn = nextConn++;
      const pid = 4000 + conn;
      // Each stage lasts long enough for a test on a loaded machine to see it (150 ms was missed).
      onStage({ id: conn, stage: "spawning" });
      await wait(STAGE_MS);
      if (!ownServers.includes(saved.command)) ownServers.push(saved.command);
      append({
        conn,
        kind: "lifecycle",
        dir: "meta",
        detail: `spawned pid ${pid} (own process group): ${saved.command}`,
        lifecycle: { event: "spawned", pid, command: saved.command },
      } as Partial<Entry> as Entry);
      if (!saved.command.includes("demo-server") && !saved.env.some((v) => v.key === "API_KEY")) {
        // The most common failure: a variable the minimal environment withheld.
        const said = "Error: API_KEY is not set; export it first";
        append({ conn, kind: "stderr", dir: "in", text: `\u001b[31m${said}\u001b[0m\r\n` } as Entry);
        append({ conn, kind: "lifecycle", dir: "meta", detail: "server exited with code 1" } as Entry);
        throw {
          code: "connect_failed",
          message: `could not connect to ${saved.command}: server exited with code 1 while initialize was pending`,
          lastWords: { lines: [said], minimalEnv: true, withheld: ["API_KEY"] },
        };
      }
      append({ conn, kind: "stderr", dir: "in", text: "sonde demo-server 0.1.0 ready on stdio\r\n" } as Entry);
      onStage({ id: conn, stage: "probing" });
      await wait(STAGE_MS);
      await request(conn, "server/discover", { _meta: {} }, () => ({
        supportedVersions: ["2026-07-28", "2025-11-25"],
        capabilities: { tools: {} },
      }));
      const dto = {
        id: conn,
        serverId,
        name: saved.name,
        pid,
        server: {
          protocolVersion: "2026-07-28",
          era: "modern",
          decidedBy: "server/discover",
          serverInfo: { name: "sonde-demo", version: "0.1.0" },
          capabilities: { tools: {} },
        },
      } as unknown as ConnectionDto;
      return dto;
    },
    disconnect: async (id) => {
      const steps = [
        "closed stdin; waiting up to 2 s for exit",
        "server closed stdout",
        "server exited with code 0 after stdin was closed",
        `process group ${4000 + id} is empty; shutdown complete`,
      ];
      for (const detail of steps) {
        await wait(120);
        append({ conn: id, kind: "lifecycle", dir: "meta", detail } as Entry);
      }
      return "server exited with code 0 after stdin was closed";
    },
    toolsList: async (id) =>
      ((await request(id, "tools/list", {}, () => ({ tools: TOOLS }))) as { tools: unknown[] }).tools,
    toolCall: async (id, tool, args, onProgress) => {
      const name = (tool as { name: string }).name;
      const a = (args ?? {}) as Record<string, unknown>;
      const result = await request(id, "tools/call", { name, arguments: a }, async (rid) => {
        if (name === "echo")
          return typeof a.text === "string"
            ? { content: [{ type: "text", text: a.text }] }
            : { content: [{ type: "text", text: 'echo needs a string argument "text"' }], isError: true };
        if (name === "greet") {
          // The server asks the person through the client, as server-everything's elicitation tool does.
          const params = {
            message: "Who are you?",
            requestedSchema: {
              type: "object",
              properties: { name: { type: "string", default: "Ada" }, admin: { type: "boolean" } },
              required: ["name"],
            },
          };
          const askId = 1000 + rid;
          message(id, "in", { jsonrpc: "2.0", id: askId, method: "elicitation/create", params });
          const qid = nextQid++;
          const answer = await new Promise<{ result: JsonValue | null; refusal: string | null }>((resolve) => {
            answers.set(qid, resolve);
            askPerson?.({ qid, conn: id, method: "elicitation/create", params } as ServerQuestion);
          });
          message(id, "out", { jsonrpc: "2.0", id: askId, result: answer.result });
          const r = (answer.result ?? {}) as { action?: string; content?: { name?: string } };
          return {
            content: [
              {
                type: "text",
                text: r.action === "accept" ? `Hello, ${r.content?.name}!` : `You chose to ${r.action}.`,
              },
            ],
          };
        }
        if (name === "summarize") {
          const params = {
            messages: [{ role: "user", content: { type: "text", text: "Summarize MCP in five words." } }],
            maxTokens: 50,
          };
          const askId = 2000 + rid;
          message(id, "in", { jsonrpc: "2.0", id: askId, method: "sampling/createMessage", params });
          const qid = nextQid++;
          const answer = await new Promise<{ result: JsonValue | null; refusal: string | null }>((resolve) => {
            answers.set(qid, resolve);
            askPerson?.({ qid, conn: id, method: "sampling/createMessage", params } as ServerQuestion);
          });
          if (answer.refusal) {
            message(id, "out", { jsonrpc: "2.0", id: askId, error: { code: -1, message: answer.refusal } });
            return { content: [{ type: "text", text: `The client refused: ${answer.refusal}` }], isError: true };
          }
          message(id, "out", { jsonrpc: "2.0", id: askId, result: answer.result });
          const reply = answer.result as { content?: { text?: string } };
          return { content: [{ type: "text", text: `Summary: ${reply.content?.text}` }] };
        }
        if (name === "ship") return { content: [{ type: "text", text: JSON.stringify(a) }] };
        if (name === "add")
          return {
            content: [{ type: "text", text: `${a.a} + ${a.b} = ${Number(a.a) + Number(a.b)}` }],
            structuredContent: { sum: Number(a.a) + Number(a.b) },
          };
        const steps = Number(a.steps ?? 5);
        for (let i = 1; i <= steps; i++) {
          await wait((Number(a.seconds ?? 2) * 1000) / steps);
          if (cancelled.has(rid)) return null;
          const p = { progressToken: rid, progress: i, total: steps, message: `step ${i} of ${steps}` };
          message(id, "in", { jsonrpc: "2.0", method: "notifications/progress", params: p });
          onProgress(p);
        }
        return { content: [{ type: "text", text: `done in ${steps} steps` }] };
      });
      const check = name === "add" ? { verdict: "valid" } : null;
      return { result, check } as never;
    },
    requestCancel: async () => {
      cancelled.add(nextId - 1);
    },
    logPage: async (from, to, filter, limit, session) => logOf(session).page(from, to, filter, limit),
    logCountMatches: async (filter, to, session) => logOf(session).countMatches(filter, to),
    logMatchPage: async (filter, from, limit, session) => logOf(session).matchPage(filter, from, limit),
    logFilter: async (filter) => readFilter(filter).view,
    logFollow: async (onBatch, session) => logOf(session).follow(onBatch),
    logExport: async (_path, filter, session) => {
      const log = logOf(session);
      return log.page(0, log.entries.length, filter, log.entries.length).entries.length;
    },
    sessionsList: async () => [
      {
        name: `${new Date(started).toISOString().replace(/:/g, "-")}-4242.jsonl`,
        started: new Date(started).toISOString(),
        program: "sonde-desktop",
        servers: [...ownServers],
        size: own.size(),
        writing: true,
        current: true,
      },
      ...recorded.map(infoOf),
    ],
    sessionOpen: async (name) => {
      const r = recorded.find((s) => s.info.name === name);
      if (!r) throw { code: "not_found", message: `there is no session "${name}"` };
      const id = nextSession++;
      opened.set(id, r);
      keepWriting(r);
      return { id, session: infoOf(r) };
    },
    sessionClose: async (id) => {
      if (!opened.delete(id)) throw { code: "not_found", message: `session ${id} is not open` };
    },
    onServerRequest: async (handler) => {
      askPerson = handler;
    },
    answerServerRequest: async (qid, result, refusal) => {
      const resolve = answers.get(qid);
      if (!resolve) throw { code: "not_found", message: `question ${qid} is no longer waiting` };
      answers.delete(qid);
      resolve({ result, refusal });
    },
    onMenu: (handler) => {
      menuHandlers.push(handler);
      return () => menuHandlers.splice(menuHandlers.indexOf(handler), 1);
    },
  };
}

// This double's reading of a filter, enough for the UI tests and the preview and no more: the
// real grammar is the core's (src/log/filter.rs), with its aliases, kind lists, id types and
// messages. Here `key:value` terms split on whitespace are compared with an entry's field (a
// later term of a key replaces an earlier one), the other words are one phrase of text, and the
// only error is an unknown kind.
const KEYS: FilterKey[] = ["kind", "dir", "conn", "method", "id"];
const KINDS: Record<Kind, true> = {
  message: true,
  non_protocol: true,
  decode_error: true,
  batch: true,
  truncated: true,
  stderr: true,
  lifecycle: true,
  note: true,
  http: true,
};
const FIELDS: Record<FilterKey, (e: Entry, value: string) => boolean> = {
  kind: (e, v) => e.kind === v,
  dir: (e, v) => e.dir === v,
  conn: (e, v) => String(e.conn) === v,
  method: (e, v) => e.summary?.method === v,
  id: (e, v) => e.summary?.id === v,
  text: (e, v) => [e.text, e.detail].some((s) => s?.toLowerCase().includes(v)),
};

/** The double's reading of `filter` as a predicate; a bad filter is refused as the core does. */
function matcherOf(filter: string): (e: Entry) => boolean {
  const { view, matches } = readFilter(filter);
  if (view.error != null) throw { code: "bad_input", message: view.error };
  return matches;
}

function readFilter(expr: string): { view: FilterView; matches: (e: Entry) => boolean } {
  const terms = expr.split(/\s+/).filter(Boolean);
  const keyOf = (term: string): FilterKey => KEYS.find((k) => term.startsWith(`${k}:`)) ?? "text";
  const values = new Map<FilterKey, string>();
  for (const term of terms) if (keyOf(term) !== "text") values.set(keyOf(term), term.slice(term.indexOf(":") + 1));
  const words = terms.filter((t) => keyOf(t) === "text");
  if (words.length) values.set("text", words.join(" ").toLowerCase());
  const kind = values.get("kind");
  if (kind !== undefined && !Object.hasOwn(KINDS, kind))
    return { view: { chips: [], error: `unknown kind "${kind}"` }, matches: () => false };
  const chips = [...KEYS, "text" as const].flatMap((key) => {
    const value = values.get(key);
    return value === undefined ? [] : [{ key, value, without: terms.filter((t) => keyOf(t) !== key).join(" ") }];
  });
  return { view: { chips, error: null }, matches: (e) => [...values].every(([key, value]) => FIELDS[key](e, value)) };
}
