import { describe, expect, it } from "vitest";
import { Inbox, WAITING_MAX } from "./inbox";

describe("Inbox", () => {
  it("hands messages on one at a time, in order", async () => {
    const seen: number[] = [];
    let inFlight = 0;
    let most = 0;
    const done = new Promise<void>((resolve) => {
      const inbox = new Inbox<number>(
        async (n) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          await Promise.resolve();
          seen.push(n);
          inFlight -= 1;
          if (n === 9) resolve();
        },
        () => undefined,
      );
      for (let n = 0; n < 10; n++) inbox.push(n);
    });
    await done;
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(1);
  });

  it("keeps the requests it drops, to be answered", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let said!: (r: { count: number; requests: number[] }) => void;
    const report = new Promise<{ count: number; requests: number[] }>((r) => (said = r));
    const inbox = new Inbox<number>(
      async (n) => {
        if (n === 0) await gate;
      },
      (count, requests) => said({ count, requests }),
      (n) => n % 2 === 1,
    );
    for (let n = 0; n < WAITING_MAX + 11; n++) inbox.push(n);
    release();
    const { count, requests } = await report;
    // 0 is taken, 1…64 wait, 65…74 are dropped: of those, the odd ones are requests.
    expect(count).toBe(10);
    expect(requests).toEqual([65, 67, 69, 71, 73]);
  });

  it("drops a flood beyond its bound and says how many went", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    const drops: number[] = [];
    const flood = 10_000;
    let said!: () => void;
    const allSaid = new Promise<void>((r) => (said = r));
    const whole = () =>
      handled.length === WAITING_MAX + 1 && drops.reduce((a, b) => a + b, 0) >= flood - WAITING_MAX - 1;
    const inbox = new Inbox<number>(
      async (n) => {
        if (n === 0) await gate;
        handled.push(n);
        if (whole()) said();
      },
      (count) => {
        drops.push(count);
        if (whole()) said();
      },
    );
    for (let n = 0; n < flood; n++) inbox.push(n);
    release();
    await allSaid;
    // The first is taken at once; the bound's worth wait; the rest are dropped, and said.
    expect(handled.length).toBe(WAITING_MAX + 1);
    expect(drops.reduce((a, b) => a + b, 0)).toBe(flood - WAITING_MAX - 1);
  });
});
