// The in-memory backend's MCP surface beyond tools: the demo server's resources, template,
// prompts, completions, log level, ping, notifications and subscriptions, as the bundled demo
// server (crates/sonde-demo) serves them, so the panels can be tried and tested in a browser;
// its data is canned.json's. It follows the desktop backend's contract; a template is read and
// expanded as the core read the demo's (recorded), and contents by kind only as the demo's need.
import type {
  Backend,
  Completion,
  ContentView,
  Entry,
  JsonValue,
  ListKind,
  LogLevel,
  Notice,
  NoticeEvent,
  ReadView,
  SubscriptionEvent,
} from "./backend";
import { backendError } from "./backend";
import { LOG_LEVELS } from "./bindings";
import canned from "./canned.json";
import RECORDED from "./recorded.json";
import { fill, fillAll, served } from "./memoryTools";

type Request = (conn: number, method: string, params: unknown, result: () => unknown) => Promise<unknown>;
type Message = (conn: number, dir: "in" | "out", msg: Record<string, unknown>) => number;

/** The demo's contents by URI, suggestions by argument (`@language` where a language has its own), prompts. */
type Surface = {
  contents: Record<string, ContentView[]>;
  completions: Record<string, string[]>;
  promptMessages: Record<string, JsonValue>;
};
const { contents: CONTENTS, completions, promptMessages } = canned.surface as unknown as Surface;
const { resources: RESOURCES, templates: TEMPLATES, prompts: PROMPTS } = canned.surface;

const TEMPLATES_READ = RECORDED.templates as Record<string, { variables: unknown; expanded: Record<string, unknown> }>;
const VARIABLES = Object.fromEntries(Object.entries(TEMPLATES_READ).map(([t, read]) => [t, read.variables]));

