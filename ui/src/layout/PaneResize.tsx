// The handle that sizes one pane in pixels: the timeline's height, the entry detail's width.
// Dragged with the mouse, or moved with the arrow keys once focused; the size is shown as it
// moves and saved when the person lets go.
import { useRef } from "react";

const STEP = 20;

export function PaneResize({
  label,
  vertical,
  size: given,
  measure,
  onSize,
  grow,
}: {
  label: string;
  /** A vertical bar sizes a width (left and right), a horizontal one a height. */
  vertical: boolean;
  /** The pane's size as set; `null` until the person sets one, when `measure` says it. */
  size: number | null;
  measure?(): number;
  onSize(size: number, save: boolean): void;
  /** 1 when moving right (or down) makes the pane larger, -1 when moving left (or up) does. */
  grow: 1 | -1;
}) {
  const drag = useRef<{ at: number; from: number } | null>(null);
  const along = (e: { clientX: number; clientY: number }) => (vertical ? e.clientX : e.clientY);
  const [less, more] = vertical ? ["ArrowLeft", "ArrowRight"] : ["ArrowUp", "ArrowDown"];
  const size = () => given ?? measure?.() ?? 0;
  return (
    <div
      className={`pane-resize ${vertical ? "vertical" : "horizontal"}`}
      role="separator"
      aria-orientation={vertical ? "vertical" : "horizontal"}
      aria-label={label}
      aria-valuenow={given === null ? undefined : Math.round(given)}
      title={`${label}: drag, or focus and use the arrow keys`}
      tabIndex={0}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        drag.current = { at: along(e), from: size() };
        (e.target as Element).setPointerCapture?.(e.pointerId);
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (d) onSize(d.from + grow * (along(e) - d.at), false);
      }}
      onPointerUp={(e) => {
        const d = drag.current;
        drag.current = null;
        if (d) onSize(d.from + grow * (along(e) - d.at), true);
      }}
      onKeyDown={(e) => {
        const step = e.key === more ? STEP : e.key === less ? -STEP : 0;
        if (!step) return;
        e.preventDefault();
        onSize(size() + grow * step, true);
      }}
    />
  );
}
