// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type OpenedSession, type SessionInfo } from "../ipc";
import { OpenSessionDialog } from "./OpenSessionDialog";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

describe("opening a past session", () => {
  it("says which session it is reading, and its size, until it is open; Open waits meanwhile", async () => {
    const big = {
      name: "2026-11-30T09-00-00.000Z-7.jsonl",
      started: "2026-11-30T09:00:00.000Z",
      size: 58 * 1048576,
      current: false,
      writing: false,
      pinned: false,
    } as unknown as SessionInfo;
    vi.spyOn(backend, "sessionsList").mockResolvedValue([big]);
    let opened: (s: OpenedSession) => void = () => {};
    vi.spyOn(backend, "sessionOpen").mockReturnValue(new Promise((resolve) => (opened = resolve)));
    const onOpen = vi.fn();
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root!.render(<OpenSessionDialog onOpen={onOpen} onLive={() => {}} onCancel={() => {}} />));
    const list = host.querySelector<HTMLElement>("[role='listbox']")!;
    await act(async () => void list.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true })));
    const status = host.querySelector("[aria-label='Opening']")!;
    expect(status.textContent).toContain("58.0 MiB");
    expect(status.textContent).toContain("reading its entries");
    expect(host.querySelector<HTMLButtonElement>("button[type='submit']")!.disabled).toBe(true);
    expect(onOpen).not.toHaveBeenCalled();
    await act(async () => opened({ id: 1, session: big } as unknown as OpenedSession));
    expect(onOpen).toHaveBeenCalledOnce();
  });
});

describe("a session the person named", () => {
  it("shows its given name before its servers, its file's name as the row's title", async () => {
    const session = (name: string, given_name: string | null) =>
      ({
        name,
        started: "2026-11-30T09:00:00.000Z",
        program: "sonde",
        client: "claude-code",
        given_name,
        servers: ["python server.py"],
        size: 2048,
        current: false,
        writing: false,
        pinned: false,
        why_incomplete: null,
      }) as SessionInfo;
    vi.spyOn(backend, "sessionsList").mockResolvedValue([
      session("2026-11-30T09-00-00.000Z-7.jsonl", "checkout"),
      session("2026-11-30T08-00-00.000Z-6.jsonl", null),
    ]);
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root!.render(<OpenSessionDialog onOpen={() => {}} onLive={() => {}} onCancel={() => {}} />));
    const [named, unnamed] = [...host.querySelectorAll<HTMLElement>("[role='option']")];
    expect(named.title).toBe("2026-11-30T09-00-00.000Z-7.jsonl");
    const what = named.querySelector(".s-servers")!;
    expect(what.firstElementChild?.textContent).toBe("checkout");
    expect(what.textContent).toBe("checkoutpython server.py");
    expect(unnamed.querySelector(".s-servers")!.textContent).toBe("python server.py");
  });
});
