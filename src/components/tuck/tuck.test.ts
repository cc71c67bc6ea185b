import { describe, expect, it } from "vitest";
import { tuckPunctuation } from "./tuck";

const marks = (text: string) =>
  tuckPunctuation(text)
    .filter((part) => part.tuck)
    .map((part) => `${part.text}${part.tuck}`);

describe("tuckPunctuation", () => {
  it("keeps the text as it was, in order", () => {
    const text = "Two programs, one goal: a practice that runs without you. Ready? Yes!";
    expect(
      tuckPunctuation(text)
        .map((part) => part.text)
        .join(""),
    ).toBe(text);
  });

  it("names each mark's kind: a comma, a period, and a colon, semicolon or exclamation mark as tall", () => {
    expect(marks("Two programs, one goal: clients; systems. Now!")).toEqual([
      ",comma",
      ":tall",
      ";tall",
      ".dot",
      "!tall",
    ]);
  });

  it("leaves a question mark, whose glyph already sits close", () => {
    expect(marks("Which program fits?")).toEqual([]);
  });

  it("leaves separators inside numbers and a mark after a space", () => {
    expect(marks("From $3,995 to 1.5x , then")).toEqual([]);
  });

  it("tucks the first dot of an ellipsis only, and a mark after a closing quote or bracket", () => {
    expect(marks("Wait... what")).toEqual([".dot"]);
    expect(marks('The "system", then (yours).')).toEqual([",comma", ".dot"]);
  });

  it("makes one run of text without marks", () => {
    expect(tuckPunctuation("Build your practice")).toEqual([{ text: "Build your practice" }]);
    expect(tuckPunctuation("")).toEqual([]);
  });
});
