// Showing one entry of the window's own session in the wire log from elsewhere in the window (a
// finding in the Diagnostics panel, the evidence of a check): the window registers how it brings
// the live log into view (useShowsLog), and the log selects the entry when it is mounted. Only the
// newest request is held, until the log has taken it, numbered so the same entry asked twice is
// shown twice.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

export interface RevealRequest {
  seq: number;
  /** Increases with every request. */
  n: number;
}

interface Reveal {
  request: RevealRequest | null;
  reveal(seq: number): void;
  taken(n: number): void;
  shows(show: (() => void) | null): void;
}

const RevealContext = createContext<Reveal | null>(null);

export function RevealProvider({ children }: { children: ReactNode }) {
  const [request, setRequest] = useState<RevealRequest | null>(null);
  const asked = useRef(0);
  const show = useRef<(() => void) | null>(null);
  const reveal = useCallback((seq: number) => {
    asked.current += 1;
    setRequest({ seq, n: asked.current });
    show.current?.();
  }, []);
  const taken = useCallback((n: number) => setRequest((r) => (r?.n === n ? null : r)), []);
  const shows = useCallback((s: (() => void) | null) => void (show.current = s), []);
  const value = useMemo(() => ({ request, reveal, taken, shows }), [request, reveal, taken, shows]);
  return <RevealContext.Provider value={value}>{children}</RevealContext.Provider>;
}

/** The window says how it brings the live wire log into view, for as long as it is mounted. */
export function useShowsLog(show: () => void) {
  const shows = useContext(RevealContext)?.shows;
  useEffect(() => {
    shows?.(show);
    return () => shows?.(null);
  }, [shows, show]);
}

/** Shows entry `seq` of the window's session in the wire log; `null` outside the provider. */
export function useReveal(): ((seq: number) => void) | null {
  return useContext(RevealContext)?.reveal ?? null;
}

/** The newest request to show an entry, if one waits; and the function that says it was taken. */
export function useRevealRequest(): { request: RevealRequest | null; taken(n: number): void } {
  const reveal = useContext(RevealContext);
  return { request: reveal?.request ?? null, taken: reveal?.taken ?? ignore };
}

const ignore = () => {};