export function memorySurface(
  request: Request,
  message: Message,
  alive: ReadonlySet<number>,
  append: (e: Partial<Entry> & Pick<Entry, "conn" | "kind" | "dir">) => number,
): Omit<Backend, Exclude<keyof Backend, SurfaceKey>> {
  const levels = new Map<number, LogLevel>();
  const noticeFollowers: ((e: NoticeEvent) => void)[] = [];
  let ticks = 0;
  const saved = new Map<string, string>();
  let nextSub = 1;
  const subs = new Map<
    number,
    { conn: number; uris: string[]; onEvent: (e: SubscriptionEvent) => void; timer: ReturnType<typeof setInterval> }
  >();

  /** A server notification: recorded in the wire log, then told as the core tells it. */
  const notify = (conn: number, method: string, params: Record<string, JsonValue>, what: Notice["what"]) => {
    const seq = message(conn, "in", { jsonrpc: "2.0", method, params });
    const notice = { seq, conn, time: new Date().toISOString(), method, what, params, subscription: null } as Notice;
    for (const f of noticeFollowers) f({ event: "notice", notice });
    return notice;
  };
  /** The demo's log message for a request, when the level asked lets it through. */
  const logFor = (conn: number, data: string) => {
    const level = levels.get(conn);
    if (level && LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf("info"))
      notify(
        conn,
        "notifications/message",
        { level: "info", logger: "demo", data },
        {
          kind: "log",
          level: "info",
          logger: "demo",
          data,
        },
      );
  };
  /** A resource's contents as the demo serves it (canned), a folder's key serving all under it. */
  const contents = (uri: string): ContentView[] => {
    const key = Object.keys(CONTENTS).find((k) => uri === k || (k.endsWith("/") && uri.startsWith(k)));
    if (!key)
      throw backendError({
        code: "rpc_error",
        message: `resources/read failed: Resource not found (code -32602) ${uri}`,
      });
    const values = { ticks, name: decodeURIComponent(uri.slice(key.length)) };
    const filled = (text: string) => fill(text, values);
    return CONTENTS[key].map((c) => ({
      ...c,
      uri,
      ...(c.text && { text: filled(c.text), size: filled(c.text).length }),
    }));
  };
  const lists: Record<ListKind, [string, string, unknown[]]> = {
    tools: ["tools/list", "tools", []],
    resources: ["resources/list", "resources", RESOURCES],
    templates: ["resources/templates/list", "resourceTemplates", TEMPLATES],
    prompts: ["prompts/list", "prompts", PROMPTS],
  };

  return {
    listPage: async (id, kind, cursor) => {
      const [method, key, items] = lists[kind];
      await request(id, method, cursor === null ? {} : { cursor }, () => ({ [key]: items }));
      return { items: items as JsonValue[], nextCursor: null };
    },
    listAll: async (id, kind) => {
      const [method, key, items] = lists[kind];
      await request(id, method, {}, () => ({ [key]: items }));
      return { items: items as JsonValue[], stopped: null };
    },
    resourceRead: async (id, uri) => {
      const read = contents(uri);
      logFor(id, `resources/read ${uri}`);
      const result = {
        contents: read.map((c) => ({
          uri: c.uri,
          mimeType: c.mimeType,
          text: c.text ?? undefined,
          blob: c.blob ?? undefined,
        })),
      };
      await request(id, "resources/read", { uri }, () => result);
      return { contents: read, problems: [], result } as unknown as ReadView;
    },
    resourceSave: async (path, blob) => {
      if (saved.has(path))
        throw backendError({ code: "io", message: `cannot write ${path}: File exists (os error 17)` });
      saved.set(path, blob);
      return path.startsWith("/") ? path : `/home/you/Downloads/${path}`;
    },
    // The core's reading of the demo's template and the URI each value a test gives makes (recorded).
    templateVariables: async (template) => served<string[]>(VARIABLES, template),
    templateExpand: async (template, values) =>
      served<string>(TEMPLATES_READ[template]?.expanded ?? {}, JSON.stringify(values)),
    promptGet: async (id, name, args) => {
      const result = await request(id, "prompts/get", { name, arguments: args }, () => {
        const messages = promptMessages[name];
        if (!messages)
          throw backendError({
            code: "rpc_error",
            message: `prompts/get failed: unknown prompt ${name} (code -32602)`,
          });
        if (name === "review" && !args.language)
          throw backendError({
            code: "rpc_error",
            message: "prompts/get failed: the argument language is required (code -32602)",
          });
        // The arguments filled in where the canned messages name them.
        return { messages: fillAll(messages, { language: args.language, style: args.style || "plain" }) };
      });
      // The README the review prompt embeds, as the core reads it from the real demo (recorded).
      const embedded = name === "review" ? RECORDED.demo.reviewEmbedded : [];
      return { result: result as JsonValue, problems: [], embedded } as never;
    },
    complete: async (id, reference, argument, value, context) => {
      // The demo's suggestions for the argument, in the language chosen where it has its own.
      const all = completions[`${argument}@${context.language}`] ?? completions[argument] ?? [];
      const values = all.filter((v) => v.toLowerCase().startsWith(value.toLowerCase()));
      const params = { ref: reference, argument: { name: argument, value }, context: { arguments: context } };
      await request(id, "completion/complete", params, () => ({
        completion: { values, total: values.length, hasMore: false },
      }));
      return { values, total: values.length, hasMore: false } as Completion;
    },
    logLevelGet: async (id) => levels.get(id) ?? null,
    logLevelSet: async (id, level) => {
      // The demo connection is 2026-07-28: the level rides in later requests' _meta; nothing is sent.
      if (!alive.has(id)) throw backendError({ code: "not_found", message: `no connection ${id}` });
      levels.set(id, level);
      append({
        conn: id,
        kind: "note",
        dir: "meta",
        detail: `log level ${level}: later requests carry it in _meta`,
      } as Entry);
      return null;
    },
    ping: async (id) => {
      const t0 = performance.now();
      await request(id, "server/discover", {}, () => ({ supportedVersions: ["2026-07-28"], capabilities: {} }));
      return { method: "server/discover", ms: Math.round((performance.now() - t0) * 1000) / 1000 };
    },
    notificationsFollow: async (handler) => {
      noticeFollowers.push(handler);
    },
    subscribe: async (id, spec, onEvent) => {
      const uris = spec.uris ?? [];
      const number = nextSub++;
      await request(
        id,
        "subscriptions/listen",
        { notifications: { resourceSubscriptions: uris } },
        () => undefined,
      ).catch(() => undefined);
      const granted = { resourceSubscriptions: uris } as JsonValue;
      onEvent({ event: "acknowledged", granted });
      const timer = setInterval(() => {
        if (!alive.has(id)) {
          clearInterval(timer);
          subs.delete(number);
          onEvent({ event: "ended", reason: `the connection ended: ${RECORDED.demo.stopped}` });
          return;
        }
        for (const uri of uris.filter((u) => u === "demo://clock")) {
          ticks++;
          const notice = notify(id, "notifications/resources/updated", { uri }, { kind: "resource_updated", uri });
          onEvent({ event: "change", notice });
        }
      }, 700);
      subs.set(number, { conn: id, uris, onEvent, timer });
      return number;
    },
    unsubscribe: async (subscription) => {
      const sub = subs.get(subscription);
      if (!sub) return;
      clearInterval(sub.timer);
      subs.delete(subscription);
      sub.onEvent({ event: "ended", reason: "stopped" });
    },
  };
}

type SurfaceKey =
  | "listPage"
  | "listAll"
  | "resourceRead"
  | "resourceSave"
  | "templateVariables"
  | "templateExpand"
  | "promptGet"
  | "complete"
  | "logLevelGet"
  | "logLevelSet"
  | "ping"
  | "notificationsFollow"
  | "subscribe"
  | "unsubscribe";
