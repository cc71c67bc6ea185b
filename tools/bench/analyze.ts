// Static analysis of the built site: per page, the HTML it sends and the JavaScript it loads.
// Pure functions over files in dist/ (no browser): the numbers are what a visitor downloads,
// gzip level 9 per file, which is close to what the CDN serves.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { initSync, parse as parseModule } from "es-module-lexer";
import type { FirstScreenResult } from "./fold.ts";

initSync();

/** A start tag's attributes: names lower-cased, values with entities decoded, bare ones as "". */
export type Attributes = Record<string, string>;

/** A script a page runs, classic or module, inline (`body`) or not (`src`). */
export interface HtmlScript {
  src: string | null;
  module: boolean;
  async: boolean;
  defer: boolean;
  inHead: boolean;
  body: string;
}

/** An <astro-island>: its directive and the files it hydrates with. */
export interface Island {
  client: string;
  componentUrl: string | null;
  rendererUrl: string | null;
  beforeHydrationUrl: string | null;
}

/** What a page asks the browser to run and load; see parseHtml. */
export interface ParsedHtml {
  scripts: HtmlScript[];
  preloads: string[];
  islands: Island[];
  blockingStylesheets: string[];
  deferredStylesheets: string[];
  noscriptStylesheets: string[];
  scriptedStylesheets: string[];
  styles: { critical: boolean; text: string }[];
}

/** A URL resolved against the build: a file in it, another origin, or a bare specifier. */
export type Resolved = { file: string } | { external: string } | { unresolved: string };

/** A file a page loads, read once: its sizes and static imports. */
export interface CachedFile {
  file: string;
  /** Its URL path from the site's root. */
  path: string;
  missing: boolean;
  raw: number;
  gzip: number;
  imports: string[];
  text: string;
}

export interface Size {
  raw: number;
  gzip: number;
}

/** A stylesheet a page loads without blocking. */
export interface CssFile extends Size {
  path: string;
  missing: boolean;
}

/** The analysis of one built page (and the bench's report of it). */
export interface PageAnalysis {
  path: string;
  /** Its HTML file, from dist/. */
  file: string;
  marketing: boolean;
  html: Size;
  js: Size & {
    inline: Size & { count: number };
    files: (Size & { path: string; when: "load" | "later" })[];
  };
  jsEager: Size;
  jsLater: Size;
  islands: number;
  directives: Record<string, number>;
  renderBlocking: string[];
  blockingStylesheets: string[];
  css: {
    inline: Size;
    critical: Size;
    deferred: CssFile[];
    withoutNoscript: string[];
    withoutLoader: string[];
  };
  supabase: boolean;
  supabaseFiles: string[];
  supabaseMentions: string[];
  stripe: boolean;
  stripeFiles: string[];
  problems: string[];
  /** Where its first screen ends (tools/bench/fold.ts), once the bench measured it. */
  firstScreen?: FirstScreenResult | null;
}

/** A JavaScript file of the site and how many pages load it. */
export interface SiteJsFile extends Size {
  path: string;
  pages: number;
}

/**
 * Path prefixes of the app pages (sign-in, checkout and the coached offer's page, portal, the
 * team's desk), which may load supabase-js; every other page is a marketing page. tests/tooling/bench-analyze.test.ts keeps it
 * in step with the pages built in the app's layouts.
 */
export const APP_PREFIXES = ["/login", "/forgot-password", "/reset-password", "/checkout", "/portal", "/desk", "/offer"];

/** Client directives whose island loads with the page; the others wait (visible, media, custom ones). */
export const EAGER_DIRECTIVES = new Set(["load", "idle", "only"]);

/**
 * supabase-js code, as it survives minification: its package names in error messages, the
 * auth client's name in its debug log, its storage key. A Supabase *URL* in a config value is
 * not code, so a bare "supabase" only counts as a mention (reported, not failed).
 */
export const SUPABASE_CODE = /@supabase\/|supabase-js|GoTrueClient|supabase\.auth\.token/i;
export const SUPABASE_MENTION = /supabase/i;
/** Stripe.js, which the budgets (docs/architecture.md) also keep off marketing pages. */
export const STRIPE_CODE = /js\.stripe\.com|@stripe\/stripe-js/i;

