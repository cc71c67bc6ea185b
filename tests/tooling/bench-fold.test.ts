import { describe, expect, it } from "vitest";
import { firstScreen, gzipPrefix } from "../../tools/bench/fold.ts";

const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p>paragraph ${i} ${"é".repeat(i % 7)}</p>`).join("");
const PAGE =
  `<!doctype html><html><head><style>body{margin:0}</style></head><body>` +
  `<a href="#main">Skip</a><script>1</script><site-header><header>h</header></site-header>` +
  `<main><section id="hero">${filler(40)}</section><section id="next">${filler(200)}</section>` +
  `<section id="last">x</section></main><footer>f</footer></body></html>`;

describe("bench first screen", () => {
  it("measures the gzip bytes of the HTML before a point, as UTF-8", () => {
    const at = PAGE.indexOf(`<section id="next">`);
    const size = gzipPrefix(PAGE, at);
    expect(size).toBeGreaterThan(100);
    expect(size).toBeLessThan(Buffer.byteLength(PAGE.slice(0, at)));
    expect(gzipPrefix(PAGE, PAGE.length)).toBeGreaterThan(size);
  });

  it("ends the first screen at the first block whose top is at or below the viewport", () => {
    const boxes = { "body>0": 0, "body>2": 0, "main>0": 64, "main>1": 900, "main>2": 4000, "body>4": 4100 };
    const screen = firstScreen(PAGE, boxes, 823);
    expect(screen.at).toBe("main>1");
    expect(screen.tag).toBe("section");
    expect(PAGE.slice(screen.index).startsWith(`<section id="next">`)).toBe(true);
    expect(screen.bytes).toBe(Buffer.byteLength(PAGE.slice(0, screen.index)));
    expect(screen.bytes).toBeGreaterThan(screen.index); // "é" takes two bytes
    expect(screen.gzip).toBe(gzipPrefix(PAGE, screen.index));
    expect(screen.missing).toEqual([]);
  });

  it("takes a block that starts exactly at the bottom edge as below the fold, one that straddles it as above", () => {
    expect(firstScreen(PAGE, { "main>0": 0, "main>1": 823 }, 823).at).toBe("main>1");
    expect(firstScreen(PAGE, { "main>0": 0, "main>1": 822, "main>2": 5000 }, 823).at).toBe("main>2");
  });

  it("reports the whole page when everything fits, and blocks the browser did not measure", () => {
    const screen = firstScreen(PAGE, { "main>0": 0, "main>1": 300 }, 823);
    expect(screen.at).toBe("end");
    expect(screen.index).toBe(PAGE.length);
    expect(screen.missing).toEqual(["body>0", "body>2", "main>2", "body>4"]);
  });
});
