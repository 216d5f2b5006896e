import { describe, expect, it } from "vitest";
import type { ConnectionState } from "../ipc";
import { applyState, stateText } from "./lines";

const at = (line: number, conn: number, version: number, state: ConnectionState["event"]["state"]) =>
  ({ event: { version, conn, line, replaces: null, job: false, state }, serverId: "s", name: "S" }) as ConnectionState;

describe("lines", () => {
  it("keep the newest version of each line, whatever order events arrive in", () => {
    const ready = at(1, 1, 4, { state: "ready", pid: 7, server: {} as never });
    const opening = at(1, 1, 2, { state: "opening", stage: "probing" });
    let lines = applyState(new Map(), ready);
    lines = applyState(lines, opening);
    expect(lines.get(1)).toBe(ready);
    const replaced = at(1, 2, 9, { state: "opening", stage: "spawning" });
    lines = applyState(lines, replaced);
    expect(lines.get(1)?.event.conn).toBe(2);
    expect(lines.size).toBe(1);
  });

  it("say each state in the core's words", () => {
    expect(stateText({ state: "opening", stage: { starting: 3 } })).toBe("starting: no output yet, 3 s");
    expect(stateText({ state: "ready", pid: null, server: {} as never })).toBe("ready · HTTP");
    expect(stateText({ state: "waiting", attempt: 2, wait_ms: 2000, reason: "x" })).toBe("restart attempt 2 in 2 s");
    const words = { lines: [], minimalEnv: false, withheld: [] };
    expect(stateText({ state: "exited", reason: "x", requested: true, words })).toBe("stopped");
  });
});
