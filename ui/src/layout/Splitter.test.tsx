// @vitest-environment happy-dom
import { act, useRef, useState } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it } from "vitest";
import { Splitter } from "./Splitter";
import { SPLIT_DEFAULT, SPLIT_MAX, SPLIT_MIN, clampSplit } from "./layout";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = "";
});

/** The splitter between two panes, with every change it asks for (and whether to save it). */
function show(start: number) {
  const asked: Array<[number, boolean]> = [];
  function Host() {
    const [split, setSplit] = useState(start);
    const above = useRef<HTMLDivElement>(null);
    const below = useRef<HTMLDivElement>(null);
    return (
      <>
        <div ref={above} />
        <Splitter
          split={split}
          above={above}
          below={below}
          onSplit={(s, save) => {
            asked.push([s, save]);
            setSplit(clampSplit(s));
          }}
        />
        <div ref={below} />
      </>
    );
  }
  const host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root!.render(<Host />));
  const bar = host.querySelector<HTMLElement>("[role='separator']")!;
  const key = (k: string) => act(() => void bar.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true })));
  return { bar, key, asked };
}

describe("the splitter", () => {
  it("moves with the arrow keys, goes to its bounds with Home and End, back to the default with Enter; each saved", () => {
    const { bar, key, asked } = show(0.5);
    expect(bar.getAttribute("aria-valuenow")).toBe("50");
    key("ArrowDown");
    expect(bar.getAttribute("aria-valuenow")).toBe("55");
    key("ArrowUp");
    key("ArrowUp");
    expect(bar.getAttribute("aria-valuenow")).toBe("45");
    key("End");
    expect(bar.getAttribute("aria-valuenow")).toBe(String(SPLIT_MAX * 100));
    key("ArrowDown");
    expect(bar.getAttribute("aria-valuenow")).toBe(String(SPLIT_MAX * 100));
    key("Home");
    expect(bar.getAttribute("aria-valuenow")).toBe(String(SPLIT_MIN * 100));
    key("Enter");
    expect(bar.getAttribute("aria-valuenow")).toBe(String(Math.round(SPLIT_DEFAULT * 100)));
    key("a");
    expect(asked.length).toBe(7);
    expect(asked.every(([, save]) => save)).toBe(true);
  });
});
