// An in-memory backend: a simulated demo server with a wire log, for UI tests and for the UI
// in a plain browser. OAuth, tasks, crashes and hostile servers are the real window's checks,
// against the core (src-tauri/e2e/).
// It follows the desktop backend's contract, not its implementation: a demo tool's call plays its
// script (memoryTools.ts), and what the core decides is its recorded answer.
import type {
  Backend,
  Calls,
  ConnectionState,
  ConnState,
  Entry,
  JsonValue,
  QuestionEvent,
  RootsChange,
  SavedServer,
  ServerQuestion,
  SessionInfo,
  SessionRef,
  SessionsBudget,
  Theme,
  Layout,
  UrlElicitation,
} from "./backend";
import { backendError, blankServer } from "./backend";
import { commands } from "./bindings";
import canned from "./canned.json";
import RECORDED from "./recorded.json";
import { infoOf, keepWriting, MemoryLog, recordedSessions, type Recorded } from "./memoryLog";
import { memorySurface } from "./memorySurface";
import { matcherOf, readFilter } from "./memoryFilter";
import { fill, LINKS, SCRIPTS, served, TOOLS, type Script } from "./memoryTools";

/** The lifecycle of the real demo's connection, as the core recorded it: its opening (the saved
 * server named, the process spawned), then the rest of the steps as it stops. */
const STEPS: { detail: string; lifecycle: { event: string } }[] = RECORDED.demo.lifecycle;
const OPENING = ["server", "spawned"].map((event) => STEPS.find((s) => s.lifecycle.event === event)!);

/** How long the in-memory backend keeps a connection in each opening stage. */
const STAGE_MS = 600;

/** What the double simulates: any of the commands, and the app menu. */
type Simulated = Partial<Calls> & Omit<Backend, keyof Calls>;

/** Commands only the app can run, and why: the double refuses them as bad input, saying so. */
const APP_ONLY: Record<string, string> = {
  serverClientSnippet: "the config entry is made by the Sonde core",
  interfaceDiff: "the diff lists servers and reads files",
  suiteAppend: "a test is saved by the Sonde core",
  sessionReplay: "a replay starts a server",
  snapshotSave: "a snapshot is written by the Sonde core",
  doctorRun: "the check-up starts servers",
  callHistory: "the call history is read from the session log by the Sonde core",
  callAt: "a call is read back from the session log by the Sonde core",
};

/** The double, whole: a command it does not simulate rejects, saying so, so a command added in
 * Rust needs no edit here until a UI test (or the browser preview) reaches it. */
