import { describe, expect, it } from "vitest";
import { MAX_ROWS, PAGE, RowCache } from "./rows";
import type { Entry } from "../ipc";

/** A list of `length` rows in the core, whose row i is the entry with seq i; reads are recorded
 * and answered when `flush` is awaited. */
function fakeList(length: number) {
  const list = { length, reads: [] as number[], pending: [] as (() => void)[] };
  const read = (start: number) =>
    new Promise<(Entry | undefined)[]>((resolve) => {
      list.reads.push(start);
      list.pending.push(() => {
        const rows = [];
        for (let i = start; i < Math.min(start + PAGE, list.length); i++) rows.push({ seq: i } as Entry);
        resolve(rows);
      });
    });
  const flush = async () => {
    while (list.pending.length) list.pending.shift()!();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { list, read, flush };
}

describe("the rows a log list holds", () => {
  it("reads the pages on screen once, and shows what arrived", async () => {
    const { list, read, flush } = fakeList(1000);
    let changes = 0;
    const rows = new RowCache(read, () => changes++);
    rows.show(150, 250, 1000);
    rows.show(150, 250, 1000);
    expect(list.reads).toEqual([0, 200]);
    await flush();
    expect(changes).toBe(2);
    expect(Number(rows.get(250)?.seq)).toBe(250);
    rows.show(150, 250, 1000);
    expect(list.reads).toEqual([0, 200]);
    expect(rows.size).toBe(2 * PAGE);
  });

  it("never holds more than the bound, whatever was scrolled through, and keeps what is on screen", async () => {
    const size = 1_000_000;
    const { list, read, flush } = fakeList(size);
    const rows = new RowCache(read, () => {});
    for (let first = 0; first < size; first += 7 * PAGE) {
      rows.show(first, first + 60, size);
      await flush();
      expect(rows.size).toBeLessThanOrEqual(MAX_ROWS);
      expect(Number(rows.get(first)?.seq)).toBe(first);
    }
    expect(list.reads.length).toBeGreaterThan(MAX_ROWS / PAGE);
    // The oldest pages went; going back reads them again.
    expect(rows.get(0)).toBeUndefined();
    rows.show(0, 10, size);
    expect(list.reads.at(-1)).toBe(0);
  });

  it("lets go of the pages shown least recently first", async () => {
    const { read, flush } = fakeList(10 * PAGE);
    const rows = new RowCache(read, () => {}, 3 * PAGE);
    for (const p of [0, 1, 2]) {
      rows.show(p * PAGE, p * PAGE + 10, 10 * PAGE);
      await flush();
    }
    rows.show(0, 10, 10 * PAGE); // page 0 is shown again: page 1 is now the oldest
    rows.show(3 * PAGE, 3 * PAGE + 10, 10 * PAGE);
    await flush();
    expect([0, 1, 2, 3].map((p) => rows.get(p * PAGE) !== undefined)).toEqual([true, false, true, true]);
  });

  it("reads a page again only once the list has grown into it", async () => {
    const { list, read, flush } = fakeList(250);
    const rows = new RowCache(read, () => {});
    rows.show(200, 249, 250);
    await flush();
    rows.show(200, 249, 250);
    expect(list.reads).toEqual([200]);
    list.length = 260;
    rows.show(200, 259, 260);
    expect(list.reads).toEqual([200, 200]);
    await flush();
    expect(Number(rows.get(259)?.seq)).toBe(259);
  });

  it("keeps streamed rows, within the bound, without reading their page", async () => {
    const { list, read } = fakeList(0);
    const rows = new RowCache(read, () => {}, 2 * PAGE);
    for (let i = 0; i < 5 * PAGE; i++) rows.put(i, { seq: i } as Entry);
    expect(rows.size).toBeLessThanOrEqual(2 * PAGE);
    expect(Number(rows.get(5 * PAGE - 1)?.seq)).toBe(5 * PAGE - 1);
    expect(rows.indexOf(5 * PAGE - 3)).toBe(5 * PAGE - 3);
    expect(rows.indexOf(0)).toBeNull();
    list.length = 5 * PAGE;
    rows.show(4 * PAGE, 5 * PAGE - 1, 5 * PAGE);
    expect(list.reads).toEqual([]);
  });

  it("lets go of the rows a failed write took back, and reads them again from the core", async () => {
    const { list, read, flush } = fakeList(0);
    const rows = new RowCache(read, () => {});
    // Streamed rows 0..249; the file then kept only 0..209.
    for (let i = 0; i < 250; i++) rows.put(i, { seq: i } as Entry);
    rows.dropFrom(210);
    expect(rows.size).toBe(210);
    expect(rows.get(209)).toBeDefined();
    expect(rows.get(210)).toBeUndefined();
    // Row 210 is now another entry's (the gap's note): the page is read again, not trusted.
    list.length = 211;
    rows.show(200, 210, 211);
    expect(list.reads).toEqual([200]);
    await flush();
    expect(Number(rows.get(210)?.seq)).toBe(210);
    expect(rows.size).toBe(211);
  });
});
