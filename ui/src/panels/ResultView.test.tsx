// @vitest-environment happy-dom
import { act, useState } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type CallOutcome, type ConnectionState, type ReadView } from "../ipc";
import { NavigateProvider, useShowsPanels } from "../layout/navigate";
import { ResourcesPanel } from "./ResourcesPanel";
import { ResultView } from "./ResultView";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const b64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** server-everything's shapes: a text block with annotations, a resource link, embedded blobs. */
const OUTCOME = {
  result: {
    content: [
      { type: "text", text: "Operation completed", annotations: { audience: ["user"], priority: 0.7 } },
      {
        type: "resource_link",
        uri: "demo://resource/dynamic/text/2",
        name: "Text Resource 2",
        description: "Resource 2: plaintext resource",
        mimeType: "text/plain",
        annotations: { lastModified: "2025-01-12T15:00:58Z" },
      },
      { type: "resource", resource: { uri: "demo://blob/1", mimeType: "text/plain", blob: b64("Resource 1: bytes") } },
      { type: "resource", resource: { uri: "demo://blob/2", mimeType: "application/zip", blob: "UEsDBA==" } },
    ],
  },
  problems: [],
  check: null,
  task: null,
  // As the core reads the two embedded blobs (shape/content.rs).
  embedded: [
    {
      index: 2,
      view: {
        uri: "demo://blob/1",
        mimeType: "text/plain",
        kind: "text",
        text: "Resource 1: bytes",
        blob: b64("Resource 1: bytes"),
        size: 17,
      },
      problem: null,
    },
    {
      index: 3,
      view: {
        uri: "demo://blob/2",
        mimeType: "application/zip",
        kind: "binary",
        text: null,
        blob: "UEsDBA==",
        size: 4,
      },
      problem: null,
    },
  ],
} as unknown as CallOutcome;

const ready = (line: number, conn: number): ConnectionState =>
  ({
    event: {
      version: 1,
      conn,
      line,
      replaces: null,
      job: false,
      state: {
        state: "ready",
        pid: 42,
        server: {
          protocolVersion: "2025-11-25",
          era: "legacy",
          decidedBy: "initialize",
          icons: [],
          iconsHidden: 0,
          skills: null,
          serverInfo: { name: "everything" },
          capabilities: { resources: {} },
        },
      },
    },
    serverId: "everything",
    name: "Everything",
  }) as ConnectionState;

let root: Root | null = null;
const render = (node: React.ReactNode) => {
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(node));
  return host;
};
const button = (host: HTMLElement, text: string) =>
  [...host.querySelectorAll("button")].find((b) => b.textContent === text)!;

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("a tool result's blocks", () => {
  it("show each block's annotations", () => {
    const host = render(<ResultView outcome={OUTCOME} />);
    const said = [...host.querySelectorAll("[aria-label='Annotations']")].map((a) => a.textContent);
    expect(said).toEqual(["for userpriority 0.7", "modified 2025-01-12T15:00:58Z"]);
  });

  it("show an embedded blob of text decoded, other bytes by size, and save a blob where the person says", async () => {
    const save = vi.spyOn(backend, "resourceSave").mockResolvedValue("/home/you/Downloads/2.zip");
    vi.stubGlobal(
      "prompt",
      vi.fn(() => "2.zip"),
    );
    const host = render(<ResultView outcome={OUTCOME} />);
    const text = host.querySelector("[aria-label='Embedded resource demo://blob/1']")!;
    expect(text.querySelector("pre")!.textContent).toBe("Resource 1: bytes");
    expect(text.textContent).toContain("decoded from its blob");
    const zip = host.querySelector<HTMLElement>("[aria-label='Embedded resource demo://blob/2']")!;
    expect(zip.textContent).toContain("4 B of application/zip, not shown.");
    await act(async () => button(zip, "Save as…").click());
    expect(save).toHaveBeenCalledWith("2.zip", "UEsDBA==");
    expect(zip.querySelector("[role='status']")!.textContent).toBe("Saved to /home/you/Downloads/2.zip");
  });

  it("offer no Open for a resource link where no panel can open it", () => {
    const host = render(<ResultView outcome={OUTCOME} />);
    expect(host.textContent).toContain("Text Resource 2");
    expect(button(host, "Open in Resources")).toBeUndefined();
  });
});

describe("a resource link opened from a tool result", () => {
  /** The window in small: a tab choice it is told to change, a result and the Resources panel. */
  function Window() {
    const [panel, setPanel] = useState("tools");
    useShowsPanels(setPanel);
    return (
      <>
        <span id="panel">{panel}</span>
        <ResultView outcome={OUTCOME} line={5} />
        <ResourcesPanel line={ready(5, 9)} />
        <ResourcesPanel line={ready(6, 10)} />
      </>
    );
  }

  it("shows the Resources panel and reads the URI there, on its own line only, once per Open", async () => {
    vi.spyOn(backend, "listPage").mockResolvedValue({ items: [], nextCursor: null } as never);
    vi.spyOn(backend, "listAll").mockResolvedValue({ items: [], stopped: null });
    const read = vi.spyOn(backend, "resourceRead").mockResolvedValue({
      contents: [
        { uri: "demo://resource/dynamic/text/2", mimeType: "text/plain", kind: "text", text: "Resource 2", size: 10 },
      ],
      problems: [],
      result: {},
    } as unknown as ReadView);
    const host = render(
      <NavigateProvider>
        <Window />
      </NavigateProvider>,
    );
    await act(async () => {});
    await act(async () => button(host, "Open in Resources").click());
    expect(host.querySelector("#panel")!.textContent).toBe("resources");
    expect(read.mock.calls).toEqual([[9, "demo://resource/dynamic/text/2"]]);
    const linked = host.querySelectorAll("[aria-label='Linked resource']");
    expect(linked.length).toBe(1);
    expect(linked[0].querySelector("h2")!.textContent).toBe("Text Resource 2");
    expect(linked[0].querySelector("[aria-label='Resource contents'] pre")!.textContent).toBe("Resource 2");
    await act(async () => button(host, "Open in Resources").click());
    expect(read).toHaveBeenCalledTimes(2);
  });
});
