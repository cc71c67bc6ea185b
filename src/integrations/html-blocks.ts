// A small scanner for the HTML Astro writes: where each element starts and ends, and the page's
// top-level blocks (the body's children, with <main> replaced by its own children). Shared by the
// critical-CSS integration (which blocks make the first screen) and the bench (where, in bytes,
// the first screen ends). Pure functions over a string; no DOM.

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
/** Elements whose content is text up to their end tag, never markup. */
const RAW_TEXT = new Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"]);

/** An element of the document: see scanElements. */
export interface ScannedElement {
  tag: string;
  start: number;
  end: number;
  depth: number;
  parent: number;
}

/** A top-level block of the page: see topLevelBlocks. */
export interface Block {
  tag: string;
  start: number;
  end: number;
  path: string;
}

// A start or end tag whose quoted attribute values may contain ">".
const TAG = /<(\/?)([a-zA-Z][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/y;

/**
 * Every element of the document in source order: { tag, start, end, depth, parent } with
 * `start` the index of its "<", `end` the index just after its end tag (or its start tag, for a
 * void or self-closed one) and `parent` the index of its parent in the list (-1 at the top).
 * Comments, doctypes and the text of raw-text elements (script, style…) are skipped. End tags
 * close the nearest open element of their name, as browsers do for well-formed markup.
 */
export function scanElements(html: string): ScannedElement[] {
  const elements: ScannedElement[] = [];
  // The elements not yet closed, innermost last, with their index in `elements`.
  const open: { index: number; element: ScannedElement }[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) break;
    if (html.startsWith("<!--", lt)) {
      const close = html.indexOf("-->", lt + 4);
      i = close < 0 ? html.length : close + 3;
      continue;
    }
    if (html[lt + 1] === "!" || html[lt + 1] === "?") {
      const close = html.indexOf(">", lt);
      i = close < 0 ? html.length : close + 1;
      continue;
    }
    TAG.lastIndex = lt;
    const match = TAG.exec(html);
    if (!match) {
      i = lt + 1;
      continue;
    }
    const [text, slash, name = "", attrs = ""] = match;
    const tag = name.toLowerCase();
    i = lt + text.length;
    if (slash) {
      const at = open.findLastIndex(({ element }) => element.tag === tag);
      if (at >= 0) {
        for (const { element } of open.splice(at)) element.end = i;
      }
      continue;
    }
    const parent = open.at(-1)?.index ?? -1;
    const element: ScannedElement = { tag, start: lt, end: i, depth: open.length, parent };
    elements.push(element);
    if (VOID.has(tag) || /\/\s*$/.test(attrs)) continue;
    if (RAW_TEXT.has(tag)) {
      const close = new RegExp(`</${tag}\\s*>`, "gi");
      close.lastIndex = i;
      const found = close.exec(html);
      element.end = i = found ? found.index + found[0].length : html.length;
      continue;
    }
    open.push({ index: elements.length - 1, element });
  }
  for (const { element } of open) element.end = html.length;
  return elements;
}

/** Elements that take no room on the page: they never start or end a screen. */
const NOT_RENDERED = new Set(["script", "style", "template", "noscript", "link", "meta"]);

/**
 * The page's top-level blocks in source order: the body's children, where <main> is replaced by
 * its children. Each is { tag, start, end, path } with path "body>2" or "main>0" (the index among
 * the element children of its parent, scripts included, as the DOM counts them). Elements that
 * render nothing (script, style, template, noscript) are left out.
 */
export function topLevelBlocks(html: string): Block[] {
  const elements = scanElements(html);
  const body = elements.findIndex((e) => e.tag === "body");
  if (body < 0) return [];
  const main = elements.findIndex((e) => e.tag === "main" && e.parent === body);
  const childrenOf = (parent: number) =>
    elements.map((e, index) => ({ ...e, index })).filter((e) => e.parent === parent);
  const blocks: Block[] = [];
  childrenOf(body).forEach((child, n) => {
    if (child.index === main) {
      childrenOf(main).forEach((inner, m) => blocks.push({ ...inner, path: `main>${m}` }));
    } else {
      blocks.push({ ...child, path: `body>${n}` });
    }
  });
  return blocks.filter((b) => !NOT_RENDERED.has(b.tag)).map(({ tag, start, end, path }) => ({ tag, start, end, path }));
}
