// Restart on change as the core reports it: each watched line's latest step (building,
// restarting, how it ended), kept by version so a late event never wins.
import { useEffect, useState } from "react";
import { backend, errorText, type Rebuild } from "../ipc";

export type Rebuilds = ReadonlyMap<number, Rebuild>;

/** `rebuilds` with `r` applied: a line keeps the newest step it has heard. */
export function applyRebuild(rebuilds: Rebuilds, r: Rebuild): Rebuilds {
  const known = rebuilds.get(r.line);
  if (known && known.version >= r.version) return rebuilds;
  return new Map(rebuilds).set(r.line, r);
}

/** Every watched line's latest step, live; and the error if they could not be followed. */
export function useRebuilds(): { rebuilds: Rebuilds; error: string | null } {
  const [rebuilds, setRebuilds] = useState<Rebuilds>(new Map());
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    backend
      .rebuildsFollow((r) => current && setRebuilds((all) => applyRebuild(all, r)))
      .then(
        (now) => current && setRebuilds((all) => now.reduce(applyRebuild, all)),
        (e) => current && setError(errorText(e)),
      );
    return () => {
      current = false;
    };
  }, []);
  return { rebuilds, error };
}
