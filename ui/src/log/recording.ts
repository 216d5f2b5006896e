// Whether the window's own session file takes every entry, as the core says it: followed from
// the window's start, and what the banner tells the person (RecordingBanner.tsx).
import { useEffect, useState } from "react";
import { backend, errorText, type Recording } from "../ipc";

/** The recording now and each change after it; `error` when it cannot be followed. */
export function useRecording(): { recording: Recording | null; error: string | null } {
  const [recording, setRecording] = useState<Recording | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    backend
      .recordingFollow((r) => live && setRecording(r))
      .then((now) => live && now.length > 0 && setRecording((seen) => seen ?? now[0]))
      .catch((e) => live && setError(errorText(e)));
    return () => void (live = false);
  }, []);
  return { recording, error };
}

/** One thing the banner says, and the key it is dismissed by. */
export interface News {
  key: string;
  alert: boolean;
  words: string;
}

/** What the banner says now: a new stop or a new gap is news again, while the same one
 * dismissed stays out of sight; a session larger than the whole sessions budget is said once,
 * beside them. Empty when there is nothing to say. */
export function recordingNews(r: Recording | null): News[] {
  if (!r) return [];
  const news: News[] = [];
  // No count of what is lost while the stop lasts: the core says it when the gap closes, and a
  // count here would be stale by the next entry.
  if (r.stopped && r.stopped_words) {
    news.push({ key: `stop:${r.stopped.at}`, alert: true, words: `${sentence(r.stopped_words)}.` });
  } else if (r.last_gap && r.resumed_words) {
    news.push({ key: `gap:${r.gaps}`, alert: false, words: `${sentence(r.resumed_words)}.` });
  }
  if (r.outgrown) news.push({ key: "outgrown", alert: false, words: `${sentence(r.outgrown)}.` });
  return news;
}

/** The core's words as a sentence on screen: a capital first letter. */
export function sentence(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
