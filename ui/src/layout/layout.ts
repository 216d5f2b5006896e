// Where the window's panes are, as the person left them: the share of the main area the
// server's panels take above the log, and whether a server's question is folded. Kept in the
// settings file (the core's `Layout`), read once when the window opens and saved when the person
// lets go of the splitter or folds the question; a layout that cannot be read leaves the defaults.
import { useCallback, useEffect, useState } from "react";
import { backend, errorText } from "../ipc";
import { DETAIL_WIDTHS, TIMELINE_HEIGHTS } from "../ipc/bindings";

/** The panels' share when nothing was saved, and the bounds the core keeps a split within. */
export const SPLIT_DEFAULT = 0.56;
export const SPLIT_MIN = 0.15;
export const SPLIT_MAX = 0.85;

export const clampSplit = (split: number) => Math.min(SPLIT_MAX, Math.max(SPLIT_MIN, split));

/** The timeline's height when nothing was saved, in pixels; the core keeps a saved one within
 * `TIMELINE_HEIGHTS`. */
export const TIMELINE_DEFAULT = 240;
export const clampTimeline = (height: number) =>
  Math.min(TIMELINE_HEIGHTS[1], Math.max(TIMELINE_HEIGHTS[0], Math.round(height)));
/** The entry detail's width, in pixels, within `DETAIL_WIDTHS`; none saved: a share of the log. */
export const clampDetail = (width: number) => Math.min(DETAIL_WIDTHS[1], Math.max(DETAIL_WIDTHS[0], Math.round(width)));

export interface WindowLayout {
  split: number;
  questionFolded: boolean;
  /** Sets the split as shown; `save` also writes it to the settings (on release, not per pixel). */
  setSplit(split: number, save: boolean): void;
  /** The timeline's own height, in pixels, and its setter (saved as the split is). */
  timelineHeight: number;
  setTimelineHeight(height: number, save: boolean): void;
  /** The entry detail's width, in pixels (`null`: a share of the log), and its setter. */
  detailWidth: number | null;
  setDetailWidth(width: number, save: boolean): void;
  setQuestionFolded(folded: boolean): void;
  /** Why the layout could not be read or saved, when it could not. */
  error: string | null;
}

export function useLayout(): WindowLayout {
  const [split, setShown] = useState(SPLIT_DEFAULT);
  const [questionFolded, setFolded] = useState(false);
  const [timelineHeight, setTimelineShown] = useState(TIMELINE_DEFAULT);
  const [detailWidth, setDetailShown] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    backend.layoutGet().then(
      (l) => {
        if (l.split != null) setShown(clampSplit(l.split));
        setFolded(l.questionFolded ?? false);
        if (l.timelineHeight != null) setTimelineShown(clampTimeline(l.timelineHeight));
        if (l.detailWidth != null) setDetailShown(clampDetail(l.detailWidth));
      },
      (e) => setError(`The window's layout cannot be read: ${errorText(e)}`),
    );
  }, []);
  const save = useCallback(
    (change: Partial<Record<"split" | "timelineHeight" | "detailWidth", number>> & { questionFolded?: boolean }) => {
      // The core keeps the keys it is not given; each save names only what changed.
      backend.layoutSet(change).then(
        () => setError(null),
        (e) => setError(`The window's layout was not saved: ${errorText(e)}`),
      );
    },
    [],
  );
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
  const setTimelineHeight = useCallback(
    (next: number, keep: boolean) => {
      const clamped = clampTimeline(next);
      setTimelineShown(clamped);
      if (keep) save({ timelineHeight: clamped });
    },
    [save],
  );
  const setDetailWidth = useCallback(
    (next: number, keep: boolean) => {
      const clamped = clampDetail(next);
      setDetailShown(clamped);
      if (keep) save({ detailWidth: clamped });
    },
    [save],
  );
  return {
    split,
    questionFolded,
    setSplit,
    setQuestionFolded,
    timelineHeight,
    setTimelineHeight,
    detailWidth,
    setDetailWidth,
    error,
  };
}
