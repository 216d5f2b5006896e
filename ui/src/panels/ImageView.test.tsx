import { describe, expect, it } from "vitest";
import { autoScale } from "./ImageView";

describe("an image's first scale", () => {
  it("brings a small image to at least 128 px by a whole factor, at most 8×, and leaves a large one", () => {
    expect(autoScale(20)).toBe(8);
    expect(autoScale(32)).toBe(4);
    expect(autoScale(100)).toBe(2);
    expect(autoScale(128)).toBe(1);
    expect(autoScale(1000)).toBe(1);
    expect(autoScale(1)).toBe(8);
  });
});
