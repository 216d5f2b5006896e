// @vitest-environment happy-dom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import { backend } from "../ipc";
import { RootsEditor } from "./RootsEditor";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;

afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
});

/** Types into a React-controlled input as a person would: the value, then the input event. */
function type(input: HTMLInputElement, value: string) {
  const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
  set.call(input, value);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

const until = async (what: string, cond: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await act(() => new Promise((r) => setTimeout(r, 20)));
  }
};

describe("the roots editor", () => {
  it("adds, edits and removes roots; Enter applies; the core's list and words are shown", async () => {
    // The window's backend is the in-memory one here; it needs a live connection.
    expect(backend.kind).toBe("memory");
    const conn = await backend.connect("demo");
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    act(() => root!.render(<RootsEditor conn={conn} ready />));
    await until("the roots are read", () => host.textContent!.includes("No roots"));
    const button = (text: string) => [...host.querySelectorAll("button")].find((b) => b.textContent === text)!;
    const inputs = () => [...host.querySelectorAll<HTMLInputElement>("input")];

    await act(async () => button("Add root").click());
    expect(document.activeElement).toBe(inputs()[0]);
    await act(async () => type(inputs()[0], "relative/dir"));
    await act(async () => host.querySelector("form")!.requestSubmit());
    await until("the refusal", () => host.querySelector("[role='alert']") !== null);
    expect(host.querySelector("[role='alert']")!.textContent).toBe(
      '"relative/dir" is not an absolute path; a root starts with /',
    );

    await act(async () => type(inputs()[0], "/srv/a"));
    await act(async () => button("Add root").click());
    await act(async () => type(inputs()[1], "/srv/b"));
    await act(async () => host.querySelector("form")!.requestSubmit());
    await until("the change is applied", () => host.querySelector("[role='status']") !== null);
    expect(host.querySelector("[role='status']")!.textContent).toContain("2026-07-28 has no roots notification");
    expect(await backend.connectionRoots(conn)).toEqual(["/srv/a", "/srv/b"]);

    await act(async () => (host.querySelector("[aria-label='Remove root 1']") as HTMLButtonElement).click());
    expect(inputs().map((i) => i.value)).toEqual(["/srv/b"]);
    expect(await backend.connectionRoots(conn)).toEqual(["/srv/a", "/srv/b"]);
    await act(async () => host.querySelector("form")!.requestSubmit());
    await until("the removal is applied", () => host.querySelector("[role='status']") !== null);
    expect(await backend.connectionRoots(conn)).toEqual(["/srv/b"]);
  });

  it("says a connection that is not ready cannot change its roots", () => {
    const host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    act(() => root!.render(<RootsEditor conn={99} ready={false} />));
    expect(host.textContent).toContain("Roots can be changed while the connection is ready.");
    expect(host.querySelector("button[type='submit']")!.hasAttribute("disabled")).toBe(true);
  });
});
