import { describe, expect, it } from "vitest";
import type { JsonValue, ServerDescription } from "../ipc";
import { memoryBackend } from "../ipc/memory";
import { declares } from "./line";
import { argumentsOf } from "./PromptsPanel";
import { capabilityLines } from "./ServerPanel";

const server = (capabilities: unknown) => ({ capabilities }) as unknown as ServerDescription;

describe("what the panels read from a server", () => {
  it("says capabilities in words, sub-capabilities switched on only", () => {
    expect(
      capabilityLines({
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        tasks: { requests: { tools: { call: {} } } },
      }),
    ).toEqual(["tools", "resources: subscribe, listChanged", "logging", "tasks: requests (tools)"]);
    expect(capabilityLines("not an object")).toEqual([]);
  });

  it("tells a declared capability from one absent or switched off", () => {
    const s = server({ resources: { subscribe: false, listChanged: true }, completions: {} });
    expect(declares(s, "resources")).toBe(true);
    expect(declares(s, "completions")).toBe(true);
    expect(declares(s, "resources.subscribe")).toBe(false);
    expect(declares(s, "resources.listChanged")).toBe(true);
    expect(declares(s, "prompts")).toBe(false);
    expect(declares(null, "prompts")).toBe(false);
  });

  it("reads a prompt's arguments, leaving out entries without a name", () => {
    const prompt: JsonValue = {
      name: "p",
      arguments: [{ name: "a", required: true }, { title: "no name" }, { name: "b", title: "B" }],
    };
    expect(argumentsOf(prompt)).toEqual([
      { name: "a", title: null, description: null, required: true },
      { name: "b", title: "B", description: null, required: false },
    ]);
    expect(argumentsOf({ name: "p", arguments: "x" })).toEqual([]);
  });
});

describe("the in-memory demo's surface, as the panels use it", () => {
  it("completes in context, and a subscription is acknowledged, updated and ended", async () => {
    const backend = memoryBackend();
    const conn = await backend.connect("demo");
    const review = { type: "ref/prompt" as const, name: "review" };
    expect((await backend.complete(conn, review, "style", "", { language: "rust" })).values).toContain("clippy");
    expect((await backend.complete(conn, review, "style", "", { language: "go" })).values).not.toContain("clippy");
    const events: string[] = [];
    const got = new Promise<void>((resolve) =>
      backend.subscribe(conn, { uris: ["demo://clock"] }, (e) => {
        events.push(e.event);
        if (e.event === "change") resolve();
      }),
    );
    await got;
    await backend.unsubscribe(1);
    expect(events[0]).toBe("acknowledged");
    expect(events.at(-1)).toBe("ended");
  }, 10_000);
});
