// The name each connection of a session goes by, as the core recorded it (its saved server, else
// its command or URL), asked for again when an entry of a connection not named yet arrives. The
// colour that goes with a name is presentation only: the same connection always gets the same one.
import { useCallback, useEffect, useRef, useState } from "react";
import { backend, type Entry, type SessionRef } from "../ipc";

export interface Labels {
  /** The name of connection `conn`, or null while the core has none for it. */
  nameOf(conn: number): string | null;
  /** Tells the labels of entries just seen: a connection not named yet asks the core again. */
  see(entries: readonly Entry[]): void;
}

/** Distinct hues, none a state's (no plain green or red): a connection's colour says which
 * connection it is, never how it is. */
const PALETTE = [205, 30, 280, 170, 325, 52, 245];
/** The palette place each connection was given, in the order connections were first coloured. */
const given = new Map<number, number>();

/** The colour of connection `conn`'s marker, the same wherever it is drawn: connections are
 * given the palette in turn as they first appear, so any seven that appeared one after another
 * (the ones alive at once) never share a colour. */
export function colourOf(conn: number): string {
  let at = given.get(conn);
  if (at === undefined) {
    at = given.size % PALETTE.length;
    given.set(conn, at);
  }
  return `hsl(${PALETTE[at]} 70% 62%)`;
}

export function useConnectionLabels(session: SessionRef): Labels {
  const [names, setNames] = useState<ReadonlyMap<number, string>>(new Map());
  // The connections the core was asked about: an entry of any other asks again. A connection
  // names itself in its first entry, so one question per new connection is enough.
  const asked = useRef(new Set<number>());
  const asking = useRef(false);
  const again = useRef(false);
  // One question at a time; a question asked meanwhile is asked once more when it is answered.
  const ask = useCallback(() => {
    again.current = true;
    if (asking.current) return;
    asking.current = true;
    void (async () => {
      while (again.current) {
        again.current = false;
        try {
          const labels = await backend.logConnections(session);
          setNames(new Map(labels.map((l) => [Number(l.conn), l.server] as const)));
        } catch {
          // The names stay as they were; the next new connection asks again.
        }
      }
      asking.current = false;
    })();
  }, [session]);
  useEffect(ask, [ask]);
  const see = useCallback(
    (entries: readonly Entry[]) => {
      const fresh = entries.map((e) => Number(e.conn)).filter((c) => c !== 0 && !asked.current.has(c));
      if (fresh.length === 0) return;
      for (const c of fresh) asked.current.add(c);
      ask();
    },
    [ask],
  );
  const nameOf = useCallback((conn: number) => names.get(conn) ?? null, [names]);
  return { nameOf, see };
}
