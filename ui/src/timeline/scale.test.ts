import { describe, expect, it } from "vitest";
import { MIN_WIDTH, fit, pan, ticks, zoomAt } from "./scale";

describe("the timeline's window", () => {
  it("zooms about the point under the cursor, which stays where it was", () => {
    const w = zoomAt({ from: 0, to: 1000 }, 0.5, 0.25, 1000);
    expect(w).toEqual({ from: 125, to: 625 });
    // The time under the anchor is the same before and after.
    expect(w.from + (w.to - w.from) * 0.25).toBe(250);
  });

  it("zooms down to a fraction of a millisecond and no further, and out to the session", () => {
    let w = { from: 0, to: 10_000 };
    for (let i = 0; i < 60; i++) w = zoomAt(w, 0.5, 0.5, 10_000);
    expect(w.to - w.from).toBe(MIN_WIDTH);
    for (let i = 0; i < 60; i++) w = zoomAt(w, 2, 0.5, 10_000);
    expect(w.to - w.from).toBe(10_000);
    expect(w.from).toBe(0);
  });

  it("pans by a fraction of its width and never before the session started", () => {
    expect(pan({ from: 100, to: 200 }, 0.5, 1000)).toEqual({ from: 150, to: 250 });
    expect(pan({ from: 10, to: 110 }, -0.5, 1000)).toEqual({ from: 0, to: 100 });
  });

  it("fits the whole session with room after its end", () => {
    expect(fit(1000)).toEqual({ from: 0, to: 1020 });
  });

  it("puts ticks on round times", () => {
    expect(ticks({ from: 0, to: 1000 }, 550)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(ticks({ from: 3.3, to: 4.1 }, 440)).toEqual([3.4, 3.6, 3.8, 4].map((t) => expect.closeTo(t, 9)));
  });
});
