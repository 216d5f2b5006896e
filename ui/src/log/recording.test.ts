import { describe, expect, it } from "vitest";
import type { Recording } from "../ipc";
import { recordingNews } from "./recording";

const whole: Recording = {
  stopped: null,
  first_stop: null,
  gaps: 0,
  lost: 0,
  last_gap: null,
  stopped_words: null,
  resumed_words: null,
  outgrown: null,
};
const stop = { at: 16, since: "2026-12-02T10:00:00Z", error: "No space left on device", row: 16, streamed_until: 17 };
const stopped: Recording = {
  ...whole,
  stopped: stop,
  first_stop: stop,
  lost: 3,
  stopped_words: "the session log stopped at entry 16: No space left on device; the connection goes on unrecorded",
};
const resumed: Recording = {
  ...whole,
  first_stop: stop,
  gaps: 1,
  lost: 3,
  last_gap: { first: 16, entries: 3, from: stop.since, to: "2026-12-02T10:00:02Z", error: stop.error },
  resumed_words: "the session log resumed after a gap of 3 entries (16 to 18), recorded by a note in the log",
};

describe("what the session log banner says", () => {
  it("says nothing while the file takes every entry", () => {
    expect(recordingNews(whole)).toEqual([]);
    expect(recordingNews(null)).toEqual([]);
  });

  it("alerts with the core's words while the file takes none", () => {
    expect(recordingNews(stopped)).toEqual([
      {
        key: "stop:16",
        alert: true,
        words: "The session log stopped at entry 16: No space left on device; the connection goes on unrecorded.",
      },
    ]);
  });

  it("tells the gap once the file takes entries again, under a key of its own", () => {
    const [news] = recordingNews(resumed);
    expect(news.alert).toBe(false);
    expect(news.key).not.toBe(recordingNews(stopped)[0].key);
    expect(news.words).toBe(
      "The session log resumed after a gap of 3 entries (16 to 18), recorded by a note in the log.",
    );
  });

  it("says once that the session outgrew the whole budget, beside a gap, under a key of its own", () => {
    const outgrown =
      "this session (2.1 GiB) is larger by itself than the sessions budget (500 sessions and 2.0 GiB); it is kept whole";
    const news = recordingNews({ ...resumed, outgrown });
    expect(news.map((n) => n.key)).toEqual(["gap:1", "outgrown"]);
    expect(news[1]).toEqual({ key: "outgrown", alert: false, words: `T${outgrown.slice(1)}.` });
  });
});
