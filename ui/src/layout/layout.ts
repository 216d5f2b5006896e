// Where the window's panes are, as the person left them: the share of the main area the
// server's panels take above the log, and whether a server's question is folded. Kept in the
// settings file (the core's `Layout`), read once when the window opens and saved when the person
// lets go of the splitter or folds the question; a layout that cannot be read leaves the defaults.
import { useCallback, useEffect, useState } from "react";
import { backend, errorText } from "../ipc";

/** The panels' share when nothing was saved, and the bounds the core keeps a split within. */
export const SPLIT_DEFAULT = 0.56;
export const SPLIT_MIN = 0.15;
export const SPLIT_MAX = 0.85;

export const clampSplit = (split: number) => Math.min(SPLIT_MAX, Math.max(SPLIT_MIN, split));

export interface WindowLayout {
  split: number;
  questionFolded: boolean;
  /** Sets the split as shown; `save` also writes it to the settings (on release, not per pixel). */
  setSplit(split: number, save: boolean): void;
  setQuestionFolded(folded: boolean): void;
  /** Why the layout could not be read or saved, when it could not. */
  error: string | null;
}

export function useLayout(): WindowLayout {
  const [split, setShown] = useState(SPLIT_DEFAULT);
  const [questionFolded, setFolded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    backend.layoutGet().then(
      (l) => {
        if (l.split != null) setShown(clampSplit(l.split));
        setFolded(l.questionFolded ?? false);
      },
      (e) => setError(`The window's layout cannot be read: ${errorText(e)}`),
    );
  }, []);
  const save = useCallback((change: { split?: number; questionFolded?: boolean }) => {
    // The core keeps the keys it is not given; each save names only what changed.
    backend.layoutSet(change).then(
      () => setError(null),
      (e) => setError(`The window's layout was not saved: ${errorText(e)}`),
    );
  }, []);
  const setSplit = useCallback(
    (next: number, keep: boolean) => {
      const clamped = clampSplit(next);
      setShown(clamped);
      if (keep) save({ split: clamped });
    },
    [save],
  );
  const setQuestionFolded = useCallback(
    (folded: boolean) => {
      setFolded(folded);
      save({ questionFolded: folded });
    },
    [save],
  );
  return { split, questionFolded, setSplit, setQuestionFolded, error };
}