export const gzipSize = (data: string | Buffer): number => gzipSync(data, { level: 9 }).length;

export function isMarketing(path: string): boolean {
  return !APP_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** `dist/advisor-os/details.html` -> `/advisor-os/details`, `dist/index.html` -> `/`. */
export function pagePath(dist: string, file: string): string {
  const rel = relative(dist, file).split(sep).join("/").replace(/\.html$/, "");
  if (rel === "index") return "/";
  return `/${rel.replace(/\/index$/, "")}`;
}

/** Every .html file under dir, except in _astro/ (assets). */
export function htmlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return name === "_astro" ? [] : htmlFiles(full);
      return name.endsWith(".html") ? [full] : [];
    });
}

const ENTITIES: Record<string, string> = { amp: "&", quot: '"', apos: "'", lt: "<", gt: ">" };
const decodeEntities = (value: string) =>
  value.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (match, code: string) => {
    if (code[0] === "#")
      return String.fromCodePoint(code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : Number(code.slice(1)));
    return ENTITIES[code.toLowerCase()] ?? match;
  });

/** Attributes of a start tag's inside (`src="/a.js" defer`): names lower-cased, bare ones as "". */
export function parseAttributes(text: string): Attributes {
  const attrs: Attributes = {};
  for (const [, name = "", dq, sq, bare] of text.matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const key = name.toLowerCase();
    if (!(key in attrs)) attrs[key] = decodeEntities(dq ?? sq ?? bare ?? "");
  }
  return attrs;
}

