import { describe, expect, it } from "vitest";
import { scanElements, topLevelBlocks } from "../../src/integrations/html-blocks.ts";

const PAGE = [
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a <b> title</title>`,
  `<style>main > p { content: "</div>" }</style></head>`,
  `<body class="x"><a href="#main" class="sr-only">Skip</a>`,
  `<script type="module">const s = "<section>"; if (1 < 2) document.title = '</main>';</script>`,
  `<site-header><header data-x="a>b"><svg viewBox="0 0 1 1"><path d="M0 0"/><stop></stop></svg></header></site-header>`,
  `<!-- <section>commented out</section> -->`,
  `<main id="main"><section class="hero"><h1>Hi</h1><img src="/a.png" alt=""><br></section>`,
  `<div class="stats"><p>one</p></div><script>var x = 1;</script><section id="later"><ul><li>a</li></ul></section></main>`,
  `<footer><p>end</p></footer><script type="module">import "/x.js"</script></body></html>`,
].join("");

describe("html-blocks scanner", () => {
  it("nests elements as a browser would, skipping comments, void elements and raw text", () => {
    const elements = scanElements(PAGE);
    const names = elements.map((e) => e.tag);
    expect(names).not.toContain("b"); // inside <title>
    expect(names.filter((n) => n === "section")).toHaveLength(2); // not the commented one, nor the strings
    const main = elements.find((e) => e.tag === "main")!;
    expect(PAGE.slice(main.start, main.end)).toMatch(/^<main id="main">[\s\S]*<\/main>$/);
    const svg = elements.find((e) => e.tag === "svg")!;
    const path = elements.find((e) => e.tag === "path")!;
    expect(elements[path.parent]).toBe(svg);
    const img = elements.find((e) => e.tag === "img")!;
    const br = elements.find((e) => e.tag === "br")!;
    expect(elements[br.parent]).toBe(elements[img.parent]);
    const header = elements.find((e) => e.tag === "header")!;
    expect(PAGE.slice(header.start, header.end)).toMatch(/^<header data-x="a>b">[\s\S]*<\/header>$/);
  });

  it("lists the body's blocks with <main> replaced by its children, by their DOM paths", () => {
    const blocks = topLevelBlocks(PAGE);
    expect(blocks.map((b) => `${b.path} ${b.tag}`)).toEqual([
      "body>0 a",
      "body>2 site-header",
      "main>0 section",
      "main>1 div",
      "main>3 section",
      "body>4 footer",
    ]);
    const later = blocks.find((b) => b.path === "main>3")!;
    expect(PAGE.slice(later.start, later.end)).toBe(`<section id="later"><ul><li>a</li></ul></section>`);
  });

  it("copes with a page without <main> or <body>", () => {
    expect(topLevelBlocks("<p>fragment</p>")).toEqual([]);
    expect(topLevelBlocks("<html><body><div>a</div><footer>b</footer></body></html>").map((b) => b.path)).toEqual([
      "body>0",
      "body>1",
    ]);
  });
});
