// Static analysis of the built site: per page, the HTML it sends and the JavaScript it loads.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";

/** Paths that are allowed to load supabase-js (they act on the session); all others are marketing pages. */
export const APP_PREFIXES = ["/login", "/forgot-password", "/reset-password", "/checkout", "/portal"];

export const gzipSize = (text) => gzipSync(text, { level: 9 }).length;

export function isMarketing(path) {
  return !APP_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** `dist/advisor-os/details.html` -> `/advisor-os/details`, `dist/index.html` -> `/`. */
export function pagePath(dist, file) {
  const rel = relative(dist, file).replaceAll("\\", "/").replace(/\.html$/, "");
  if (rel === "index") return "/";
  return `/${rel.replace(/\/index$/, "")}`;
}

export function htmlFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return name === "_astro" ? [] : htmlFiles(full);
    return name.endsWith(".html") ? [full] : [];
  });
}

const attr = (tag, name) => tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1];

/** Static imports of a JS file, resolved to files under dist (dynamic import() is left out: it is lazy). */
export function staticImports(code, fromFile, dist) {
  const found = new Set();
  const re = /(?:^|[;\s}])(?:import|export)\s*(?:[\w*${}\s,]+?\s*from\s*)?["']([^"']+\.m?js)["']/g;
  for (const [, spec] of code.matchAll(re)) {
    const target = spec.startsWith("/") ? join(dist, spec) : resolve(fromFile, "..", spec);
    found.add(target);
  }
  return [...found];
}

/** Every JS file a set of entry files pulls in through static imports, each once. */
export function closure(entries, dist) {
  const seen = new Set();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    let code;
    try {
      code = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    queue.push(...staticImports(code, file, dist));
  }
  return [...seen];
}

/** Directives whose JavaScript loads with the page; `visible` and `media` wait for the visitor. */
const EAGER = new Set(["load", "idle", "only"]);

export function analyzePage(dist, file) {
  const html = readFileSync(file, "utf8");
  const path = pagePath(dist, file);
  const head = html.slice(0, html.indexOf("</head>") + 1 || html.length);

  const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attrs]) => !/type="(application\/(ld\+)?json|text\/partytown)"/.test(attrs))
    .map(([, , body]) => body);
  const external = [...html.matchAll(/<script\b[^>]*\ssrc="([^"]+)"[^>]*>/g)].map(([tag, src]) => ({ tag, src }));
  const preloads = [...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*>/g)].map(([tag]) => attr(tag, "href"));
  const islands = [...html.matchAll(/<astro-island\b[^>]*>/g)].map(([tag]) => ({
    component: attr(tag, "component-url"),
    renderer: attr(tag, "renderer-url"),
    client: attr(tag, "client") ?? "?",
  }));

  const local = (src) => (src?.startsWith("/") ? join(dist, src) : null);
  const eagerEntries = [
    ...external.map((s) => local(s.src)),
    ...preloads.map(local),
    ...islands.filter((i) => EAGER.has(i.client)).flatMap((i) => [local(i.component), local(i.renderer)]),
  ].filter(Boolean);
  const lazyEntries = islands
    .filter((i) => !EAGER.has(i.client))
    .flatMap((i) => [local(i.component), local(i.renderer)])
    .filter(Boolean);

  const eagerFiles = closure(eagerEntries, dist);
  const lazyFiles = closure(lazyEntries, dist).filter((f) => !eagerFiles.includes(f));
  const sizeOf = (files) => {
    const texts = files.map((f) => {
      try {
        return readFileSync(f, "utf8");
      } catch {
        return "";
      }
    });
    return { raw: texts.reduce((n, t) => n + Buffer.byteLength(t), 0), gzip: texts.reduce((n, t) => n + gzipSize(t), 0), texts };
  };
  const eager = sizeOf(eagerFiles);
  const lazy = sizeOf(lazyFiles);
  const inlineRaw = inline.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const inlineGzip = inline.reduce((n, t) => n + (t.length ? gzipSize(t) : 0), 0);

  const renderBlocking = [...head.matchAll(/<script\b[^>]*\ssrc="[^"]+"[^>]*>/g)].some(
    ([tag]) => !/\s(async|defer)\b/.test(tag) && !/type="module"/.test(tag),
  );
  const supabase = [...inline, ...eager.texts, ...lazy.texts].some((t) => /supabase|GoTrueClient/i.test(t));

  return {
    path,
    marketing: isMarketing(path),
    html: { raw: Buffer.byteLength(html), gzip: gzipSize(html) },
    jsOnLoad: { raw: inlineRaw + eager.raw, gzip: inlineGzip + eager.gzip, files: eagerFiles.map((f) => relative(dist, f)) },
    jsDeferred: { raw: lazy.raw, gzip: lazy.gzip, files: lazyFiles.map((f) => relative(dist, f)) },
    islands: islands.length,
    directives: [...new Set(islands.map((i) => i.client))],
    renderBlocking,
    supabase,
  };
}

export function analyzeSite(dist) {
  return htmlFiles(dist)
    .map((file) => analyzePage(dist, file))
    .sort((a, b) => a.path.localeCompare(b.path));
}
