// The banner on the live session when its file stops taking entries (a full disk, a removed
// directory): said at once, kept until dismissed, and said again, differently, once the file takes
// entries again and a note marks the gap. Its words are the core's.
import { useState } from "react";
import { recordingNews, useRecording } from "../log/recording";

export function RecordingBanner() {
  const { recording, error } = useRecording();
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (error)
    return (
      <div className="notice error" role="alert">
        Whether the session log is written cannot be followed: {error}
      </div>
    );
  const news = recordingNews(recording);
  if (!news || news.key === dismissed) return null;
  return (
    <div
      className={`notice recording ${news.alert ? "error" : ""}`}
      role={news.alert ? "alert" : "status"}
      aria-label="Session log"
    >
      {news.words} <button onClick={() => setDismissed(news.key)}>Dismiss</button>
    </div>
  );
}
