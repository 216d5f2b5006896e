// The filter box's reading of what was typed, from the core (src/log/filter.rs owns the grammar
// and is its only parser): chips, each with the expression that removes it, or what is wrong.
import { useEffect, useState } from "react";
import { backend, type FilterView } from "../ipc";

const NONE: FilterView = { chips: [], error: null };

/**
 * The core's view of `expr`, asked for on every change; an older answer shows until the new one
 * arrives, and an answer for text since replaced is dropped. `applied` is the expression the log
 * shows the matches of: the answered one when it parsed into at least one chip, else none. A
 * blank box is no filter at once, so that clearing it takes effect in the same render.
 */
export function useFilterView(expr: string): { view: FilterView; applied: string } {
  const [answer, setAnswer] = useState({ expr: "", view: NONE });
  const blank = expr.trim() === "";
  useEffect(() => {
    if (blank) return;
    let live = true;
    backend.logFilter(expr).then(
      (view) => live && setAnswer({ expr, view }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [expr, blank]);
  if (blank) return { view: NONE, applied: "" };
  const { view } = answer;
  return { view, applied: view.error == null && view.chips.length > 0 ? answer.expr : "" };
}
