// An in-memory backend: a simulated demo server with a wire log, for UI tests and for the UI
// in a plain browser, and an HTTP server behind OAuth (memoryAuth.ts) serving the demo's tools.
// It follows the desktop backend's contract, not its implementation.
import type {
  Backend,
  Calls,
  ConnectionState,
  ConnState,
  Entry,
  JsonValue,
  QuestionEvent,
  SavedServer,
  ServerQuestion,
  SessionInfo,
  SessionRef,
  SessionsBudget,
  TaskView,
  Theme,
  Layout,
  UrlElicitation,
} from "./backend";
import { backendError, blankServer, MAX_OPEN } from "./backend";
import { commands } from "./bindings";
import { infoOf, keepWriting, MemoryLog, recordedSessions, type Recorded } from "./memoryLog";
import { memorySurface } from "./memorySurface";
import { BUNDLE_EMBEDDED, BUNDLE_RESULT, PROFILE_QUESTION } from "./memoryResults";
import { matcherOf, readFilter } from "./memoryFilter";
import { AUTHORIZE, HOSTILE_TOOLS, SIGN_IN, TOOLS, view } from "./memoryTools";
import { memoryAuth, OAUTH_SERVER } from "./memoryAuth";

/** Sonde's own environment as the in-memory backend pretends it: what "add from my environment"
 * takes values from. A saved server whose command is not the demo's needs `API_KEY`. */
const HOST_ENV: Record<string, string> = { API_KEY: "memory-secret-value" };

/** How long the in-memory backend keeps a connection in each opening stage. */
const STAGE_MS = 600;

/** How many questions of one connection wait at once; past it they are declined (questions.rs). */

/** What the double simulates: any of the commands, and the app menu. */
type Simulated = Partial<Calls> & Omit<Backend, keyof Calls>;

/** The double, whole: a command it does not simulate rejects, saying so, so a command added in
 * Rust needs no edit here until a UI test (or the browser preview) reaches it. */
