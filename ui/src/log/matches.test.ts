import { describe, expect, it } from "vitest";
import { MAX_MATCHES, MatchReader } from "./matches";
import type { Entry, Page } from "../ipc";

/** A stand-in for the core's log: `filter` is a predicate on seqs, not the grammar. */
function fakeLog(size: number, keep: (seq: number) => boolean) {
  const log = { size, reads: [] as [number, number][] };
  const logPage = async (from: number, to: number, _filter: string, limit: number): Promise<Page> => {
    log.reads.push([from, to]);
    const entries: Entry[] = [];
    for (let seq = from; seq < Math.min(to, log.size); seq++) {
      if (!keep(seq)) continue;
      if (entries.length === limit) return { entries, next: seq };
      entries.push({ seq } as Entry);
    }
    return { entries, next: null };
  };
  return { log, logPage };
}

const seqs = (found: Entry[]) => found.map((e) => Number(e.seq));

describe("reading a filter's matches from the core", () => {
  it("reads each seq once as the log grows and publishes what it found", async () => {
    const { log, logPage } = fakeLog(4, (seq) => seq % 2 === 0);
    const published: number[][] = [];
    const reader = new MatchReader("even", logPage, (found) => published.push(seqs(found)));
    await reader.reach(4);
    log.size = 9;
    await reader.reach(9);
    await reader.reach(9);
    expect(log.reads).toEqual([
      [0, 4],
      [4, 9],
    ]);
    expect(published).toEqual([
      [0, 2],
      [0, 2, 4, 6, 8],
    ]);
  });

  it("goes on to the new end when the log grows during a read", async () => {
    const { log, logPage } = fakeLog(6, () => true);
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow = async (...args: Parameters<typeof logPage>) => (await gate, logPage(...args));
    const published: number[][] = [];
    const reader = new MatchReader("all", slow, (found) => published.push(seqs(found)));
    const first = reader.reach(3);
    const second = reader.reach(6);
    release();
    await Promise.all([first, second]);
    expect(log.reads).toEqual([
      [0, 3],
      [3, 6],
    ]);
    expect(published).toEqual([[0, 1, 2, 3, 4, 5]]);
  });

  it("drops the answers of a filter that was replaced", async () => {
    const { logPage } = fakeLog(3, () => true);
    const published: number[][] = [];
    const reader = new MatchReader("all", logPage, (found) => published.push(seqs(found)));
    const reading = reader.reach(3);
    reader.stop();
    await reading;
    expect(published).toEqual([]);
  });

  it("stops at the cap and still takes the entries that arrive later", async () => {
    const { log, logPage } = fakeLog(MAX_MATCHES + 5000, () => true);
    let last = { found: [] as Entry[], capped: false };
    const reader = new MatchReader("all", logPage, (found, capped) => (last = { found, capped }));
    await reader.reach(log.size);
    expect(last.found.length).toBe(MAX_MATCHES);
    expect(last.capped).toBe(true);
    log.size += 2;
    await reader.reach(log.size);
    expect(seqs(last.found.slice(-3))).toEqual([MAX_MATCHES - 1, MAX_MATCHES + 5000, MAX_MATCHES + 5001]);
  });
});
