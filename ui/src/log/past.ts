// Which session the log view shows: the window's own (null) or a past one opened read-only. A past
// session is closed in the core when another replaces it, so the core stops following it.
import { useCallback, useRef, useState } from "react";
import { backend, type OpenedSession } from "../ipc";

export function usePastSession(): { past: OpenedSession | null; showPast(next: OpenedSession | null): void } {
  const [past, setPast] = useState<OpenedSession | null>(null);
  const shown = useRef<OpenedSession | null>(null);
  const showPast = useCallback((next: OpenedSession | null) => {
    const before = shown.current;
    // Closing only frees the core's reader; a failure leaves nothing wrong on screen.
    if (before && before.id !== next?.id) backend.sessionClose(Number(before.id)).catch(() => undefined);
    shown.current = next;
    setPast(next);
  }, []);
  return { past, showPast };
}
