import { describe, expect, it, vi } from "vitest";

// The generated bindings call Tauri's `invoke`; here it records what the adapter hands it.
const invoked: { command: string; args: Record<string, unknown> }[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: vi.fn(async (command: string, args: Record<string, unknown>) => {
    invoked.push({ command, args });
    return 7;
  }),
  Channel: class {
    onmessage: (message: unknown) => void = () => {};
  },
}));
vi.mock("@tauri-apps/api/event", () => ({ emit: vi.fn(), listen: vi.fn() }));

describe("the desktop backend's one adapter", () => {
  it("passes arguments as the bindings name them, and a callback as a channel that reaches it", async () => {
    const { tauriBackend } = await import("./tauri");
    const heard: unknown[] = [];
    expect(await tauriBackend.logFollow(3, (batch) => heard.push(batch))).toBe(7);
    const call = invoked.at(-1)!;
    expect(call.command).toBe("log_follow");
    expect(call.args.session).toBe(3);
    const channel = call.args.channel as { onmessage: (m: unknown) => void };
    channel.onmessage({ entries: [], rows: [], skipped: 0, ended: true });
    expect(heard).toEqual([{ entries: [], rows: [], skipped: 0, ended: true }]);
  });

  it("has every generated command, so a command added in Rust needs no edit here", async () => {
    const { tauriBackend } = await import("./tauri");
    const { commands } = await import("./bindings");
    for (const name of Object.keys(commands))
      expect(typeof (tauriBackend as Record<string, unknown>)[name]).toBe("function");
  });
});

describe("the in-memory double", () => {
  it("rejects a command it does not simulate, naming it", async () => {
    const { unsimulatedRejected } = await import("./memory");
    const double = unsimulatedRejected({ kind: "memory", onMenu: () => () => {}, menuChecked: async () => {} });
    await expect(double.ping(1)).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("ping") });
  });
});
