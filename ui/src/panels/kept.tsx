// Keeps a subtree per key mounted while another key's is shown, with only the shown one in the
// document: each key renders through a portal into a box of its own, and the shown key's box is
// the one attached under the host. A line's panels thus keep their forms, results and calls still
// running while another line is shown, and nothing hidden can be found, focused or read aloud.
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";

export function Kept({
  shown,
  keys,
  render,
}: {
  /** The key whose subtree is in the document. */
  shown: number;
  /** Every key kept mounted; a key no longer here is unmounted. */
  keys: readonly number[];
  render(key: number): ReactNode;
}) {
  // The boxes live as long as the component; a box is the same element for its key's whole life,
  // so React never remounts what it holds when it is attached or detached.
  const [boxes] = useState(() => new Map<number, HTMLDivElement>());
  const boxOf = (key: number) => {
    let box = boxes.get(key);
    if (!box) {
      box = document.createElement("div");
      box.className = "line-box";
      boxes.set(key, box);
    }
    return box;
  };
  for (const key of [...boxes.keys()]) if (!keys.includes(key) && key !== shown) boxes.delete(key);
  const host = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    // Only when the shown box changes: detaching a box, even to attach it again at once,
    // reloads every frame in it (an MCP App would start over at each render of the window).
    const box = boxOf(shown);
    if (host.current && host.current.firstChild !== box) host.current.replaceChildren(box);
  });
  return (
    <>
      <div ref={host} className="line-host" />
      {[...new Set([...keys, shown])].map((key) => createPortal(render(key), boxOf(key), String(key)))}
    </>
  );
}
