// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type ConnectionState } from "../ipc";
import { NoticesProvider } from "./notices";
import { NotificationsPanel } from "./NotificationsPanel";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const line = (state: unknown) =>
  ({
    event: { version: 1, conn: 4, line: 4, replaces: null, job: false, state },
    serverId: "s",
    name: "S",
  }) as unknown as ConnectionState;

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

async function shown(state: unknown): Promise<string> {
  vi.spyOn(backend, "notificationsFollow").mockResolvedValue(undefined);
  act(() => root?.unmount());
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  await act(async () =>
    root!.render(
      <NoticesProvider>
        <NotificationsPanel line={line(state)} />
      </NoticesProvider>,
    ),
  );
  return host.textContent ?? "";
}

describe("an empty Notifications panel", () => {
  it("waits for a ready connection's notifications, and says a failed one sends none", async () => {
    expect(await shown({ state: "ready", pid: 1, server: {} })).toContain("Nothing yet.");
    const failed = await shown({ state: "failed", reason: "server exited with code 1", words: { lines: [] } });
    expect(failed).toContain("Nothing: connection 4 is not ready (failed), so nothing comes from it.");
    expect(failed).not.toContain("Nothing yet");
  });
});
