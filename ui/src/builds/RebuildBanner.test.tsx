// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import type { Rebuild } from "../ipc";
import { RebuildBanner } from "./RebuildBanner";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
});

function shown(rebuild: Rebuild): HTMLElement {
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(<RebuildBanner rebuild={rebuild} />));
  return host;
}

const step = (version: number, outcome: Rebuild["outcome"]): Rebuild => ({
  version,
  line: 1,
  cause: "a change to server.py",
  outcome,
});

const breaking = {
  severity: "breaking" as const,
  kind: "removed",
  path: "tools/mul",
  old: { name: "mul" },
  new: null,
  detail: "the tool was removed",
};

describe("RebuildBanner", () => {
  it("says a restart in brief as the core did, with its changes one click away", () => {
    const host = shown(
      step(3, { outcome: "restarted", conn: 4, tookMs: 940, changes: [breaking], brief: "1 breaking change" }),
    );
    const banner = host.querySelector("[data-rebuild='restarted']")!;
    expect(banner.textContent).toContain("Restarted after a change to server.py (0.9 s): 1 breaking change.");
    expect(banner.className).toContain("warn");
    expect(host.querySelector("ul[aria-label='Changes']")).toBeNull();
    act(() => [...host.querySelectorAll("button")].find((b) => b.textContent === "Show the changes")!.click());
    expect(host.querySelector("ul[aria-label='Changes']")!.textContent).toBe(
      "breaking tools/mul: the tool was removed",
    );
  });

  it("says why the changes are not known, with no list to open", () => {
    const brief = "the interface could not be listed: the server answered -32601";
    const host = shown(step(5, { outcome: "restarted", conn: 6, tookMs: 1200, changes: null, brief }));
    expect(host.textContent).toContain(`(1.2 s): ${brief}.`);
    expect([...host.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Dismiss"]);
  });

  it("shows a failed build's output in the main pane and says the server was left running", () => {
    const host = shown(
      step(2, { outcome: "build_failed", command: "make", status: "exit status: 2", output: "main.c:3: error\n" }),
    );
    const banner = host.querySelector("[role='alert']")!;
    expect(banner.textContent).toContain(
      "The build after a change to server.py failed (exit status: 2); the server was not restarted.",
    );
    expect(host.querySelector("pre[aria-label='Build output']")!.textContent).toBe("main.c:3: error\n");
  });

  it("says nothing once the watch has stopped", () => {
    expect(shown(step(9, { outcome: "stopped" })).textContent).toBe("");
  });

  it("is dismissed until the next step", () => {
    const host = shown(step(7, { outcome: "start_failed", reason: "the server exited during initialize" }));
    act(() => [...host.querySelectorAll("button")].find((b) => b.textContent === "Dismiss")!.click());
    expect(host.textContent).toBe("");
    act(() => root!.render(<RebuildBanner rebuild={step(8, { outcome: "restarting" })} />));
    expect(host.textContent).toBe("A change to server.py: restarting…");
  });
});
