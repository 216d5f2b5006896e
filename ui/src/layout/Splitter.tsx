// The full-width bar between the server's panels and the log: dragged with the mouse, or moved
// with the arrow keys once focused (Home and End for the bounds, Enter or a double click for the
// default). The share is shown while dragging and saved when the person lets go.
import { useRef } from "react";
import { SPLIT_DEFAULT, SPLIT_MAX, SPLIT_MIN } from "./layout";

const STEP = 0.05;

export function Splitter({
  split,
  onSplit,
  above,
  below,
}: {
  split: number;
  onSplit(split: number, save: boolean): void;
  /** The two panes the bar divides: the share is of their heights together. */
  above: React.RefObject<HTMLElement | null>;
  below: React.RefObject<HTMLElement | null>;
}) {
  const dragging = useRef<number | null>(null);
  const at = (y: number) => {
    const a = above.current?.getBoundingClientRect();
    const b = below.current?.getBoundingClientRect();
    if (!a || !b) return split;
    return (y - a.top) / (a.height + b.height || 1);
  };
  return (
    <div
      className="splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the server's panels and the log"
      aria-valuemin={Math.round(SPLIT_MIN * 100)}
      aria-valuemax={Math.round(SPLIT_MAX * 100)}
      aria-valuenow={Math.round(split * 100)}
      title="Drag to resize (or focus and use the arrow keys); double-click for the default"
      tabIndex={0}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        dragging.current = e.pointerId;
      }}
      onPointerMove={(e) => {
        if (dragging.current === e.pointerId) onSplit(at(e.clientY), false);
      }}
      onPointerUp={(e) => {
        if (dragging.current !== e.pointerId) return;
        dragging.current = null;
        onSplit(at(e.clientY), true);
      }}
      onPointerCancel={() => (dragging.current = null)}
      onDoubleClick={() => onSplit(SPLIT_DEFAULT, true)}
      onKeyDown={(e) => {
        const next =
          e.key === "ArrowUp"
            ? split - STEP
            : e.key === "ArrowDown"
              ? split + STEP
              : e.key === "Home"
                ? SPLIT_MIN
                : e.key === "End"
                  ? SPLIT_MAX
                  : e.key === "Enter"
                    ? SPLIT_DEFAULT
                    : null;
        if (next === null) return;
        e.preventDefault();
        onSplit(next, true);
      }}
    />
  );
}