// A start tag whose quoted attribute values may contain ">".
const TAG_BODY = String.raw`((?:[^>"']|"[^"]*"|'[^']*')*)`;
const JS_TYPES = new Set(["", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript"]);
const isJsType = (type: string | undefined) => JS_TYPES.has((type ?? "").trim().toLowerCase());

/**
 * What a page asks the browser to run: scripts (inline or not, in the head or not),
 * preloaded scripts, islands, and stylesheets that block rendering.
 */
export function parseHtml(html: string): ParsedHtml {
  const doc = html.replace(/<!--[\s\S]*?-->/g, (comment) => " ".repeat(comment.length));
  const headEnd = (() => {
    const close = doc.search(/<\/head\s*>/i);
    if (close >= 0) return close;
    const body = doc.search(/<body\b/i);
    return body >= 0 ? body : doc.length;
  })();

  const scripts: HtmlScript[] = [];
  for (const match of doc.matchAll(new RegExp(String.raw`<script\b${TAG_BODY}>([\s\S]*?)<\/script\s*>`, "gi"))) {
    const attrs = parseAttributes(match[1] ?? "");
    if (!isJsType(attrs.type)) continue; // JSON-LD, import maps, speculation rules, partytown...
    scripts.push({
      src: attrs.src ?? null,
      module: (attrs.type ?? "").trim().toLowerCase() === "module",
      async: "async" in attrs,
      defer: "defer" in attrs,
      inHead: match.index < headEnd,
      body: "src" in attrs ? "" : (match[2] ?? ""),
    });
  }

  // What <noscript> holds only applies without JavaScript (a stylesheet there is the no-JS
  // fallback of a deferred one): kept apart, blanked out of the document for the rest.
  const noscripts: { attrs: Attributes; inner: string }[] = [];
  const scripted = doc.replace(/<noscript\b([^>]*)>([\s\S]*?)<\/noscript\s*>/gi, (block, attrs: string, inner: string) => {
    noscripts.push({ attrs: parseAttributes(attrs), inner });
    return " ".repeat(block.length);
  });
  type Link = { attrs: Attributes; href: string; inHead: boolean };
  // Links without an address load nothing: left out.
  const linksIn = (text: string): Link[] =>
    [...text.matchAll(new RegExp(String.raw`<link\b${TAG_BODY}>`, "gi"))].flatMap((match) => {
      const attrs = parseAttributes(match[1] ?? "");
      return attrs.href ? [{ attrs, href: attrs.href, inHead: match.index < headEnd }] : [];
    });
  const links = linksIn(scripted);
  const rels = (link: Link) => (link.attrs.rel ?? "").toLowerCase().split(/\s+/);
  // <link rel=modulepreload>, and <link rel=preload as=script>: fetched with the page.
  const preloads = links
    .filter((l) => rels(l).includes("modulepreload") || (rels(l).includes("preload") && l.attrs.as === "script"))
    .map((l) => l.href);
  const stylesheets = links.filter((l) => rels(l).includes("stylesheet") && !("disabled" in l.attrs));
  const applies = (l: Link) => !l.attrs.media || /^\s*(all|screen)\s*$/i.test(l.attrs.media);
  const blockingStylesheets = stylesheets.filter((l) => l.inHead && applies(l)).map((l) => l.href);
  // Loaded without blocking: switched on when loaded (media="print" onload="this.media='all'" and
  // the like), or added by a script from <noscript data-href> (src/integrations/critical-css.ts).
  // The stylesheets a script adds from <noscript data-href>.
  const scriptedStylesheets = noscripts.flatMap((n) => n.attrs["data-href"] || []);
  const deferredStylesheets = [
    ...stylesheets.filter((l) => !applies(l) && l.attrs.onload).map((l) => l.href),
    ...scriptedStylesheets,
  ];
  const noscriptStylesheets = noscripts
    .flatMap((n) => linksIn(n.inner))
    .filter((l) => rels(l).includes("stylesheet"))
    .map((l) => l.href);
  const styles = [...scripted.matchAll(/<style\b([^>]*)>([\s\S]*?)<\/style\s*>/gi)].map((match) => ({
    critical: "data-critical" in parseAttributes(match[1] ?? ""),
    text: match[2] ?? "",
  }));

  const islands = [...doc.matchAll(new RegExp(String.raw`<astro-island\b${TAG_BODY}>`, "gi"))].map((match) => {
    const attrs = parseAttributes(match[1] ?? "");
    return {
      client: attrs.client || "?",
      componentUrl: attrs["component-url"] ?? null,
      rendererUrl: attrs["renderer-url"] ?? null,
      beforeHydrationUrl: attrs["before-hydration-url"] || null,
    };
  });

  return {
    scripts,
    preloads,
    islands,
    blockingStylesheets,
    deferredStylesheets,
    noscriptStylesheets,
    scriptedStylesheets,
    styles,
  };
}

/** A classic script with src in <head>, without async or defer, holds up the first paint. */
export const isRenderBlocking = (script: HtmlScript): script is HtmlScript & { src: string } =>
  script.inHead && script.src !== null && !script.module && !script.async && !script.defer;

/** Static import specifiers of a module (`import x from`, `import "..."`, `export * from`); not `import()`. */
export function staticImports(code: string): string[] {
  try {
    const [imports] = parseModule(code);
    // t: 1 static, 4 static source phase, 6 static defer phase; dynamic import() loads later.
    return [...new Set(imports.flatMap((i) => ([1, 4, 6].includes(i.t) && i.n ? [i.n] : [])))];
  } catch {
    // Not parseable as a module (a classic script): fall back to a pattern for minified output.
    const re = /(?:^|[;\s})])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+)["']/g;
    return [...new Set([...code.matchAll(re)].flatMap((m) => m[1] ?? []))];
  }
}

/**
 * Maps a URL found in a page or module to a file under dist. Returns { file } or
 * { external } (another origin, a data: URL) or { unresolved } (a bare specifier).
 */
