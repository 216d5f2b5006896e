// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type Check, type ConnectionState, type Checkup } from "../ipc";
import { DiagnosticsPanel } from "./DiagnosticsPanel";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const LINE = {
  event: { version: 1, conn: 3, line: 3, replaces: null, job: false, state: { state: "ready", pid: 9, server: {} } },
  serverId: "py",
  name: "Python server",
} as unknown as ConnectionState;

const check = (id: string, era: Check["era"], detail: string): Check => ({
  id,
  status: "pass",
  detail,
  seq: null,
  conn: 7,
  era,
});

/** A dual-era server's check-up as the core reports it: each era's checks, each saying its era. */
const DUAL: Checkup = {
  checks: [
    check("handshake", "modern", "server/discover answered with 2026-07-28"),
    check("ping", "modern", "answered"),
    check("handshake", "legacy", "initialize answered with 2025-11-25"),
    check("ping", "legacy", "answered"),
  ],
  tally: "4 pass, 0 warn, 0 fail",
};

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

async function checkUp(report: Checkup): Promise<HTMLElement> {
  vi.spyOn(backend, "diagnostics").mockResolvedValue([]);
  vi.spyOn(backend, "doctorRun").mockResolvedValue(report);
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  await act(async () => root!.render(<DiagnosticsPanel line={LINE} />));
  const run = [...host.querySelectorAll("button")].find((b) => b.textContent === "Check up Python server")!;
  await act(async () => run.click());
  return host;
}

describe("the check-up of a server that answers in both eras", () => {
  // Two `handshake` rows that differ only by era read differently: each names its revision.
  it("tags each check with the revision of the era it was made in", async () => {
    const host = await checkUp(DUAL);
    const rows = [...host.querySelectorAll("table.checks tr")].map((tr) => [
      tr.querySelector("td.id")?.firstChild?.textContent,
      tr.querySelector(".badge.era")?.textContent,
    ]);
    expect(rows).toEqual([
      ["handshake", "2026-07-28"],
      ["ping", "2026-07-28"],
      ["handshake", "2025-11-25"],
      ["ping", "2025-11-25"],
    ]);
    expect(host.querySelector(".badge.era")?.getAttribute("title")).toBe("Checked in the modern era");
  });

  it("tags nothing for an opening that failed before an era was decided", async () => {
    const failed = { ...check("handshake", null, "the server exited before answering"), status: "fail" } as Check;
    const host = await checkUp({ checks: [failed], tally: "0 pass, 0 warn, 1 fail" });
    expect(host.querySelector("table.checks td.id")?.textContent).toBe("handshake");
    expect(host.querySelector(".badge.era")).toBeNull();
  });
});
