import { describe, expect, it } from "vitest";
import type { Flow, StepView } from "../ipc";
import { applyFlow, applySnapshot, flowHeadline, outcomeOf, showsSteps, stepName, stepStateText } from "./flows";

const running = { state: "running" } as const;
const done = { state: "done" } as const;
const failed = (reason: string) => ({ state: "failed", reason }) as const;
const flow = (steps: StepView[], more: Partial<Flow> = {}): Flow => ({
  conn: 1,
  server: "https://mcp.example.com/mcp",
  steps,
  waiting_at: null,
  over: false,
  ...more,
});

describe("authorization flows", () => {
  it("a connection's newest flow replaces its earlier one", () => {
    const first = flow([{ step: "discovery", state: running }]);
    const other = flow([{ step: "refresh", state: running }], { conn: 2 });
    const second = flow([{ step: "refresh", state: done }], { over: true });
    const flows = [first, other, second].reduce(applyFlow, new Map());
    expect(flows.get(1)).toBe(second);
    expect(flows.get(2)).toBe(other);
    expect(flows.size).toBe(2);
  });

  it("the snapshot fills in connections the stream has not told of, and never overrides the stream", () => {
    const heard = flow([{ step: "token", state: running }]);
    const stale = flow([{ step: "discovery", state: running }]);
    const quiet = flow([{ step: "refresh", state: done }], { conn: 7, over: true });
    const flows = applySnapshot(applyFlow(new Map(), heard), [stale, quiet]);
    expect(flows.get(1)).toBe(heard);
    expect(flows.get(7)).toBe(quiet);
  });

  it("the outcome is read from the flow: waiting, running, done, failed at the last step, or ended", () => {
    const waiting = flow([{ step: "authorization", state: running }], { waiting_at: "https://as/authorize" });
    expect(outcomeOf(waiting)).toBe("waiting");
    expect(outcomeOf(flow([{ step: "discovery", state: running }]))).toBe("running");
    // A refresh that failed is followed by a new authorization that worked: the flow is done.
    const recovered = flow(
      [
        { step: "refresh", state: failed("invalid_grant") },
        { step: "discovery", state: done },
        { step: "authorization", state: done },
        { step: "token", state: done },
      ],
      { over: true },
    );
    expect(outcomeOf(recovered)).toBe("done");
    expect(showsSteps(recovered)).toBe(false);
    const denied = flow([{ step: "authorization", state: failed("access_denied") }], { over: true });
    expect(outcomeOf(denied)).toBe("failed");
    expect(showsSteps(denied)).toBe(true);
    // Over, but no step says how: the window does not claim it worked.
    expect(outcomeOf(flow([], { over: true }))).toBe("ended");
    expect(outcomeOf(flow([{ step: "token", state: running }], { over: true }))).toBe("ended");
  });

  it("says each step and its state in words", () => {
    expect(stepName("discovery")).toBe("Discovery");
    expect(stepName("refresh")).toBe("Refresh");
    expect(stepStateText(running, false)).toBe("running");
    expect(stepStateText(running, true)).toBe("waiting for you in the browser");
    expect(stepStateText(done, false)).toBe("done");
    expect(stepStateText(failed("x"), false)).toBe("failed");
  });

  it("names the flow in one line by its server's host", () => {
    const waiting = flow([{ step: "authorization", state: running }], { waiting_at: "https://as/authorize" });
    expect(flowHeadline(waiting)).toBe("Authorizing for mcp.example.com: waiting for you");
    expect(flowHeadline(flow([{ step: "token", state: done }], { over: true }))).toBe("Authorized for mcp.example.com");
    expect(flowHeadline(flow([{ step: "refresh", state: done }], { over: true }))).toBe(
      "Token for mcp.example.com refreshed",
    );
    const denied = flow([{ step: "authorization", state: failed("access_denied") }], { over: true });
    expect(flowHeadline(denied)).toBe("Authorization for mcp.example.com failed");
    expect(flowHeadline(flow([], { server: "not a url" }))).toBe("Authorizing for not a url");
    expect(flowHeadline(flow([], { server: "" }))).toBe("Authorizing for this server");
  });
});