export function resolveUrl(dist: string, url: string, fromFile: string): Resolved {
  const clean = url.trim().replace(/[?#].*$/, "");
  if (/^[a-z][a-z\d+.-]*:/i.test(clean) || clean.startsWith("//")) return { external: url };
  let path: string;
  try {
    path = decodeURIComponent(clean);
  } catch {
    path = clean;
  }
  let file: string;
  if (path.startsWith("/")) file = join(dist, path);
  else if (path.startsWith("./") || path.startsWith("../") || fromFile.endsWith(".html")) file = resolve(dirname(fromFile), path);
  else return { unresolved: url };
  const root = resolve(dist);
  if (file !== root && !file.startsWith(root + sep)) return { external: url };
  return { file };
}

/** Reads, measures and lexes each JS file once, whatever number of pages load it. */
export class FileCache {
  #files = new Map<string, CachedFile>();
  readonly dist: string;
  constructor(dist: string) {
    this.dist = resolve(dist);
  }
  get(file: string): CachedFile {
    let entry = this.#files.get(file);
    if (!entry) {
      let buffer = null;
      try {
        buffer = readFileSync(file);
      } catch {
        // A URL the page names but the build did not write: reported as missing.
      }
      const text = buffer ? buffer.toString("utf8") : "";
      entry = {
        file,
        path: `/${relative(this.dist, file).split(sep).join("/")}`,
        missing: !buffer,
        raw: buffer ? buffer.length : 0,
        gzip: buffer ? gzipSize(buffer) : 0,
        imports: buffer ? staticImports(text) : [],
        text,
      };
      this.#files.set(file, entry);
    }
    return entry;
  }
  all(): CachedFile[] {
    return [...this.#files.values()];
  }
}

/** Every file a set of entry files pulls in through static imports, each once, in load order. */
export function closure(entries: readonly string[], cache: FileCache, problems: string[] = []): CachedFile[] {
  const seen = new Set<string>();
  const order: CachedFile[] = [];
  const queue = [...entries];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const entry = cache.get(file);
    order.push(entry);
    if (entry.missing) problems.push(`missing file ${entry.path}`);
    for (const spec of entry.imports) {
      const target = resolveUrl(cache.dist, spec, file);
      if ("file" in target) queue.push(target.file);
      else problems.push(`${entry.path} imports ${spec} (${"external" in target ? "other origin" : "unresolved"})`);
    }
  }
  return order;
}

const sum = (items: readonly Size[], key: keyof Size) => items.reduce((n, item) => n + item[key], 0);

/** Counts of each client directive: { idle: 1, visible: 2 }. */
export function countDirectives(islands: readonly Island[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const island of islands) counts[island.client] = (counts[island.client] ?? 0) + 1;
  return counts;
}

/** The analysis of one built page. */
export function analyzePage(dist: string, file: string, cache: FileCache = new FileCache(dist)): PageAnalysis {
  const html = readFileSync(file);
  const page = parseHtml(html.toString("utf8"));
  const path = pagePath(dist, file);
  const problems: string[] = [];

  const toFile = (url: string | null): string[] => {
    if (!url) return [];
    const target = resolveUrl(dist, url, file);
    if ("file" in target) return [target.file];
    problems.push(`${url} (${"external" in target ? "other origin, not counted" : "unresolved"})`);
    return [];
  };

  const inline = page.scripts
    .filter((s) => s.src === null && s.body.trim())
    .map((s, i) => {
      const imports = s.module ? staticImports(s.body) : [];
      return { name: `inline #${i + 1}`, module: s.module, raw: Buffer.byteLength(s.body), gzip: gzipSize(s.body), imports, text: s.body };
    });
  const islandFiles = (island: Island) => [island.componentUrl, island.rendererUrl, island.beforeHydrationUrl].flatMap(toFile);

  const eagerEntries = [
    ...page.scripts.flatMap((s) => toFile(s.src)),
    ...inline.flatMap((s) => s.imports.flatMap(toFile)),
    ...page.preloads.flatMap(toFile),
    ...page.islands.filter((i) => EAGER_DIRECTIVES.has(i.client)).flatMap(islandFiles),
  ];
  const laterEntries = page.islands.filter((i) => !EAGER_DIRECTIVES.has(i.client)).flatMap(islandFiles);

  const eager = closure(eagerEntries, cache, problems);
  const eagerSet = new Set(eager.map((e) => e.file));
  const later = closure(laterEntries, cache, problems).filter((e) => !eagerSet.has(e.file));
  const files = [...eager, ...later];

  const texts = [...inline.map((s) => ({ where: s.name, text: s.text })), ...files.map((f) => ({ where: f.path, text: f.text }))];
  const supabaseCode = texts.filter((t) => SUPABASE_CODE.test(t.text)).map((t) => t.where);
  const supabaseMentions = texts
    .filter((t) => !SUPABASE_CODE.test(t.text) && SUPABASE_MENTION.test(t.text))
    .map((t) => {
      const at = t.text.search(SUPABASE_MENTION);
      return `${t.where}: …${t.text.slice(Math.max(0, at - 30), at + 40).replace(/\s+/g, " ")}…`;
    });
  const stripe = texts.filter((t) => STRIPE_CODE.test(t.text)).map((t) => t.where);

  const inlineSize = { raw: sum(inline, "raw"), gzip: sum(inline, "gzip") };
  const critical = page.styles.filter((st) => st.critical).map((st) => st.text).join("");
  // A stylesheet left in <noscript data-href> loads with JavaScript only if a script adds it.
  const loader = page.scripts.some((script) => script.body.includes("noscript[data-href]"));
  const allInlineCss = page.styles.map((st) => st.text).join("");
  const cssFile = (href: string): CssFile => {
    const target = resolveUrl(dist, href, file);
    if (!("file" in target)) return { path: href, raw: 0, gzip: 0, missing: false };
    try {
      const buffer = readFileSync(target.file);
      return { path: href, raw: buffer.length, gzip: gzipSize(buffer), missing: false };
    } catch {
      problems.push(`missing stylesheet ${href}`);
      return { path: href, raw: 0, gzip: 0, missing: true };
    }
  };
  return {
    path,
    file: relative(dist, file).split(sep).join("/"),
    marketing: isMarketing(path),
    html: { raw: html.length, gzip: gzipSize(html) },
    // Everything the page references: scripts, modulepreloads, every island (any directive), transitively.
    js: {
      raw: inlineSize.raw + sum(files, "raw"),
      gzip: inlineSize.gzip + sum(files, "gzip"),
      inline: { count: inline.length, ...inlineSize },
      files: files.map((f) => ({
        path: f.path,
        raw: f.raw,
        gzip: f.gzip,
        when: eagerSet.has(f.file) ? ("load" as const) : ("later" as const),
      })),
    },
    // Of which loads at once (inline, scripts, modulepreloads, load/idle/only islands) ...
    jsEager: { raw: inlineSize.raw + sum(eager, "raw"), gzip: inlineSize.gzip + sum(eager, "gzip") },
    // ... and waits for the visitor (visible, media and custom-directive islands).
    jsLater: { raw: sum(later, "raw"), gzip: sum(later, "gzip") },
    islands: page.islands.length,
    directives: countDirectives(page.islands),
    renderBlocking: page.scripts.filter(isRenderBlocking).map((s) => s.src),
    blockingStylesheets: page.blockingStylesheets,
    // CSS: what the HTML carries (all <style> blocks, of which the critical CSS the build inlined)
    // and the stylesheets it loads without blocking, each with its no-JavaScript fallback or not.
    css: {
      inline: { raw: Buffer.byteLength(allInlineCss), gzip: allInlineCss ? gzipSize(allInlineCss) : 0 },
      critical: { raw: Buffer.byteLength(critical), gzip: critical ? gzipSize(critical) : 0 },
      deferred: page.deferredStylesheets.map(cssFile),
      withoutNoscript: page.deferredStylesheets.filter((href) => !page.noscriptStylesheets.includes(href)),
      withoutLoader: loader ? [] : page.scriptedStylesheets,
    },
    supabase: supabaseCode.length > 0,
    supabaseFiles: supabaseCode,
    supabaseMentions,
    stripe: stripe.length > 0,
    stripeFiles: stripe,
    problems: [...new Set(problems)],
  };
}

/** Every page under dist, sorted by path, and every JS file with the pages that load it. */
export function analyzeSite(dist: string): { pages: PageAnalysis[]; jsFiles: SiteJsFile[] } {
  const cache = new FileCache(dist);
  const pages = htmlFiles(dist)
    .map((file) => analyzePage(dist, file, cache))
    .sort((a, b) => (a.path === "/" ? -1 : b.path === "/" ? 1 : a.path.localeCompare(b.path)));
  const loadedBy = new Map<string, string[]>();
  for (const page of pages)
    for (const f of page.js.files) loadedBy.set(f.path, [...(loadedBy.get(f.path) ?? []), page.path]);
  const jsFiles = cache
    .all()
    .filter((f) => !f.missing)
    .map((f) => ({ path: f.path, raw: f.raw, gzip: f.gzip, pages: loadedBy.get(f.path)?.length ?? 0 }))
    .sort((a, b) => b.gzip - a.gzip);
  return { pages, jsFiles };
}
