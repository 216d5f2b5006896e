// "Diff…" from wherever a side is shown (a connection's Server panel, a past session's
// banner): the window holds the one comparison dialog and opens it on the side given.
import { createContext } from "react";
import type { DiffSide } from "../ipc";

/** A side as the dialog shows it: what the core compares, and its name for people. */
export interface NamedSide {
  side: DiffSide;
  label: string;
}

export const DiffWith = createContext<(subject: NamedSide) => void>(() => {});

/** A recorded session, by its name in the sessions folder, and its name for people. */
export interface NamedSession {
  name: string;
  label: string;
}

/** "Replay against…" on a past session: the window holds the one replay dialog. */
export const ReplayWith = createContext<(session: NamedSession) => void>(() => {});
