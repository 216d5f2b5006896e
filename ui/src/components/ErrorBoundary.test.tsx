// @vitest-environment happy-dom
import { act, useState } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorBoundary } from "./ErrorBoundary";

// React's act() warns unless the environment says it is a test one.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A panel that renders a server's title as given: an object makes React throw. */
function Title({ title }: { title: unknown }) {
  return <h2>{title as string}</h2>;
}

let bad: unknown = { text: "an object as a title" };

function Window() {
  const [stops, setStops] = useState(0);
  return (
    <>
      <ErrorBoundary name="tools panel">
        <Title title={bad} />
      </ErrorBoundary>
      <button onClick={() => setStops((n) => n + 1)}>Stop</button>
      <span id="stops">{stops}</span>
    </>
  );
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("a panel's error boundary", () => {
  it("shows what failed, keeps the rest of the window working, and tries again", async () => {
    // React reports the caught error on the console; the test shows it on the screen instead.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const host = document.createElement("div");
    document.body.append(host);
    const root = createRoot(host);
    await act(async () => root.render(<Window />));
    const failed = host.querySelector("[role='alert']");
    expect(failed?.getAttribute("aria-label")).toBe("The tools panel failed");
    expect(failed?.textContent).toContain("Objects are not valid as a React child");

    // The server sends a title in words next; the window goes on meanwhile, the failed panel
    // stays set aside until the person tries again.
    bad = "A title in words";
    const stop = [...host.querySelectorAll("button")].find((b) => b.textContent === "Stop")!;
    await act(async () => stop.click());
    expect(host.querySelector("#stops")?.textContent).toBe("1");
    expect(host.querySelector("[role='alert']")).not.toBeNull();

    const again = [...host.querySelectorAll("button")].find((b) => b.textContent === "Try again")!;
    await act(async () => again.click());
    expect(host.querySelector("h2")?.textContent).toBe("A title in words");
    expect(host.querySelector("[role='alert']")).toBeNull();
    await act(async () => root.unmount());
    quiet.mockRestore();
  });
});
