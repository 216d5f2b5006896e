// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type CallOutcome, type ConnectionState, type ToolView } from "../ipc";
import { ToolsPanel } from "./ToolsPanel";
import { layOutToolList } from "./testing";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const LINE = {
  event: {
    version: 1,
    conn: 2,
    line: 2,
    replaces: null,
    job: false,
    state: { state: "ready", pid: 9, server: { serverInfo: { name: "everything" }, capabilities: { tools: {} } } },
  },
  serverId: "e",
  name: "Everything",
} as unknown as ConnectionState;

/** A tool with no inputSchema: its arguments are typed as JSON. */
const TOOL = {
  name: "trigger-long-running-operation",
  title: null,
  description: "Reports progress",
  inputSchema: null,
  icons: [],
  hints: [],
  problems: [],
  raw: { name: "trigger-long-running-operation" },
} as unknown as ToolView;

const outcome = (text: string) =>
  ({
    result: { content: [{ type: "text", text }] },
    problems: [],
    check: null,
    task: null,
    embedded: [],
    structured_in_text: false,
  }) as unknown as CallOutcome;

let root: Root | null = null;

async function show(stopped: string | null = null) {
  layOutToolList();
  vi.spyOn(backend, "toolsList").mockResolvedValue({ tools: [TOOL], stopped });
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  await act(async () => root!.render(<ToolsPanel line={LINE} />));
  await act(async () => button(host, "trigger-long-running-operationReports progress").click());
  return host;
}

const button = (host: HTMLElement, text: string) =>
  [...host.querySelectorAll("button")].find((b) => b.textContent === text)!;

/** Types into a React-controlled textarea as a person does. */
function type(area: HTMLTextAreaElement, text: string) {
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!.call(area, text);
  area.dispatchEvent(new Event("input", { bubbles: true }));
}

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

describe("a listing the core cut short", () => {
  it("says so above the list, in the core's words", async () => {
    const host = await show(
      "tools/list stopped after 10000 items (Sonde lists at most 10000); the server offered more",
    );
    expect(host.querySelector("[role=status]")?.textContent).toBe(
      "tools/list stopped after 10000 items (Sonde lists at most 10000); the server offered more. " +
        "The list shows the first items only.",
    );
  });

  it("says nothing when the listing is whole", async () => {
    const host = await show();
    expect(host.querySelector("[role=status]")).toBeNull();
  });
});

describe("a call's progress", () => {
  it("is a running bar while the call runs, and once it ends (here cancelled) says it ended", async () => {
    let progress: (p: unknown) => void = () => {};
    let fail: (e: unknown) => void = () => {};
    vi.spyOn(backend, "toolCall").mockImplementation(
      (_conn, _tool, _args, onProgress) =>
        new Promise((_, reject) => {
          progress = onProgress as never;
          fail = reject;
        }),
    );
    const host = await show();
    await act(async () => button(host, "Call").click());
    act(() => progress({ progress: 3, total: 10, message: "step 3 of 10" }));
    expect(host.querySelector("[aria-label='Progress'] progress")).not.toBeNull();
    expect(host.querySelector("[aria-label='Progress']")!.textContent).toBe("step 3 of 10");
    await act(async () => fail({ code: "cancelled", message: "tools/call was cancelled: cancelled by the user" }));
    expect(host.querySelector("progress")).toBeNull();
    const last = host.querySelector("[aria-label='Last call']")!;
    expect(last.querySelector("[aria-label='Progress when the call ended']")!.textContent).toBe(
      "The call ended; its last progress: step 3 of 10",
    );
    expect(last.querySelector("[role='alert']")!.textContent).toBe("tools/call was cancelled: cancelled by the user");
  });
});

