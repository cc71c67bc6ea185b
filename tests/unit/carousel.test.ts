import { describe, expect, it } from "vitest";
import { dotIndex, nextIndex, previousIndex } from "../../src/lib/carousel";

describe("carousel index arithmetic", () => {
  it("next advances and wraps from the last slide to the first", () => {
    expect(nextIndex(0, 6)).toBe(1);
    expect(nextIndex(4, 6)).toBe(5);
    expect(nextIndex(5, 6)).toBe(0);
  });

  it("previous goes back and wraps from the first slide to the last", () => {
    expect(previousIndex(3, 6)).toBe(2);
    expect(previousIndex(0, 6)).toBe(5);
    expect(previousIndex(0, 3)).toBe(2);
  });

  it("a single slide stays put both ways", () => {
    expect(nextIndex(0, 1)).toBe(0);
    expect(previousIndex(0, 1)).toBe(0);
  });

  it("a dot selects its slide and clamps outside the range", () => {
    expect(dotIndex(3, 6)).toBe(3);
    expect(dotIndex(9, 6)).toBe(5);
    expect(dotIndex(-2, 6)).toBe(0);
  });

  it("an empty carousel always answers 0", () => {
    expect(nextIndex(0, 0)).toBe(0);
    expect(previousIndex(0, 0)).toBe(0);
    expect(dotIndex(2, 0)).toBe(0);
  });
});
