// Hears a line's list changes: a subscription to `list`'s changes (in 2025-11-25 they arrive
// unasked and nothing is sent; in 2026-07-28 a listen request opts in), stopped when the panel
// goes or the connection changes.
import { useEffect, useRef } from "react";
import { backend } from "../ipc";

export function useListChanges(
  conn: number,
  active: boolean,
  list: "tools" | "prompts" | "resources",
  onChange: () => void,
) {
  const latest = useRef(onChange);
  useEffect(() => {
    latest.current = onChange;
  });
  useEffect(() => {
    if (!active) return;
    let number: number | null = null;
    let gone = false;
    backend
      .subscribe(conn, { [list]: true }, (e) => {
        if (e.event === "change" && e.notice.what.kind === "list_changed") latest.current();
      })
      .then(
        (n) => {
          if (gone) backend.unsubscribe(n);
          else number = n;
        },
        // A server that refuses the listen still lists; the wire log says why it refused.
        () => undefined,
      );
    return () => {
      gone = true;
      if (number !== null) backend.unsubscribe(number);
    };
  }, [conn, active, list]);
}
