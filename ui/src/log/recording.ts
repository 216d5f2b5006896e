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

/** What the banner says now, and the key it is dismissed by: a new stop or a new gap is news
 * again, while the same one dismissed stays out of sight. Null when there is nothing to say. */
export function recordingNews(r: Recording | null): { key: string; alert: boolean; words: string } | null {
  if (!r) return null;
  // No count of what is lost while the stop lasts: the core says it when the gap closes, and a
  // count here would be stale by the next entry.
  if (r.stopped && r.stopped_words) {
    return { key: `stop:${r.stopped.at}`, alert: true, words: `${sentence(r.stopped_words)}.` };
  }
  if (r.last_gap && r.resumed_words) {
    return { key: `gap:${r.gaps}`, alert: false, words: `${sentence(r.resumed_words)}.` };
  }
  return null;
}

/** The core's words as a sentence on screen: a capital first letter. */
function sentence(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
