// Moving from one of a line's panels to another: a resource link in a tool result is opened in
// the Resources panel of the same line, which reads it there; a call in the wire log or the
// call history is put in the Tools panel of a line (to edit, or sent at once). The window
// registers how it shows a line's panel (useShowsPanels) and which line it has selected; the
// panel takes a request when it is mounted, and only its own line's. It holds no panel state
// itself: the newest request of each kind only, until the panel has taken it (so a panel mounted
// again later does not read it again), numbered so the same request made twice is made twice.
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

/** A call to put in a line's Tools panel: its tool chosen, its form filled with `args`, and
 * sent at once when `send`. */
export interface CallRequest {
  line: number;
  tool: string;
  args: JsonValue | null;
  send: boolean;
  /** Increases with every request. */
  n: number;
}

type Panel = "resources" | "tools";
/** The window's way of showing one of a line's panels. */
type Show = (panel: Panel, line: number) => void;

interface Navigation {
  request: ResourceRequest | null;
  call: CallRequest | null;
  /** The line the window has selected, where a call from a past session goes. */
  selected: number | null;
  openResource(line: number, resource: JsonValue): void;
  openCall(call: Omit<CallRequest, "n">): void;
  /** The panel has taken request `n`. */
  taken(n: number): void;
  /** The window's way of showing a panel, and the line it has selected. */
  shows(show: Show | null, selected: number | null): void;
}

const Navigate = createContext<Navigation | null>(null);

export function NavigateProvider({ children }: { children: ReactNode }) {
  const [request, setRequest] = useState<ResourceRequest | null>(null);
  const [call, setCall] = useState<CallRequest | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const asked = useRef(0);
  const show = useRef<Show | null>(null);
  const openResource = useCallback((line: number, resource: JsonValue) => {
    asked.current += 1;
    setRequest({ line, resource, n: asked.current });
    show.current?.("resources", line);
  }, []);
  const openCall = useCallback((call: Omit<CallRequest, "n">) => {
    asked.current += 1;
    setCall({ ...call, n: asked.current });
    show.current?.("tools", call.line);
  }, []);
  const taken = useCallback((n: number) => {
    setRequest((r) => (r?.n === n ? null : r));
    setCall((c) => (c?.n === n ? null : c));
  }, []);
  const shows = useCallback((s: Show | null, line: number | null) => {
    show.current = s;
    setSelected(line);
  }, []);
  const value = useMemo(
    () => ({ request, call, selected, openResource, openCall, taken, shows }),
    [request, call, selected, openResource, openCall, taken, shows],
  );
  return <Navigate.Provider value={value}>{children}</Navigate.Provider>;
}

/** The window says how it shows a line's panel, and which line it has selected, for as long as
 * it is mounted. */
export function useShowsPanels(show: Show, selected: number | null = null) {
  const shows = useContext(Navigate)?.shows;
  useEffect(() => {
    shows?.(show, selected);
    return () => shows?.(null, null);
  }, [shows, show, selected]);
}

/** Opens a resource in a line's Resources panel; `null` where the window offers no panels to
 * open it in (a component shown outside the provider). */
export function useOpenResource(): Navigation["openResource"] | null {
  return useContext(Navigate)?.openResource ?? null;
}

/** Puts a call in a line's Tools panel, and the line the window has selected; `null` outside
 * the provider. */
export function useOpenCall(): { openCall: Navigation["openCall"]; selected: number | null } | null {
  const navigation = useContext(Navigate);
  return navigation && { openCall: navigation.openCall, selected: navigation.selected };
}

/** The newest request to read a resource in `line`'s Resources panel, if one waits; and the
 * function that says the panel has taken it. */
export function useResourceRequest(line: number): { request: ResourceRequest | null; taken(n: number): void } {
  const navigation = useContext(Navigate);
  const request = navigation?.request ?? null;
  return { request: request?.line === line ? request : null, taken: navigation?.taken ?? ignore };
}

/** The newest call waiting for `line`'s Tools panel, if one waits; and the function that says
 * the panel has taken it. */
export function useCallRequest(line: number): { call: CallRequest | null; taken(n: number): void } {
  const navigation = useContext(Navigate);
  const call = navigation?.call ?? null;
  return { call: call?.line === line ? call : null, taken: navigation?.taken ?? ignore };
}

const ignore = () => {};
