/**
 * Headline punctuation where a typesetter would put it (src/components/tuck/tuck.ts): on every page
 * of the sitemap, at a phone's width and a desktop's, in the brand face and in the fallback a first
 * visit is drawn in, each comma, period, colon, semicolon or exclamation mark that ends a word in a
 * heading starts no further from the letter before it than a letter would (its left side bearing
 * at most that of an "n" in the same font; untucked, the brand face's marks start about twice as
 * far, which reads as "assets ,"), and its ink never touches that letter's. Measured in the
 * browser: each glyph's box from a Range, its ink from canvas measureText in the heading's font.
 */
import { expect, type Page, test } from "@playwright/test";
import { readSitemap } from "./routes";

/** Rounding of canvas's whole-pixel ink box at 1000 px, and of the layout's positions, in em. */
const TOLERANCE = 0.005;

interface Mark {
  heading: string;
  text: string;
  /** How far right of the end of the letter before it (its advance) the mark's ink starts, in em. */
  lead: number;
  /** The same for an "n" in the same font: a letter's left side bearing. */
  letterLead: number;
  /** The space between the two glyphs' ink, in em. */
  gap: number;
}

/** Every word-ending mark of the page's visible headings, with the space before its ink in em. */
function measureMarks(page: Page, face: "brand" | "fallback"): Promise<Mark[]> {
  return page.evaluate(async (face) => {
    // Loaded before the class asks for it: the face is `font-display: optional`, so a file that
    // arrives after the text is laid out would leave it in the fallback.
    await document.fonts.load('800 1em "Plus Jakarta Sans Variable"');
    document.documentElement.classList.toggle("brand-font", face === "brand");
    await document.fonts.ready;
    await new Promise(requestAnimationFrame);
    const canvas = document.createElement("canvas").getContext("2d")!;
    const marks: Mark[] = [];
    for (const heading of document.querySelectorAll<HTMLElement>("h1, h2, h3")) {
      if (heading.getClientRects().length === 0 || heading.closest(".sr-only")) continue;
      // The heading's characters in order, across its text nodes (a tucked mark is a node of its own).
      const chars: { node: Text; offset: number; char: string }[] = [];
      const walker = document.createTreeWalker(heading, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let offset = 0; offset < node.data.length; offset++)
          chars.push({ node, offset, char: node.data[offset]! });
      }
      const box = (i: number) => {
        const range = document.createRange();
        range.setStart(chars[i]!.node, chars[i]!.offset);
        range.setEnd(chars[i]!.node, chars[i]!.offset + 1);
        return range.getBoundingClientRect();
      };
      for (let i = 1; i < chars.length; i++) {
        const { char, node } = chars[i]!;
        const next = chars[i + 1]?.char ?? " ";
        if (!/[,.:;!]/.test(char) || !/[\p{L}\p{N}]/u.test(chars[i - 1]!.char) || !/\s/.test(next)) continue;
        const style = getComputedStyle(node.parentElement!);
        const size = parseFloat(style.fontSize);
        // At 1000 px, so that canvas's whole-pixel ink box is exact to 0.001 em.
        canvas.font = `${style.fontWeight} 1000px ${style.fontFamily}`;
        const inkLeft = (glyph: string) => -canvas.measureText(glyph).actualBoundingBoxLeft / 1000;
        const previousInkRight = canvas.measureText(chars[i - 1]!.char).actualBoundingBoxRight / 1000;
        const before = box(i - 1);
        const mark = box(i);
        if (Math.abs(mark.top - before.top) > 1) continue; // a line break between them
        const text = chars
          .slice(Math.max(0, i - 12), i + 1)
          .map((c) => c.char)
          .join("");
        marks.push({
          heading: heading.tagName,
          text,
          lead: (mark.left - before.right) / size + inkLeft(char),
          letterLead: inkLeft("n"),
          gap: (mark.left - before.left) / size + inkLeft(char) - previousInkRight,
        });
      }
    }
    return marks;
  }, face);
}

const sitemap = await readSitemap();

if (sitemap instanceof Error) {
  test("headline punctuation: the sitemap can be read", () => {
    throw sitemap;
  });
} else {
  for (const viewport of [
    { name: "desktop", width: 1280, height: 900 },
    { name: "mobile", width: 390, height: 844 },
  ]) {
    test.describe(`headline punctuation at ${viewport.name} width (${viewport.width}px)`, () => {
      test.use({ viewport: { width: viewport.width, height: viewport.height } });
      for (const path of sitemap) {
        test(`${path}: each mark sits against its word in both faces`, async ({ page }) => {
          await page.goto(path);
          for (const face of ["fallback", "brand"] as const) {
            const marks = await measureMarks(page, face);
            const loose = marks.filter((m) => m.lead > m.letterLead + TOLERANCE);
            expect(
              loose.map(
                (m) =>
                  `${face} ${m.heading} "…${m.text}" starts ${m.lead.toFixed(3)} em after its word (a letter: ${m.letterLead.toFixed(3)})`,
              ),
            ).toEqual([]);
            const touching = marks.filter((m) => m.gap < 0);
            expect(touching.map((m) => `${face} ${m.heading} "…${m.text}" touches its word`)).toEqual([]);
          }
        });
      }
    });
  }
}

test("the measure sees a loose mark: an untucked comma in the brand face starts past the limit", async ({ page }) => {
  await page.goto("/");
  await page.evaluate(() => {
    const h1 = document.querySelector("h1")!;
    h1.textContent = "The next level of assets, and how";
  });
  const marks = await measureMarks(page, "brand");
  expect(marks).toHaveLength(1);
  expect(marks[0]!.text).toMatch(/assets,$/);
  expect(marks[0]!.lead).toBeGreaterThan(marks[0]!.letterLead + TOLERANCE);
});
