import { describe, expect, it } from "vitest";
import { MatchCounter } from "./matches";
import type { MatchCount } from "../ipc";

/** A stand-in for the core's count: a log of `size` entries whose matches are the even seqs,
 * counted at most `budget` entries per call, going on from where the last call stopped. */
function fakeCore(size: number, budget: number) {
  const core = { size, calls: [] as number[], scanned: 0 };
  const count = async (_filter: string, to: number): Promise<MatchCount> => {
    core.calls.push(to);
    core.scanned = Math.min(to, core.size, core.scanned + budget);
    return { count: Math.ceil(core.scanned / 2), scanned: core.scanned };
  };
  return { core, count };
}

describe("counting a filter's matches in the core", () => {
  it("calls again until the whole log is counted, publishing each answer", async () => {
    const { core, count } = fakeCore(25, 10);
    const published: MatchCount[] = [];
    await new MatchCounter("even", count, (c) => published.push(c)).reach(25);
    expect(core.calls).toEqual([25, 25, 25]);
    expect(published).toEqual([
      { count: 5, scanned: 10 },
      { count: 10, scanned: 20 },
      { count: 13, scanned: 25 },
    ]);
  });

  it("goes on from where it was as the log grows, and to the new end when it grows during a count", async () => {
    const { core, count } = fakeCore(10, 100);
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow = async (f: string, to: number) => (await gate, count(f, to));
    const published: number[] = [];
    const counter = new MatchCounter("even", slow, (c) => published.push(Number(c.scanned)));
    const first = counter.reach(10);
    core.size = 30;
    const second = counter.reach(30);
    release();
    await Promise.all([first, second]);
    expect(core.calls).toEqual([10, 30]);
    expect(published).toEqual([10, 30]);
    core.size = 31;
    await counter.reach(31);
    expect(core.calls).toEqual([10, 30, 31]);
    expect(published).toEqual([10, 30, 31]);
  });

  it("drops the answers of a filter that was replaced", async () => {
    const { count } = fakeCore(10, 100);
    const published: MatchCount[] = [];
    const counter = new MatchCounter("even", count, (c) => published.push(c));
    const counting = counter.reach(10);
    counter.stop();
    await counting;
    expect(published).toEqual([]);
  });

  it("does not spin when the core has looked at all it holds", async () => {
    const { core, count } = fakeCore(5, 100);
    const published: MatchCount[] = [];
    await new MatchCounter("even", count, (c) => published.push(c)).reach(8);
    expect(core.calls).toEqual([8, 8]);
    expect(published.at(-1)).toEqual({ count: 3, scanned: 5 });
  });
});
