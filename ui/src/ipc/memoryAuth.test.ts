import { describe, expect, it } from "vitest";
import type { Flow } from "./backend";
import { memoryBackend } from "./memory";
import { OAUTH_SERVER } from "./memoryAuth";

const authorize = (conn: number, refusal?: string) =>
  (globalThis as unknown as { sondeAuthorize(conn: number, refusal?: string): boolean }).sondeAuthorize(conn, refusal);

/** Resolves with the first flow `heard` sees that `done` accepts. */
const until = (heard: Flow[], done: (f: Flow) => boolean) =>
  new Promise<Flow>((resolve, reject) => {
    const deadline = Date.now() + 8000;
    const look = () => {
      const f = heard.find(done);
      if (f) resolve(f);
      else if (Date.now() > deadline) reject(new Error(`no such flow among ${JSON.stringify(heard)}`));
      else setTimeout(look, 20);
    };
    look();
  });

describe("the in-memory OAuth server", () => {
  it("is authorized through its steps once the browser step completes, and its credential is kept", async () => {
    const backend = memoryBackend();
    const heard: Flow[] = [];
    expect(await backend.authFlowsFollow((f) => heard.push(f))).toEqual([]);
    const connected = backend.connect(OAUTH_SERVER.id);
    const waiting = await until(heard, (f) => f.waiting_at !== null);
    expect(waiting.steps.map((s) => [s.step, s.state.state])).toEqual([
      ["discovery", "done"],
      ["registration", "done"],
      ["authorization", "running"],
    ]);
    expect(waiting.waiting_at).toContain("code_challenge_method=S256");
    await backend.authOpen(waiting.conn);
    expect(authorize(waiting.conn)).toBe(true);
    expect(await connected).toBe(waiting.conn);
    const last = heard.at(-1)!;
    expect(last.over).toBe(true);
    expect(last.steps.map((s) => [s.step, s.state.state]).at(-1)).toEqual(["token", "done"]);
    const [credential] = await backend.credentialsList();
    expect(credential).toMatchObject({ resource: OAUTH_SERVER.url, refreshable: true });
    // With a token held, the next connection meets no 401 and runs no flow.
    const flowsBefore = heard.length;
    await backend.connect(OAUTH_SERVER.id);
    expect(heard.length).toBe(flowsBefore);
    expect(await backend.credentialsForget(OAUTH_SERVER.url!)).toEqual([]);
  }, 15_000);

  it("fails the authorization step with the refusal's words, and the connection with it", async () => {
    const backend = memoryBackend();
    const heard: Flow[] = [];
    await backend.authFlowsFollow((f) => heard.push(f));
    const connected = backend.connect(OAUTH_SERVER.id);
    const waiting = await until(heard, (f) => f.waiting_at !== null);
    authorize(waiting.conn, "access_denied: the person declined");
    await expect(connected).rejects.toMatchObject({ code: "connect_failed" });
    const last = heard.at(-1)!;
    expect(last).toMatchObject({ over: true, waiting_at: null });
    expect(last.steps.at(-1)).toEqual({
      step: "authorization",
      state: { state: "failed", reason: "access_denied: the person declined" },
    });
    expect(() => authorize(waiting.conn)).toThrow("not waiting");
    await expect(backend.authOpen(waiting.conn)).rejects.toMatchObject({ code: "bad_input" });
    expect(await backend.credentialsList()).toEqual([]);
  }, 15_000);
});
