// The banner on the live session when its file stops taking entries (a full disk, a removed
// directory): said at once, kept until dismissed, and said again, differently, once the file takes
// entries again and a note marks the gap; and once, when the session grows larger by itself than
// the whole sessions budget (it is kept whole). Its words are the core's.
import { useState } from "react";
import { recordingNews, useRecording } from "../log/recording";

export function RecordingBanner() {
  const { recording, error } = useRecording();
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  if (error)
    return (
      <div className="notice error" role="alert">
        Whether the session log is written cannot be followed: {error}
      </div>
    );
  return recordingNews(recording)
    .filter((news) => !dismissed.has(news.key))
    .map((news) => (
      <div
        key={news.key}
        className={`notice recording ${news.alert ? "error" : ""}`}
        role={news.alert ? "alert" : "status"}
        aria-label="Session log"
      >
        {news.words} <button onClick={() => setDismissed((d) => new Set(d).add(news.key))}>Dismiss</button>
      </div>
    ));
}
