// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { backend, type LoadReport, type LoadSecond, type SavedRun } from "../../ipc";
import { LoadDialog } from "./LoadDialog";
import { chartWords, niceTop } from "./LoadChart";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const second = (t: number, p99: number, errors = 0): LoadSecond => ({
  t,
  sent: 50,
  answered: 50,
  errors,
  errors_by_kind: errors ? { timeout: errors } : {},
  p50_ms: 0.4,
  p99_ms: p99,
  rate: 50,
  cpu_percent: 12,
  rss_bytes: 4 * 1048576,
});

const report = (p99: number): LoadReport => ({
  count: 100,
  errors: 1,
  errors_by_kind: { timeout: 1 },
  rate: 50,
  latency_ms: { p50: 0.4, p90: 0.9, p99, p999: 900, max: 1000 },
  seconds: [second(1, 2), second(2, p99, 1)],
  histogram: [
    { le_ms: 0.8, count: 99 },
    { le_ms: 1638.4, count: 1 },
  ],
  loop: "open",
  asked: "50/s for 2 s",
  duration_s: 2,
  warmup_s: 0,
  unfinished: 0,
  interrupted: false,
  server_died_s: null,
  recorded: "every call",
  slo: [{ term: "p99<50ms", measured: "p99 was 800 ms", held: false }],
});

let root: Root | null = null;

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
  vi.restoreAllMocks();
});

const button = (host: HTMLElement, text: string) =>
  [...host.querySelectorAll("button")].find((b) => b.textContent === text)!;

describe("Load test…", () => {
  it("draws each second as the core sends it, then the report with its budget, and compares kept runs", async () => {
    const earlier: SavedRun = {
      id: "2026-12-01T10-00-00.000Z",
      server: "everything",
      what: "tools/call echo",
      saved_at: "2026-12-01T10:00:00.000Z",
      report: report(400),
    };
    vi.spyOn(backend, "loadRuns").mockResolvedValue([earlier]);
    let hear: (s: LoadSecond) => void = () => {};
    let finish: (r: LoadReport) => void = () => {};
    const run = vi.spyOn(backend, "loadRun").mockImplementation(
      (_conn, _tool, _args, _settings, onSecond) =>
        new Promise((resolve) => {
          hear = onSecond as never;
          finish = resolve;
        }),
    );
    const stop = vi.spyOn(backend, "loadStop").mockResolvedValue(true);
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    await act(async () =>
      root!.render(
        <LoadDialog conn={3} tool="echo" args={{ message: "{{seq}}" }} server="everything" onClose={() => {}} />,
      ),
    );
    await act(async () => button(host, "Start").click());
    expect(run).toHaveBeenCalledWith(
      3,
      "echo",
      { message: "{{seq}}" },
      { rate: 50, concurrency: null, durationS: 10, warmupS: 0, slo: "" },
      expect.any(Function),
    );
    act(() => hear(second(1, 2)));
    expect(host.querySelector("[aria-label='Load status']")!.textContent).toBe("Running: 1 of 10 s");
    expect(host.querySelector(".load-chart svg")!.getAttribute("aria-label")).toBe(
      "1 second; p99 at most 2.0 ms; 0 errors",
    );
    await act(async () => button(host, "Stop").click());
    expect(stop).toHaveBeenCalledWith(3);
    await act(async () => finish(report(800)));
    const shown = host.querySelector("[aria-label='Load report']")!;
    expect(shown.textContent).toContain("100 calls");
    expect(shown.querySelector("[aria-label='Budget']")!.textContent).toBe("p99<50ms broken: p99 was 800 ms");
    expect(shown.querySelector("[aria-label='Server cost']")!.textContent).toContain("CPU 12%");
    const select = host.querySelector<HTMLSelectElement>("select[aria-label='Compare with']")!;
    await act(async () => {
      select.value = earlier.id;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    const row = [...host.querySelectorAll("[aria-label='Comparison'] tr")].find((r) =>
      r.textContent?.startsWith("p99"),
    )!;
    expect(row.textContent).toBe("p99800 ms400 ms2.00×");
  });

  it("says a run the core refused", async () => {
    vi.spyOn(backend, "loadRuns").mockResolvedValue([]);
    vi.spyOn(backend, "loadRun").mockRejectedValue({
      code: "bad_input",
      message: "the duration must be a number of seconds above 0",
    });
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root!.render(<LoadDialog conn={3} tool="echo" args={null} server="s" onClose={() => {}} />));
    await act(async () => button(host, "Start").click());
    expect(host.querySelector("[role=alert]")!.textContent).toBe("the duration must be a number of seconds above 0");
  });
});

describe("the chart's scales", () => {
  it("tops each scale at 1, 2 or 5 times a power of ten", () => {
    expect([0, 0.7, 3, 12, 450, 1000].map(niceTop)).toEqual([1, 1, 5, 20, 500, 1000]);
    expect(chartWords([])).toBe("No second has ended yet.");
  });
});
