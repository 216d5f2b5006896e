import { describe, expect, it } from "vitest";
import { spansWords } from "./SpansSettings";

const view = { setting: null, fromEnv: false, status: null, problem: null };
const status = { endpoint: "http://127.0.0.1:4318/v1/traces", sent: 12, dropped: 0, trouble: null };

describe("the words for where spans go", () => {
  it("says none are sent, and why, before anything else", () => {
    expect(spansWords(view)).toBe("No spans are sent: name a collector to send them to.");
    expect(spansWords({ ...view, problem: "grpc is not spoken", status })).toBe(
      "No spans are sent: grpc is not spoken",
    );
  });

  it("counts what was sent, and what was dropped with the first reason", () => {
    expect(spansWords({ ...view, status })).toBe("Sending spans to http://127.0.0.1:4318/v1/traces: 12 sent");
    expect(spansWords({ ...view, status: { ...status, dropped: 3, trouble: "nothing answers there" } })).toBe(
      "Sending spans to http://127.0.0.1:4318/v1/traces: 12 sent, 3 dropped (nothing answers there)",
    );
  });
});