export function unsimulatedRejected(simulated: Simulated): Backend {
  const whole: Record<string, unknown> = { ...simulated };
  for (const name of Object.keys(commands)) {
    const why = APP_ONLY[name];
    whole[name] ??= async () => {
      throw backendError(
        why
          ? { code: "bad_input", message: `${why}: it runs in the Sonde app, not in the browser preview` }
          : { code: "not_found", message: `the in-memory backend does not simulate ${name}; the desktop app has it` },
      );
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
  let servers: SavedServer[] = [{ ...blankServer(), id: "demo", name: "Demo server", command: "sonde demo-server" }];
  let nextConn = 1;
  let nextId = 1;
  const started = Date.now();
  const cancelled = new Set<number>();
  let askPerson: ((e: QuestionEvent) => void) | null = null;
  let nextQid = 1;
  type Reply = { result: JsonValue | null; refusal: string | null };
  const answers = new Map<number, { conn: number; method: string; resolve: (a: Reply) => void }>();
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
  /** Asks the person, as the desktop's Questions does. The double's server asks one question at
   * a time; the limit on those waiting is the real window's check (the hostile fixture). */
  const ask = (conn: number, method: string, params: JsonValue, link: UrlElicitation | null = null): Promise<Reply> => {
    const qid = nextQid++;
    return new Promise<Reply>((resolve) => {
      answers.set(qid, { conn, method, resolve });
      askPerson?.({ event: "asked", question: { qid, conn, method, params, problems: [], link } as ServerQuestion });
    });
  };
  /** The server asks the person `method` as its request `askId`, and the client's answer goes back. */
  const askOnWire = async (conn: number, askId: number, method: string, params: JsonValue, link?: UrlElicitation) => {
    message(conn, "in", { jsonrpc: "2.0", id: askId, method, params });
    const answer = await ask(conn, method, params, link);
    const refused = { code: -1, message: answer.refusal };
    message(conn, "out", {
      jsonrpc: "2.0",
      id: askId,
      ...(answer.refusal ? { error: refused } : { result: answer.result }),
    });
    return answer;
  };
  /** A tool's result of one text block. */
  const said = (text: string, isError = false) => ({ content: [{ type: "text", text }], ...(isError && { isError }) });
  /** Plays a demo tool's script (canned.json's calls) as the call's server, request `rid`. */
  const play = async (conn: number, rid: number, script: Script, args: Record<string, unknown>) => {
    if (script.result) return script.result;
    const link = script.link && LINKS[script.link];
    /** The server waits for `link` to be opened, then reports it done. */
    const awaits = (link: UrlElicitation) => {
      awaitedLinks.set(link.url, { conn, id: link.elicitationId! });
      complete(link.url);
    };
    if (link && !script.asks && !openedLinks.has(link.url)) {
      // The call needs the link opened first (-32042), and is sent again once it is.
      awaits(link);
      const { message: words, url, elicitationId } = link;
      const data = { elicitations: [{ mode: "url", message: words, url, elicitationId }] };
      const error = { code: -32042, message: "This request requires more information.", data };
      message(conn, "in", { jsonrpc: "2.0", id: rid, error });
      throw backendError({
        code: "url_elicitation_required",
        message: `tools/call failed: ${error.message} (code -32042); data: ${JSON.stringify(data)}`,
        urlElicitations: { elicitations: [link], problems: [] },
      });
    }
    let answer: Reply = { result: null, refusal: null };
    if (script.asks) {
      const asked = link
        ? { mode: "url", message: link.message, url: link.url, elicitationId: link.elicitationId }
        : script.params!;
      answer = await askOnWire(conn, 1000 + rid, script.asks, asked, link || undefined);
      if (link && (answer.result as { action?: string } | null)?.action === "accept") awaits(link);
    }
    const got = (answer.result ?? {}) as Record<string, unknown>;
    const key = answer.refusal ? "refused" : String(got.action ?? "*");
    return said(
      fill(script.says![key] ?? script.says!["*"], { ...args, arguments: args, ...got, ...answer }),
      !!answer.refusal,
    );
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
  // `?entries=N` in the preview's URL (and the UI tests of long logs) starts with N log messages.
  for (let i = 0; i < seed; i++)
    message(0, "in", {
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: `seeded ${i}` },
    });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // Connection states, as the core's hub keeps them: the newest of each, and followers. No
  // connection is restarted here, so each is on a line of its own.
  const stateFollowers: ((s: ConnectionState) => void)[] = [];
  const states = new Map<number, ConnectionState>();
  const lineOf = new Map<number, { serverId: string; name: string }>();
  const alive = new Set<number>();
  let version = 0;
  // When the demo's interface became its drift baseline (`baselineCheck`).
  let baselineKept: string | null = null;
  const publish = (conn: number, state: ConnState) => {
    const l = lineOf.get(conn)!;
    const s = {
      event: { version: ++version, conn, line: conn, replaces: null, job: false, state },
      serverId: l.serverId,
      name: l.name,
    } as ConnectionState;
    states.set(conn, s);
    for (const f of stateFollowers) f(s);
  };
  const noWords = { lines: [], minimalEnv: false, withheld: [] };
  /** A lifecycle step of the real demo's connection as the core recorded it, told of connection
   * `conn` with its pid, command and saved server's name. */
  const told = (conn: number, step: (typeof STEPS)[number], saved: SavedServer) => {
    const fill: Record<string, string> = { pid: String(4000 + conn), command: saved.command, name: saved.name };
    const text = JSON.stringify(step)
      .replace(/"\{pid\}"/g, fill.pid)
      .replace(/\{(pid|command|name)\}/g, (_, k: string) => JSON.stringify(fill[k]).slice(1, -1));
    append({ conn, kind: "lifecycle", dir: "meta", ...JSON.parse(text) });
  };

  /** Opens a saved server as a new connection, on a line of its own. */
  const open = async (saved: SavedServer): Promise<number> => {
    const conn = nextConn++;
    const pid = 4000 + conn;
    lineOf.set(conn, { serverId: saved.id, name: saved.name });
    // Each stage lasts long enough for a test on a loaded machine to see it (150 ms was missed).
    publish(conn, { state: "opening", stage: "spawning" });
    told(conn, OPENING[0], saved);
    await wait(STAGE_MS);
    if (!ownServers.includes(saved.command)) ownServers.push(saved.command);
    told(conn, OPENING[1], saved);
    append({ conn, kind: "stderr", dir: "in", text: "sonde demo-server 0.1.0 ready on stdio\r\n" } as Entry);
    publish(conn, { state: "opening", stage: "probing" });
    await wait(STAGE_MS);
    await request(conn, "server/discover", { _meta: {} }, () => ({
      supportedVersions: ["2026-07-28", "2025-11-25"],
      capabilities: { tools: {} },
    }));
    alive.add(conn);
    // The server as the core describes the real demo server once connected.
    publish(conn, { state: "ready", pid, server: RECORDED.demo.server } as unknown as ConnState);
    return conn;
  };

  /** The shutdown ladder's first step, as the demo server takes it. */
  const stop = async (id: number): Promise<string> => {
    withdraw(id, () => ({ result: { action: "cancel" }, refusal: null }), "the connection ended");
    publish(id, { state: "stopping", step: "closed stdin; waiting up to 2 s for it to exit" });
    for (const step of STEPS.filter((s) => !OPENING.includes(s))) {
      await wait(120);
      told(id, step, servers.find((s) => s.id === lineOf.get(id)!.serverId) ?? blankServer());
    }
    alive.delete(id);
    const reason = RECORDED.demo.stopped;
    publish(id, { state: "exited", reason, requested: true, words: noWords });
    return reason;
  };

  const request = async (
    conn: number,
    method: string,
    params: unknown,
    result: (id: number) => unknown | Promise<unknown>,
  ) => {
    if (!alive.has(conn) && method !== "server/discover")
      throw backendError({ code: "server_gone", message: `the connection ended; ${method} was not sent` });
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
  let otelEndpoint: string | null = null;
  const spansView = () => ({
    setting: otelEndpoint,
    fromEnv: false,
    status: null,
    problem: otelEndpoint ? "the browser preview sends no spans" : null,
  });
  const budgetView = (): SessionsBudget => {
    const all = listSessions();
    return {
      settings: budgetSettings,
      // The double's own: the core's size default depends on the disk its folder is on.
      defaults: canned.budgetDefaults,
      folder: "/memory/sessions",
      sessions: all.length,
      bytes: all.reduce((sum, s) => sum + Number(s.size), 0),
      pruned: null,
    };
  };
  return unsimulatedRejected({
    kind: "memory",
    // The double's server asks for no authorization.
    authFlowsFollow: async () => [],
    ...memorySurface((conn, method, params, result) => request(conn, method, params, result), message, alive, append),
    serversList: async () => servers,
    // The double's disk never fills: its session log takes every entry.
    recordingFollow: async () => [canned.recording],
    serversSave: async (given) => {
      // What the desktop's serde does: a field the UI left out takes its default.
      const server: SavedServer = { ...blankServer(), ...given } as SavedServer;
      const i = servers.findIndex((s) => s.id === server.id && server.id !== "");
      servers =
        i >= 0 ? servers.map((s, j) => (j === i ? server : s)) : [...servers, { ...server, id: `s${Date.now()}` }];
      return servers;
    },
    serversDelete: async (id) => (servers = servers.filter((s) => s.id !== id)),
    serversImport: async (text) => {
      // The core's reading of each pasted config a test gives (recorded); the double saves it.
      const read = served<{ servers: SavedServer[]; skipped: string[] }>(RECORDED.imports, text);
      const added = read.servers.map((s) => ({ ...s, id: `imported-${s.name}` }));
      servers = [...servers, ...added];
      return { servers: added, skipped: read.skipped };
    },
    connect: async (serverId) => {
      const saved = servers.find((s) => s.id === serverId);
      if (!saved) throw backendError({ code: "not_found", message: `no saved server ${serverId}` });
      if (saved.url || !saved.command.includes("demo-server"))
        throw backendError({
          code: "bad_input",
          message: `the browser preview runs only the demo server; the Sonde app runs ${saved.url || saved.command}`,
        });
      return open(saved);
    },
    connectionsFollow: async (onState) => {
      stateFollowers.push(onState);
      return [...states.values()];
    },
    // The double runs only the demo server, which no saved Restart on change watches.
    rebuildsFollow: async () => [],
    // The demo's interface never changes here: the first check keeps it as the baseline, and
    // the later ones find it unchanged, as the core would.
    baselineCheck: async (id, accept) => {
      if (!lineOf.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      const keptAt = baselineKept;
      baselineKept ??= new Date().toISOString();
      return { keptAt, changes: [], brief: "interface unchanged", keptNow: keptAt === null || accept };
    },
    disconnect: async (id) => {
      if (!lineOf.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      return alive.has(id) ? stop(id) : null;
    },
    toolsList: async (id) => {
      await request(id, "tools/list", {}, () => ({ tools: TOOLS.map((t) => t.raw) }));
      return { tools: TOOLS, stopped: null };
    },
    toolCall: async (id, tool, args, onProgress) => {
      const name = (tool as { name: string }).name;
      const a = (args ?? {}) as Record<string, unknown>;
      const script = SCRIPTS[name];
      const result = await request(id, "tools/call", { name, arguments: a }, async (rid) => {
        if (script) return play(id, rid, script, a);
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
      return { result, problems: [], check, task: null, embedded: script?.embedded ?? [] } as never;
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
    logMatchPosition: async (session, filter, seq) => logOf(session).matchPosition(filter, seq),
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
    // The preview sends no spans: it says so for a collector it is given.
    spansGet: async () => spansView(),
    spansSet: async (endpoint) => {
      if (endpoint !== null && !/^https?:\/\/[^/]/.test(endpoint)) {
        throw backendError({ code: "bad_input", message: `${endpoint} is not an http or https URL` });
      }
      otelEndpoint = endpoint;
      return spansView();
    },
    themeGet: async () => theme,
    themeSet: async (chosen) => (theme = chosen),
    // The layout as a settings file would keep it: each value given replaces the saved one.
    layoutGet: async () => ({ ...layout }),
    layoutSet: async (change) => {
      layout = { split: change.split ?? layout.split, questionFolded: change.questionFolded ?? layout.questionFolded };
      return { ...layout };
    },
    // A folder that never outgrows its budget: saving would remove nothing.
    sessionsBudgetPreview: async (settings) => {
      const now = budgetView();
      const budget = { keep: settings.keep ?? now.defaults.keep, maxBytes: settings.maxBytes ?? now.defaults.maxBytes };
      return { budget, removed: [], inUse: [], sessions: now.sessions, bytes: now.bytes };
    },
    sessionsBudgetSet: async (settings) => {
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
    // The double's server runs no task (server-everything's tasks are the real window's checks).
    tasksFollow: async () => [],
    tasksList: async () => [],
    // The double's servers send no frame the core finds fault with, so no connection has findings.
    diagnostics: async () => [],
    snapshotFileChoose: async () => null,
    menuChecked: async (id, checked) => {
      menuChecks[id] = checked;
    },
    onMenu: (handler) => {
      menuHandlers.push(handler);
      return () => menuHandlers.splice(menuHandlers.indexOf(handler), 1);
    },
    linkOpen: async (connId, url) => {
      // Recorded, never opened.
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
      // The core's reading of each list a test sets, and what it tells a 2026-07-28 server (recorded).
      const taken = RECORDED.demo.roots as Record<string, { roots?: string[] }>;
      const change = served<RootsChange>(taken, JSON.stringify(list));
      roots.set(id, taken[JSON.stringify(list)].roots!);
      return change;
    },
  });
}
