// A server's tools as a list to choose from: a filter box (every word typed, in the name, title
// or description) and the matching tools, drawn only where the list is in view. A server may
// list up to 10,000 tools: the list stays as quick to show, scroll and filter as one of ten, so
// it never renders every tool at once. The arrows move between tools and back to the filter;
// Enter in the filter chooses the first match.
import { useMemo, useRef, useState, type ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { ToolView } from "../ipc";
import { Problems } from "../components/Problems";
import { filterByText, filterWords, matches, searchText } from "./toolFilter";

/** A listed tool and where it is in the server's list (two entries can share a name, or have none). */
export type Tool = ToolView & { at: number };

export const title = (t: Tool) => t.title ?? t.name ?? `(entry ${t.at + 1}: no name)`;

export function ToolList({
  tools,
  chosen,
  onChoose,
  children,
}: {
  /** The tools offered as ordinary tools, in the server's order. */
  tools: Tool[];
  chosen: Tool | null;
  onChoose: (t: Tool) => void;
  /** What follows the list in its scrolled pane (the tools only apps call). */
  children?: (shown: (t: Tool) => boolean) => ReactNode;
}) {
  const [filter, setFilter] = useState("");
  const texts = useMemo(() => tools.map(searchText), [tools]);
  const words = useMemo(() => filterWords(filter), [filter]);
  // The few tools only apps call, which follow the list, are matched by the same words.
  const shown = (t: Tool) => matches(searchText(t), words);
  const found = useMemo(() => filterByText(tools, texts, words), [tools, texts, words]);
  const scroller = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLInputElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual hands back new functions each render, which the React Compiler cannot memoize; this component is not compiled.
  const virtualizer = useVirtualizer({
    count: found.length,
    getScrollElement: () => scroller.current,
    // A row is about 46 px, and each problem written under it one more line: estimated close,
    // rows move little when they are measured.
    estimateSize: (i) => 46 + found[i].problems.length * 18,
    // A row's measured height belongs to its tool, not to its place in what the filter shows.
    getItemKey: (i) => found[i].at,
    overscan: 12,
  });
  // The tool the arrows moved to is focused once its row is drawn: it may be out of view, and
  // so not drawn, until the list has scrolled to it (a few frames at most).
  const focusWhenDrawn = (index: number, frames = 10) =>
    requestAnimationFrame(() => {
      const button = scroller.current?.querySelector<HTMLButtonElement>(`li[data-index='${index}'] button.tool`);
      if (button) button.focus();
      else if (frames > 0) focusWhenDrawn(index, frames - 1);
    });
  const moveTo = (index: number) => {
    if (index < 0) return box.current?.focus();
    if (index >= found.length) return;
    virtualizer.scrollToIndex(index, { align: "auto" });
    focusWhenDrawn(index);
  };
  // The rows drawn lie in the list's flow between two spaces that stand for the rows not drawn,
  // so the browser lays them out at once: a row never sits where an estimate put it while its
  // neighbours are measured (a click aimed at it would land on another).
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = Math.max(0, virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0));
  const all = `${tools.length} tool${tools.length === 1 ? "" : "s"}`;
  const count = words.length ? `${found.length} of ${all}` : all;
  return (
    <>
      <div className="tool-filter">
        <input
          ref={box}
          type="text"
          aria-label="Filter tools"
          placeholder="Filter tools"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            scroller.current?.scrollTo({ top: 0 });
          }}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              moveTo(0);
            } else if (e.key === "Enter" && found.length) {
              e.preventDefault();
              onChoose(found[0]);
            } else if (e.key === "Escape" && filter) {
              e.preventDefault();
              setFilter("");
            }
          }}
        />
        <span className="muted tool-count" aria-live="polite" aria-label="Tools shown">
          {count}
        </span>
      </div>
      {/* data-filter: the filter the list now shows, which make bench's window figures wait for. */}
      <div className="tool-scroll" ref={scroller} data-filter={filter}>
        {words.length > 0 && found.length === 0 && <p className="muted">No tool matches “{filter.trim()}”.</p>}
        <ul
          style={{ paddingTop: before, paddingBottom: after }}
          onKeyDown={(e) => {
            const at = Number((e.target as HTMLElement).closest("li")?.dataset.index);
            if (Number.isNaN(at)) return;
            const to =
              e.key === "ArrowDown"
                ? at + 1
                : e.key === "ArrowUp"
                  ? at - 1
                  : e.key === "Home"
                    ? 0
                    : e.key === "End"
                      ? found.length - 1
                      : null;
            if (to === null) return;
            e.preventDefault();
            moveTo(to);
          }}
        >
          {items.map((item) => {
            const t = found[item.index];
            return (
              <li
                key={t.at}
                data-index={item.index}
                ref={virtualizer.measureElement}
                aria-setsize={found.length}
                aria-posinset={item.index + 1}
                className={chosen?.at === t.at ? "selected" : ""}
              >
                <button className="tool" onClick={() => onChoose(t)}>
                  {t.icons.slice(0, 1).map((src) => (
                    <img key={src} src={src} alt="" width={16} height={16} />
                  ))}
                  <strong>{title(t)}</strong>
                  {t.name !== null && title(t) !== t.name && <code>{t.name}</code>}
                  <span className="desc">{t.description}</span>
                  <span className="badges">
                    {t.app?.resourceUri && (
                      <span className="badge" title={`Draws an app: ${t.app.resourceUri}`}>
                        app
                      </span>
                    )}
                    {t.hints.map((hint) => (
                      <span key={hint} className="badge">
                        {hint}
                      </span>
                    ))}
                    {t.problems.length > 0 && (
                      <span className="badge bad" title={t.problems.join("\n")}>
                        {t.problems.length} problem{t.problems.length > 1 ? "s" : ""}
                      </span>
                    )}
                  </span>
                </button>
                <Problems problems={t.problems} what={title(t)} />
              </li>
            );
          })}
        </ul>
        {children?.(shown)}
      </div>
    </>
  );
}