describe("an attempt that is not sent", () => {
  it("says so, and marks the result below as the previous call's until a call is sent", async () => {
    const call = vi.spyOn(backend, "toolCall").mockResolvedValueOnce(outcome("first result"));
    const host = await show();
    await act(async () => button(host, "Call").click());
    expect(host.querySelector("[aria-label='Last call'] [aria-label='Tool result']")!.textContent).toContain(
      "first result",
    );
    act(() => type(host.querySelector("textarea")!, '{"duration": '));
    await act(async () => button(host, "Call").click());
    expect(call).toHaveBeenCalledTimes(1);
    const alert = host.querySelector(".tool-call > [role='alert']")!;
    expect(alert.textContent).toMatch(/^Not sent: /);
    const previous = host.querySelector("[aria-label='Previous call']")!;
    expect(previous.querySelector("h3")!.textContent).toBe("The previous call (the attempt above was not sent)");
    expect(previous.querySelector("[aria-label='Tool result']")!.textContent).toContain("first result");
    expect(host.querySelector("[aria-label='Last call']")).toBeNull();
    // Sent again: nothing is marked previous, and the new result replaces the old.
    call.mockResolvedValueOnce(outcome("second result"));
    act(() => type(host.querySelector("textarea")!, '{"duration": 1}'));
    await act(async () => button(host, "Call").click());
    expect(host.querySelector("[aria-label='Previous call']")).toBeNull();
    expect(host.textContent).not.toContain("Not sent");
    expect(host.querySelector("[aria-label='Last call'] [aria-label='Tool result']")!.textContent).toContain(
      "second result",
    );
  });
});

describe("a server with a thousand tools", () => {
  const many = Array.from(
    { length: 1000 },
    (_, i) => ({ ...TOOL, name: `filler_${i + 1}`, description: `Filler number ${i + 1}` }) as unknown as ToolView,
  );

  async function showMany() {
    layOutToolList();
    vi.spyOn(backend, "toolsList").mockResolvedValue({ tools: many, stopped: null });
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root!.render(<ToolsPanel line={LINE} />));
    return host;
  }
  const box = (host: HTMLElement) => host.querySelector<HTMLInputElement>("input[aria-label='Filter tools']")!;
  function typeFilter(host: HTMLElement, text: string) {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(box(host), text);
    box(host).dispatchEvent(new Event("input", { bubbles: true }));
  }
  const drawn = (host: HTMLElement) => [...host.querySelectorAll(".tool-scroll li strong")].map((s) => s.textContent);

  it("draws a screenful of them, not all, and counts them all", async () => {
    const host = await showMany();
    expect(host.querySelector("[aria-label='Tools shown']")!.textContent).toBe("1000 tools");
    expect(drawn(host).length).toBeGreaterThan(0);
    expect(drawn(host).length).toBeLessThan(100);
    // The rows not drawn are a space below the drawn ones, as tall as they would be.
    expect(host.querySelector(".tool-scroll ul")!.getAttribute("style")).toMatch(/padding-bottom: \d{5}px/);
  });

  it("finds the last by its name, and Enter chooses the first match", async () => {
    const host = await showMany();
    act(() => typeFilter(host, "FILLER_1000"));
    expect(drawn(host)).toEqual(["filler_1000"]);
    expect(host.querySelector("[aria-label='Tools shown']")!.textContent).toBe("1 of 1000 tools");
    act(() => box(host).dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true })));
    expect(host.querySelector(".tool-call h2")!.textContent).toBe("filler_1000");
    act(() => typeFilter(host, "filler_77"));
    expect(drawn(host)).toEqual(["filler_77", ...Array.from({ length: 10 }, (_, k) => `filler_${770 + k}`)]);
    // Every word must be found, each anywhere in the name, title or description.
    act(() => typeFilter(host, "number 99 9"));
    expect(drawn(host)).toEqual([
      "filler_99",
      "filler_199",
      "filler_299",
      "filler_399",
      "filler_499",
      "filler_599",
      "filler_699",
      "filler_799",
      "filler_899",
      "filler_990",
      "filler_991",
      "filler_992",
      "filler_993",
      "filler_994",
      "filler_995",
      "filler_996",
      "filler_997",
      "filler_998",
      "filler_999",
    ]);
    act(() => typeFilter(host, "nothing like it"));
    expect(drawn(host)).toEqual([]);
    expect(host.querySelector(".tool-scroll")!.textContent).toContain("No tool matches “nothing like it”.");
    // Escape clears the filter: every tool is counted again.
    act(() => box(host).dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    expect(host.querySelector("[aria-label='Tools shown']")!.textContent).toBe("1000 tools");
  });
});