export function unsimulatedRejected(simulated: Simulated): Backend {
  const whole: Record<string, unknown> = { ...simulated };
  for (const name of Object.keys(commands)) {
    whole[name] ??= async () => {
      throw backendError({
        code: "not_found",
        message: `the in-memory backend does not simulate ${name}; the desktop app has it`,
      });
    };
  }
  return whole as Backend;
}

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
    if (!r)
      throw backendError({
        code: "not_found",
        message: `session ${session} is not open (it was closed, or never opened)`,
      });
    return r.log;
  };
  const menuHandlers: ((id: string) => void)[] = [];
  // The browser preview has no native menu: its items are chosen from the console (and by the
  // UI tests), and its check marks are kept where they can be read.
  const menuChecks: Record<string, boolean> = {};
  Object.assign(globalThis, {
    sondeMenu: (id: string) => menuHandlers.forEach((h) => h(id)),
    sondeMenuChecks: menuChecks,
  });
  let servers: SavedServer[] = [
    { ...blankServer(), id: "demo", name: "Demo server", command: "sonde demo-server" },
    OAUTH_SERVER,
  ];
  let nextConn = 1;
  let nextId = 1;
  const started = Date.now();
  const cancelled = new Set<number>();
  let askPerson: ((e: QuestionEvent) => void) | null = null;
  let nextQid = 1;
  type Reply = { result: JsonValue | null; refusal: string | null };
  const answers = new Map<number, { conn: number; method: string; resolve: (a: Reply) => void }>();
  const declinedFor = new Map<number, number>();
  const hostile = new Set<number>();
  // Links: the ones the person opened, and the ones the server will report done once opened.
  const openedLinks = new Set<string>();
  const awaitedLinks = new Map<string, { conn: number; id: string }>();
  const roots = new Map<number, string[]>();
  /** The server reports link `url` done (notifications/elicitation/complete), as the desktop's
   * core passes on an awaited one. */
  const complete = (url: string) => {
    const awaited = awaitedLinks.get(url);
    if (!awaited || !openedLinks.has(url)) return;
    awaitedLinks.delete(url);
    setTimeout(() => {
      const params = { elicitationId: awaited.id };
      message(awaited.conn, "in", { jsonrpc: "2.0", method: "notifications/elicitation/complete", params });
      askPerson?.({ event: "link_completed", conn: awaited.conn, elicitationId: awaited.id });
    }, 300);
  };
  /** Asks the person, as the desktop's Questions does: at most MAX_OPEN waiting per connection. */
  const ask = (conn: number, method: string, params: JsonValue, link: UrlElicitation | null = null): Promise<Reply> => {
    if ([...answers.values()].filter((a) => a.conn === conn).length >= MAX_OPEN) {
      const declined = (declinedFor.get(conn) ?? 0) + 1;
      declinedFor.set(conn, declined);
      append({
        conn,
        kind: "note",
        dir: "meta",
        detail: `declined ${method} at once: ${MAX_OPEN} questions of this connection already wait for the person (Sonde's limit); ${declined} declined so far`,
      } as Entry);
      askPerson?.({ event: "declined", conn, method, declined, limit: MAX_OPEN });
      return Promise.resolve({ result: null, refusal: `Sonde declined this ${method}: ${MAX_OPEN} questions wait` });
    }
    const qid = nextQid++;
    return new Promise<Reply>((resolve) => {
      answers.set(qid, { conn, method, resolve });
      askPerson?.({ event: "asked", question: { qid, conn, method, params, problems: [], link } as ServerQuestion });
    });
  };
  const withdraw = (conn: number, reply: (method: string) => Reply, reason: string) => {
    const qids = [...answers].filter(([, a]) => a.conn === conn).map(([qid]) => qid);
    for (const qid of qids) {
      const waiting = answers.get(qid)!;
      answers.delete(qid);
      waiting.resolve(reply(waiting.method));
    }
    if (qids.length) askPerson?.({ event: "withdrawn", qids, reason });
    return qids.length;
  };

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

  // Connection states, as the core's hub keeps them: the newest of each line, and followers.
  const stateFollowers: ((s: ConnectionState) => void)[] = [];
  const lines = new Map<number, ConnectionState>();
  const lineOf = new Map<number, { line: number; serverId: string; name: string; replaces: number | null }>();
  const alive = new Set<number>();
  let version = 0;
  const publish = (conn: number, state: ConnState) => {
    const l = lineOf.get(conn)!;
    const s = {
      event: { version: ++version, conn, line: l.line, replaces: l.replaces, state },
      serverId: l.serverId,
      name: l.name,
    } as ConnectionState;
    lines.set(l.line, s);
    for (const f of stateFollowers) f(s);
  };
  const noWords = { lines: [], minimalEnv: false, withheld: [] };
  const lifecycle = (conn: number, detail: string) => append({ conn, kind: "lifecycle", dir: "meta", detail } as Entry);
  const auth = memoryAuth((conn, detail) => append({ conn, kind: "note", dir: "meta", detail } as Entry));
  // The connections to HTTP servers: no process, so no pid and no shutdown ladder.
  const http = new Set<number>();

  /** Opens an HTTP server (a saved server with a URL), authorizing first when it answers 401. */
  const openHttp = async (conn: number, saved: SavedServer, url: string): Promise<number> => {
    http.add(conn);
    if (!ownServers.includes(url)) ownServers.push(url);
    await wait(STAGE_MS);
    publish(conn, { state: "opening", stage: "probing" });
    if (auth.challenges(url)) {
      // As the core reports it: the opening is at "authorizing" while a flow runs, then back.
      publish(conn, { state: "opening", stage: "authorizing" });
      try {
        await auth.authorize(conn, url);
        publish(conn, { state: "opening", stage: "probing" });
      } catch (refusal) {
        const reason = `could not connect to ${url}: the authorization failed: ${String(refusal)}`;
        publish(conn, { state: "failed", reason, words: noWords });
        throw backendError({ code: "connect_failed", message: reason });
      }
    }
    await request(conn, "server/discover", { _meta: {} }, () => ({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
    }));
    alive.add(conn);
    publish(conn, {
      state: "ready",
      pid: null,
      server: {
        protocolVersion: "2026-07-28",
        era: "modern",
        decidedBy: "server/discover",
        serverInfo: { name: saved.name, version: "0.1.0" },
        icons: [],
        iconsHidden: 0,
        capabilities: { tools: {} },
      },
    } as ConnState);
    return conn;
  };

  /** Opens a saved server as a new connection, on `replaces`'s line when it replaces one. */
  const open = async (saved: SavedServer, replaces: number | null): Promise<number> => {
    const conn = nextConn++;
    const pid = 4000 + conn;
    const line = replaces === null ? conn : lineOf.get(replaces)!.line;
    lineOf.set(conn, { line, serverId: saved.id, name: saved.name, replaces });
    // Each stage lasts long enough for a test on a loaded machine to see it (150 ms was missed).
    publish(conn, { state: "opening", stage: saved.url ? "connecting" : "spawning" });
    append({
      conn,
      kind: "lifecycle",
      dir: "meta",
      detail: `opens the saved server "${saved.name}"`,
      lifecycle: { event: "server", name: saved.name },
    } as Partial<Entry> as Entry);
    if (replaces !== null) lifecycle(conn, `replaces connection ${replaces} (restart)`);
    if (saved.url) return openHttp(conn, saved, saved.url);
    await wait(STAGE_MS);
    if (!ownServers.includes(saved.command)) ownServers.push(saved.command);
    append({
      conn,
      kind: "lifecycle",
      dir: "meta",
      detail: `spawned pid ${pid} (own process group): ${saved.command}`,
      lifecycle: { event: "spawned", pid, command: saved.command },
    } as Partial<Entry> as Entry);
    // The test fixture, as the hostile server of issue 11: malformed tools, a question flood.
    if (saved.command.includes("sonde-fixture")) hostile.add(conn);
    const needsKey = !saved.command.includes("demo-server") && !hostile.has(conn);
    if (needsKey && !saved.env.some((v) => v.key === "API_KEY")) {
      // The most common failure: a variable the minimal environment withheld.
      const said = "Error: API_KEY is not set; export it first";
      append({ conn, kind: "stderr", dir: "in", text: `\u001b[31m${said}\u001b[0m\r\n` } as Entry);
      lifecycle(conn, "server exited with code 1");
      const reason = `could not connect to ${saved.command}: server exited with code 1 while initialize was pending`;
      const words = { lines: [said], minimalEnv: true, withheld: ["API_KEY"] };
      publish(conn, { state: "failed", reason, words });
      throw backendError({ code: "connect_failed", message: reason, lastWords: words });
    }
    append({ conn, kind: "stderr", dir: "in", text: "sonde demo-server 0.1.0 ready on stdio\r\n" } as Entry);
    publish(conn, { state: "opening", stage: "probing" });
    await wait(STAGE_MS);
    await request(conn, "server/discover", { _meta: {} }, () => ({
      supportedVersions: ["2026-07-28", "2025-11-25"],
      capabilities: { tools: {} },
    }));
    alive.add(conn);
    publish(conn, {
      state: "ready",
      pid,
      server: {
        protocolVersion: hostile.has(conn) ? "2025-11-25" : "2026-07-28",
        era: hostile.has(conn) ? "legacy" : "modern",
        decidedBy: hostile.has(conn) ? "server/discover answered -32601; initialize" : "server/discover",
        serverInfo: { name: hostile.has(conn) ? "sonde-fixture" : "sonde-demo", version: "0.1.0" },
        icons: [],
        iconsHidden: 0,
        capabilities: hostile.has(conn)
          ? { tools: {} }
          : {
              tools: {},
              resources: { subscribe: true, listChanged: true },
              prompts: { listChanged: true },
              completions: {},
              logging: {},
            },
      },
    } as ConnState);
    return conn;
  };

  // Tasks, as the core's hub keeps and follows them: the newest view of each, and followers.
  const tasks: TaskView[] = [];
  const taskFollowers: ((v: TaskView) => void)[] = [];
  const cancelledTasks = new Set<string>();
  let taskVersion = 0;
  let nextTask = 1;
  const putTask = (v: TaskView) => {
    const view = { ...v, version: ++taskVersion };
    const at = tasks.findIndex((t) => t.conn === v.conn && t.task.taskId === v.task.taskId);
    if (at < 0) tasks.push(view);
    else tasks[at] = view;
    for (const f of taskFollowers) f(view);
    return view;
  };
  const taskOf = (conn: number, taskId: string) => {
    const view = tasks.find((t) => t.conn === conn && t.task.taskId === taskId);
    if (!view)
      throw backendError({
        code: "rpc_error",
        message: "tasks/get failed: Failed to retrieve task: Task not found (code -32602)",
      });
    return view;
  };
  /** The demo's research task, followed as the core follows a 2026-07-28 task: polled stage by
   * stage, its question asked of the person and answered with tasks/update. */
  const runResearch = async (conn: number, start: TaskView, topic: string, ambiguous: boolean) => {
    let view = start;
    const id = view.task.taskId;
    const now = () => new Date().toISOString();
    const step = (task: Partial<TaskView["task"]>, more: Partial<TaskView> = {}) =>
      (view = putTask({ ...view, ...more, task: { ...view.task, ...task, lastUpdatedAt: now() } }));
    let reading = "";
    for (const [i, stage] of ["Gathering sources", "Analyzing content", "Writing the report"].entries()) {
      await wait(700);
      if (!alive.has(conn)) return step({}, { following: false, error: "the connection ended" });
      await request(conn, "tasks/get", { taskId: id }, () => ({ ...view.task, resultType: "complete" }));
      if (cancelledTasks.has(id))
        return step(
          { status: "cancelled", statusMessage: "Cancelled by request.", terminal: true },
          { following: false },
        );
      if (i === 1 && ambiguous && !reading) {
        step({ status: "input_required", statusMessage: `"${topic}" can be read more than one way.` });
        const params = {
          mode: "form",
          message: `Which "${topic}" do you mean?`,
          requestedSchema: {
            type: "object",
            properties: { interpretation: { type: "string", enum: ["technical", "historical"] } },
            required: ["interpretation"],
          },
        };
        const answer = await ask(conn, "elicitation/create", params);
        const content = (answer.result as { content?: { interpretation?: string } } | null)?.content;
        reading = content?.interpretation ?? "declined";
        await request(
          conn,
          "tasks/update",
          { taskId: id, inputResponses: { interpretation: answer.result } },
          () => ({}),
        );
      }
      step({ status: "working", statusMessage: `${stage}...` });
    }
    await wait(700);
    const result = { content: [{ type: "text", text: `Report on ${topic}${reading ? ` (${reading})` : ""}` }] };
    step(
      { status: "completed", statusMessage: "Done.", terminal: true },
      {
        following: false,
        outcome: { result, problems: [], check: null, task: null, embedded: [], structured_in_text: false } as never,
      },
    );
  };

  /** The shutdown ladder's first step, as the demo server takes it. */
  const stop = async (id: number): Promise<string> => {
    withdraw(id, () => ({ result: { action: "cancel" }, refusal: null }), "the connection ended");
    if (http.has(id)) {
      await wait(120);
      lifecycle(id, "closed the HTTP connection");
      alive.delete(id);
      publish(id, { state: "exited", reason: "closed by Sonde", requested: true, words: noWords });
      return "closed by Sonde";
    }
    publish(id, { state: "stopping", step: "closed stdin; waiting up to 2 s for it to exit" });
    const steps = [
      "closed stdin; waiting up to 2 s for exit",
      "server closed stdout",
      "server exited with code 0 after stdin was closed",
      `process group ${4000 + id} is empty; shutdown complete`,
    ];
    for (const detail of steps) {
      await wait(120);
      lifecycle(id, detail);
    }
    alive.delete(id);
    const reason = "server exited with code 0 after stdin was closed";
    publish(id, { state: "exited", reason, requested: true, words: noWords });
    return reason;
  };

  /** The server dies by itself, as a crash would. */
  const crash = (id: number) => {
    withdraw(id, () => ({ result: { action: "cancel" }, refusal: null }), "the connection ended");
    const said = "panic: crashed on purpose";
    append({ conn: id, kind: "stderr", dir: "in", text: `${said}\r\n` } as Entry);
    lifecycle(id, "server killed by SIGKILL");
    alive.delete(id);
    publish(id, {
      state: "exited",
      reason: "server killed by SIGKILL",
      requested: false,
      words: { ...noWords, lines: [said] },
    });
  };

  const request = async (
    conn: number,
    method: string,
    params: unknown,
    result: (id: number) => unknown | Promise<unknown>,
  ) => {
    if (!alive.has(conn) && method !== "server/discover")
      throw backendError({ code: "server_gone", message: `server killed by SIGKILL; ${method} was not sent` });
    const id = nextId++;
    const t0 = performance.now();
    const seq = message(conn, "out", { jsonrpc: "2.0", id, method, params });
    const value = await result(id);
    if (cancelled.has(id))
      throw backendError({ code: "cancelled", message: `${method} was cancelled: cancelled by the user` });
    message(conn, "in", { jsonrpc: "2.0", id, result: value }, {
      answers: seq,
      latency_ms: Math.round((performance.now() - t0) * 1000) / 1000,
      summary: { type: "result", method, id: String(id) },
    } as Partial<Entry>);
    return value;
  };

  /** A call to the fixture's hostile tools: a result of the wrong shape, or a hundred questions. */
  const hostileCall = async (id: number, name: string) => {
    const result = await request(id, "tools/call", { name }, async () => {
      if (name === "content_not_array")
        return { content: { type: "text", text: "content in an object, not an array" } };
      if (name !== "ask_many") return { content: [{ type: "text", text: `${name} was called` }] };
      const params = { requestedSchema: { type: "object", properties: { name: { type: "string" } } } };
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          ask(id, "elicitation/create", { ...params, message: `Question ${i + 1} of 100: who is asking?` }),
        ),
      );
      const counts = new Map<string, number>();
      for (const r of replies) {
        const action = (r.result as { action: string } | null)?.action ?? "";
        const done: Record<string, string> = { accept: "accepted", decline: "declined", cancel: "cancelled" };
        const said = r.refusal ? `refused: ${r.refusal}` : (done[action] ?? action);
        counts.set(said, (counts.get(said) ?? 0) + 1);
      }
      const text = [...counts].map(([said, n]) => `${n} ${said}`).join("; ");
      return { content: [{ type: "text", text: `asked 100 questions: ${text}` }] };
    });
    const problems = name === "content_not_array" ? ["content is an object, not an array"] : [];
    return { result, problems, check: null, task: null, embedded: [], structured_in_text: false } as never;
  };

  const listSessions = (): SessionInfo[] => [
    {
      name: `${new Date(started).toISOString().replace(/:/g, "-")}-4242.jsonl`,
      started: new Date(started).toISOString(),
      program: "sonde-desktop",
      client: null,
      given_name: null,
      servers: [...ownServers],
      size: own.size(),
      writing: true,
      current: true,
      pinned: false,
      why_incomplete: null,
    },
    ...recorded.map(infoOf),
  ];
  let budgetSettings: SessionsBudget["settings"] = {};
  let layout: Layout = {};
  let theme: Theme = (new URLSearchParams(globalThis.location?.search ?? "").get("theme") as Theme | null) ?? "dark";
  const budgetView = (): SessionsBudget => {
    const all = listSessions();
    return {
      settings: budgetSettings,
      defaults: { keep: 500, maxBytes: 2 * 1024 ** 3 },
      folder: "/memory/sessions",
      sessions: all.length,
      bytes: all.reduce((sum, s) => sum + Number(s.size), 0),
      pruned: null,
    };
  };
  return unsimulatedRejected({
    kind: "memory",
    ...auth.calls,
    ...memorySurface((conn, method, params, result) => request(conn, method, params, result), message, alive, append),
    serversList: async () => servers,
    // The double's disk never fills: its session log takes every entry.
    recordingFollow: async () => [
      {
        stopped: null,
        first_stop: null,
        gaps: 0,
        lost: 0,
        last_gap: null,
        stopped_words: null,
        resumed_words: null,
        outgrown: null,
      },
    ],
    serversSave: async (given) => {
      // What the desktop's serde does: a field the UI left out takes its default.
      const server: SavedServer = { ...blankServer(), ...given } as SavedServer;
      if (!server.name.trim()) throw backendError({ code: "bad_input", message: "a server needs a name" });
      if (!server.command.trim() && !server.url?.trim())
        throw backendError({ code: "bad_input", message: "the command line is empty" });
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
        throw backendError({ code: "bad_input", message: `not JSON: ${(e as Error).message}` });
      }
      const table = (doc.mcpServers ?? doc.servers) as
        Record<string, { command?: string; args?: string[]; url?: string }> | undefined;
      if (!table || typeof table !== "object")
        throw backendError({
          code: "bad_input",
          message: 'no "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code) object',
        });
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
      if (!(name in HOST_ENV))
        throw backendError({ code: "bad_input", message: `${name} is not set in Sonde's environment` });
      if (!servers.some((s) => s.id === serverId))
        throw backendError({ code: "not_found", message: `no saved server ${serverId}` });
      servers = servers.map((s) =>
        s.id === serverId
          ? { ...s, env: [...s.env.filter((v) => v.key !== name), { key: name, value: HOST_ENV[name] }] }
          : s,
      );
      return servers;
    },
    connect: async (serverId) => {
      const saved = servers.find((s) => s.id === serverId);
      if (!saved) throw backendError({ code: "not_found", message: `no saved server ${serverId}` });
      return open(saved, null);
    },
    restart: async (id) => {
      const line = lineOf.get(id);
      if (!line) throw backendError({ code: "not_found", message: `no connection ${id}` });
      if (alive.has(id)) await stop(id);
      const saved = servers.find((s) => s.id === line.serverId);
      if (!saved) throw backendError({ code: "not_found", message: `no saved server ${line.serverId}` });
      return open(saved, id);
    },
    connectionsFollow: async (onState) => {
      stateFollowers.push(onState);
      return [...lines.values()];
    },
    disconnect: async (id) => {
      if (!lineOf.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      return alive.has(id) ? stop(id) : null;
    },
    toolResendRisk: async (tool) => {
      // The core's rule, reduced to what the preview's tools need: read-only tools go again.
      const t = tool as { name: string; annotations?: { readOnlyHint?: boolean } };
      return t.annotations?.readOnlyHint
        ? null
        : `${t.name} may have run before its server ended, and it is not marked idempotent. Send it again as a new request?`;
    },
    toolsList: async (id) => {
      if (hostile.has(id)) {
        await request(id, "tools/list", {}, () => ({ tools: HOSTILE_TOOLS.map((t) => t.raw) }));
        return { tools: HOSTILE_TOOLS, stopped: null };
      }
      await request(id, "tools/list", {}, () => ({ tools: TOOLS }));
      return { tools: TOOLS.map(view), stopped: null };
    },
    toolCall: async (id, tool, args, onProgress) => {
      const name = (tool as { name: string }).name;
      const a = (args ?? {}) as Record<string, unknown>;
      if (hostile.has(id)) return hostileCall(id, name);
      if (name === "research") {
        const at = new Date().toISOString();
        const task = {
          taskId: `task-${nextTask++}-${Math.random().toString(16).slice(2, 10)}`,
          status: "working",
          statusMessage: "Starting...",
          createdAt: at,
          lastUpdatedAt: at,
          ttlMs: 300_000,
          pollIntervalMs: 700,
          terminal: false,
        } as TaskView["task"];
        const created = await request(id, "tools/call", { name, arguments: a }, () => ({
          resultType: "task",
          ...task,
        }));
        const view = putTask({ conn: id, task, tool: name, outcome: null, error: null, following: true, version: 0 });
        void runResearch(id, view, String(a.topic ?? ""), a.ambiguous === true);
        return { result: created, problems: [], check: null, task, embedded: [], structured_in_text: false } as never;
      }
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
          const answer = await ask(id, "elicitation/create", params);
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
        if (name === "bundle") return BUNDLE_RESULT;
        if (name === "profile") {
          const askId = 4000 + rid;
          message(id, "in", { jsonrpc: "2.0", id: askId, method: "elicitation/create", params: PROFILE_QUESTION });
          const answer = await ask(id, "elicitation/create", PROFILE_QUESTION);
          message(id, "out", { jsonrpc: "2.0", id: askId, result: answer.result });
          const r = (answer.result ?? {}) as { action?: string; content?: { name?: string } };
          const text = r.action === "accept" ? `Thanks, ${r.content?.name}.` : `You chose to ${r.action}.`;
          return { content: [{ type: "text", text }] };
        }
        if (name === "sign_in") {
          const params = {
            mode: "url",
            message: SIGN_IN.message,
            url: SIGN_IN.url,
            elicitationId: SIGN_IN.elicitationId,
          };
          const askId = 3000 + rid;
          message(id, "in", { jsonrpc: "2.0", id: askId, method: "elicitation/create", params });
          const answer = await ask(id, "elicitation/create", params, SIGN_IN);
          message(id, "out", { jsonrpc: "2.0", id: askId, result: answer.result });
          const action = (answer.result as { action?: string } | null)?.action;
          if (action === "accept") {
            awaitedLinks.set(SIGN_IN.url, { conn: id, id: SIGN_IN.elicitationId! });
            complete(SIGN_IN.url);
          }
          return { content: [{ type: "text", text: `You chose to ${action} the sign-in link.` }] };
        }
        if (name === "authorize") {
          if (!openedLinks.has(AUTHORIZE.url)) {
            awaitedLinks.set(AUTHORIZE.url, { conn: id, id: AUTHORIZE.elicitationId! });
            const data = {
              elicitations: [
                { mode: "url", message: AUTHORIZE.message, url: AUTHORIZE.url, elicitationId: AUTHORIZE.elicitationId },
              ],
            };
            const error = { code: -32042, message: "This request requires more information.", data };
            message(id, "in", { jsonrpc: "2.0", id: rid, error });
            throw backendError({
              code: "url_elicitation_required",
              message: `tools/call failed: ${error.message} (code -32042); data: ${JSON.stringify(data)}`,
              urlElicitations: { elicitations: [AUTHORIZE], problems: [] },
            });
          }
          return { content: [{ type: "text", text: "Authorized: your files are reachable." }] };
        }
        if (name === "summarize") {
          const params = {
            messages: [{ role: "user", content: { type: "text", text: "Summarize MCP in five words." } }],
            maxTokens: 50,
          };
          const askId = 2000 + rid;
          message(id, "in", { jsonrpc: "2.0", id: askId, method: "sampling/createMessage", params });
          const answer = await ask(id, "sampling/createMessage", params);
          if (answer.refusal) {
            message(id, "out", { jsonrpc: "2.0", id: askId, error: { code: -1, message: answer.refusal } });
            return { content: [{ type: "text", text: `The client refused: ${answer.refusal}` }], isError: true };
          }
          message(id, "out", { jsonrpc: "2.0", id: askId, result: answer.result });
          const reply = answer.result as { content?: { text?: string } };
          return { content: [{ type: "text", text: `Summary: ${reply.content?.text}` }] };
        }
        if (name === "crash") {
          await wait(200);
          crash(id);
          throw backendError({ code: "server_gone", message: "server killed by SIGKILL while tools/call was pending" });
        }
        if (name === "ship" || name === "book") return { content: [{ type: "text", text: JSON.stringify(a) }] };
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
      return { result, problems: [], check, task: null, embedded: name === "bundle" ? BUNDLE_EMBEDDED : [] } as never;
    },
    requestCancel: async () => {
      cancelled.add(nextId - 1);
      return null;
    },
    logPage: async (session, from, to, filter, limit) => logOf(session).page(from, to, filter, limit),
    logRows: async (session, from, limit) => logOf(session).rowPage(from, limit),
    logRow: async (session, seq) => logOf(session).rowOf(seq),
    logLength: async (session) => logOf(session).length(),
    logCountMatches: async (session, filter, to) => logOf(session).countMatches(filter, to),
    logMatchPage: async (session, filter, from, limit) => logOf(session).matchPage(filter, from, limit),
    logFilter: async (filter) => readFilter(filter).view,
    logEntry: async (session, seq) => {
      const entry = logOf(session).page(seq, seq + 1, "", 1).entries[0];
      if (!entry) throw backendError({ code: "not_found", message: `no entry ${seq} in this session` });
      return entry;
    },
    logOutcome: async (session, seq) => logOf(session).outcomeOf(seq),
    logConnections: async (session) => logOf(session).labels(),
    logFollow: async (session, onBatch) => logOf(session).follow(onBatch),
    logExport: async (session, filter) => {
      const log = logOf(session);
      const entries = log.page(0, log.entries.length, filter, log.entries.length).entries.length;
      return { path: "/memory/sonde-session.jsonl", entries };
    },
    sessionsList: async () => listSessions(),
    sessionPin: async (name, pinned) => {
      const r = recorded.find((r) => r.info.name === name);
      if (!r) throw backendError({ code: "io", message: `no session ${name}` });
      r.info.pinned = pinned;
      return listSessions();
    },
    // The double's budget: what the settings hold, the defaults, and a folder that never
    // outgrows it, so saving removes nothing.
    sessionsBudgetGet: async () => budgetView(),
    // The theme as a settings file would keep it; `?theme=light` in the preview's URL starts with one.
    themeGet: async () => theme,
    themeSet: async (chosen) => (theme = chosen),
    // The layout as a settings file would keep it: each value given replaces the saved one.
    layoutGet: async () => ({ ...layout }),
    layoutSet: async (change) => {
      const split = change.split == null ? layout.split : Math.min(0.85, Math.max(0.15, change.split));
      layout = { split, questionFolded: change.questionFolded ?? layout.questionFolded };
      return { ...layout };
    },
    sessionsBudgetSet: async (settings) => {
      if (settings.keep === 0)
        throw backendError({ code: "bad_input", message: "the sessions folder keeps at least one session" });
      budgetSettings = { keep: settings.keep ?? undefined, maxBytes: settings.maxBytes ?? undefined };
      return budgetView();
    },
    sessionOpen: async (name) => {
      const r = recorded.find((s) => s.info.name === name);
      if (!r) throw backendError({ code: "not_found", message: `there is no session "${name}"` });
      const id = nextSession++;
      opened.set(id, r);
      keepWriting(r);
      return { id, session: infoOf(r) };
    },
    sessionClose: async (id) => {
      if (!opened.delete(id)) throw backendError({ code: "not_found", message: `session ${id} is not open` });
      return null;
    },
    serverRequestsFollow: async (handler) => {
      askPerson = handler;
    },
    serverRequestAnswer: async (qid, result, refusal) => {
      const waiting = answers.get(qid);
      if (!waiting) throw backendError({ code: "not_found", message: `question ${qid} is no longer waiting` });
      answers.delete(qid);
      waiting.resolve({ result, refusal });
      return null;
    },
    serverRequestsDeclineAll: async (connId) =>
      withdraw(
        connId,
        (method) =>
          method === "elicitation/create"
            ? { result: { action: "decline" }, refusal: null }
            : { result: null, refusal: "the user declined the request" },
        "declined all from this server",
      ),
    tasksFollow: async (id, onTask) => {
      taskFollowers.push((v) => v.conn === id && onTask(v));
      return tasks.filter((t) => t.conn === id);
    },
    tasksList: async (id) => tasks.filter((t) => t.conn === id),
    diagnostics: async (conn) => logOf(null).diagnostics(conn),
    serverClientSnippet: async () => {
      throw backendError({
        code: "bad_input",
        message: "the config entry is made by the Sonde core: it shows in the Sonde app",
      });
    },
    interfaceDiff: async () => {
      throw backendError({
        code: "bad_input",
        message: "the comparison lists servers and reads files: it runs in the Sonde app, not in the browser preview",
      });
    },
    snapshotFileChoose: async () => null,
    suiteAppend: async () => {
      throw backendError({
        code: "bad_input",
        message: "a test is saved by the Sonde core: it is saved in the Sonde app, not in the browser preview",
      });
    },
    sessionReplay: async () => {
      throw backendError({
        code: "bad_input",
        message: "a replay starts a server: it runs in the Sonde app, not in the browser preview",
      });
    },
    snapshotSave: async () => {
      throw backendError({
        code: "bad_input",
        message: "a snapshot is written by the Sonde core: it is saved in the Sonde app, not in the browser preview",
      });
    },
    doctorRun: async () => {
      throw backendError({
        code: "bad_input",
        message: "the check-up starts servers: it runs in the Sonde app, not in the browser preview",
      });
    },
    taskGet: async (id, taskId) => {
      const view = taskOf(id, taskId);
      await request(id, "tasks/get", { taskId }, () => ({ ...view.task, resultType: "complete" }));
      return taskOf(id, taskId);
    },
    taskCancel: async (id, taskId) => {
      const view = taskOf(id, taskId);
      await request(id, "tasks/cancel", { taskId }, () => ({}));
      // Cancelling is cooperative in 2026-07-28: the next poll says whether the task stopped.
      if (!view.task.terminal) cancelledTasks.add(taskId);
      return view;
    },
    menuChecked: async (id, checked) => {
      menuChecks[id] = checked;
    },
    onMenu: (handler) => {
      menuHandlers.push(handler);
      return () => menuHandlers.splice(menuHandlers.indexOf(handler), 1);
    },
    linkOpen: async (connId, url) => {
      // The core's rule: only http and https links are opened. Recorded, never opened.
      if (!/^https?:\/\//i.test(url))
        throw backendError({
          code: "bad_input",
          message: "Sonde opens only http and https links; this one is not opened.",
        });
      openedLinks.add(url);
      append({
        conn: connId,
        kind: "note",
        dir: "meta",
        detail: `the person opened ${url} in the system browser (in-memory backend: recorded, not opened)`,
      } as Entry);
      complete(url);
      return null;
    },
    connectionRoots: async (id) => {
      if (!alive.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      return roots.get(id) ?? [];
    },
    connectionRootsSet: async (id, list) => {
      if (!alive.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      // The core's reading of the list (src/hub/live_roots.rs), its words copied.
      const kept: string[] = [];
      for (const entry of list.map((r) => r.trim()).filter(Boolean)) {
        if (entry.includes("://"))
          throw backendError({
            code: "bad_input",
            message: `"${entry}" is a URI; give the directory's path (Sonde makes the file:// URI)`,
          });
        if (!entry.startsWith("/"))
          throw backendError({
            code: "bad_input",
            message: `"${entry}" is not an absolute path; a root starts with /`,
          });
        if (kept.includes(entry)) throw backendError({ code: "bad_input", message: `"${entry}" is listed twice` });
        kept.push(entry);
      }
      roots.set(id, kept);
      const legacy = hostile.has(id);
      if (legacy) message(id, "out", { jsonrpc: "2.0", method: "notifications/roots/list_changed" });
      const told = legacy
        ? "sent notifications/roots/list_changed"
        : "2026-07-28 has no roots notification; the server gets them the next time it asks";
      append({
        conn: id,
        kind: "note",
        dir: "meta",
        detail: `roots changed to ${kept.join(", ") || "none"}; ${told}`,
      } as Entry);
      return legacy ? "notified" : "next_ask";
    },
  });
}
