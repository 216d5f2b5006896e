// Moving from one of a line's panels to another: a resource link in a tool result is opened in
// the Resources panel of the same line, which reads it there. The window registers how it shows
// a panel (useShowsPanels); the panel takes the request when it is mounted, and only its own
// line's. It holds no panel state itself: the newest request only, until the panel has taken it
// (so a panel mounted again later does not read it again), numbered so the same link asked twice
// is read twice.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { JsonValue } from "../ipc";

/** A request to read a resource in a line's Resources panel. */
export interface ResourceRequest {
  line: number;
  /** The resource as the link described it (`uri`, and `name`, `title`, `description`…). */
  resource: JsonValue;
  /** Increases with every request. */
  n: number;
}

type Show = (panel: "resources") => void;

interface Navigation {
  request: ResourceRequest | null;
  openResource(line: number, resource: JsonValue): void;
  /** The panel has taken request `n`. */
  taken(n: number): void;
  /** The window's way of showing a panel. */
  shows(show: Show | null): void;
}

const Navigate = createContext<Navigation | null>(null);

export function NavigateProvider({ children }: { children: ReactNode }) {
  const [request, setRequest] = useState<ResourceRequest | null>(null);
  const asked = useRef(0);
  const show = useRef<Show | null>(null);
  const openResource = useCallback((line: number, resource: JsonValue) => {
    asked.current += 1;
    setRequest({ line, resource, n: asked.current });
    show.current?.("resources");
  }, []);
  const taken = useCallback((n: number) => setRequest((r) => (r?.n === n ? null : r)), []);
  const shows = useCallback((s: Show | null) => void (show.current = s), []);
  const value = useMemo(() => ({ request, openResource, taken, shows }), [request, openResource, taken, shows]);
  return <Navigate.Provider value={value}>{children}</Navigate.Provider>;
}

/** The window says how it shows a panel, for as long as it is mounted. */
export function useShowsPanels(show: Show) {
  const shows = useContext(Navigate)?.shows;
  useEffect(() => {
    shows?.(show);
    return () => shows?.(null);
  }, [shows, show]);
}

/** Opens a resource in a line's Resources panel; `null` where the window offers no panels to
 * open it in (a component shown outside the provider). */
export function useOpenResource(): Navigation["openResource"] | null {
  return useContext(Navigate)?.openResource ?? null;
}

/** The newest request to read a resource in `line`'s Resources panel, if one waits; and the
 * function that says the panel has taken it. */
export function useResourceRequest(line: number): { request: ResourceRequest | null; taken(n: number): void } {
  const navigation = useContext(Navigate);
  const request = navigation?.request ?? null;
  return { request: request?.line === line ? request : null, taken: navigation?.taken ?? ignore };
}

const ignore = () => {};
