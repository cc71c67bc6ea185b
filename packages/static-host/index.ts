/**
 * @advisor-accelerator/static-host: serves a built site the way the static CDN does (README.md
 * here): pretty URLs (`/mindset` -> `mindset.html`), a page's file name as Netlify or Cloudflare
 * Pages answers it (`Host`), gzip for text, long caching for hashed assets, the rewrites of the
 * build's `_redirects` file (public/_redirects), the headers of its `_headers` file (written by
 * src/integrations/security-headers.ts), and the 404 page. The local
 * stack (packages/local-stack/) serves the site with it; `scripts/serve.ts` and the bench serve it
 * alone. Dev and test only: production is the CDN itself.
 */
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, normalize, resolve } from "node:path";
import { createGzip } from "node:zlib";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".webmanifest": "application/manifest+json",
};
const COMPRESSIBLE = new Set([".html", ".css", ".js", ".mjs", ".json", ".xml", ".txt", ".svg", ".webmanifest"]);

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The hosts' own configuration files: read by the host, never served (Netlify, Cloudflare Pages). */
const HOST_FILES = new Set(["/_redirects", "/_headers"]);

/**
 * A request's address as the hosts read it: the WHATWG URL of the whole address, so dot segments
 * (`%2e` too) are resolved and `\` is `/`, %-escapes are kept as sent, and `//login` stays a path
 * (the hosts see `https://site//login`; Node's `new URL("//login", base)` would read a host).
 */
export function requestUrl(target: string): URL {
  return target.startsWith("/") ? new URL(`http://localhost${target}`) : new URL(target, "http://localhost");
}

/**
 * A path with its %-escapes decoded, `%2F` included, as both hosts decode it to find a file
 * (Cloudflare's asset server: `decodeURIComponent(pathname)`; `netlify dev`, netlify/cli's
 * utils/proxy.ts, the same); null when an escape is malformed.
 */
export function decodePath(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return null;
  }
}

/** Maps a URL path to the built file that answers it, or null. */
export async function resolveFile(root: string, pathname: string): Promise<string | null> {
  const path = decodePath(pathname);
  if (path === null) return null;
  const safe = normalize(path).replace(/^(\.\.[/\\])+/, "");
  if (HOST_FILES.has(safe)) return null;
  const base = join(root, safe);
  if (!base.startsWith(root)) return null;
  const candidates = safe.endsWith("/") ? [join(base, "index.html")] : [base, `${base}.html`, join(base, "index.html")];
  for (const file of candidates) if (await isFile(file)) return file;
  return null;
}

/** One rewrite of a `_redirects` file: `from` exact, or a prefix when it ends in `/*` (a splat). */
export interface Rewrite {
  from: string;
  to: string;
  splat: boolean;
}

/**
 * Reads a `_redirects` file (Netlify's format, which Cloudflare Pages reads too): one rule a line,
 * `from to [status]`, `#` starting a comment line. Only the forms the site ships are supported:
 * a status 200 rewrite from an exact path or a path ending in `/*`, to a path of the site. Any
 * other line is returned in `unsupported`, so the local stack says so instead of quietly serving
 * something else than the host would: a `from` with a %-escape among them, which Netlify compares
 * decoded and Cloudflare Pages as written.
 */
export function parseRedirects(text: string): { rules: Rewrite[]; unsupported: string[] } {
  const rules: Rewrite[] = [];
  const unsupported: string[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const [from = "", to = "", status, ...rest] = line.split(/\s+/);
    const splat = from.endsWith("/*");
    const prefix = splat ? from.slice(0, -1) : from;
    const supported =
      status === "200" &&
      rest.length === 0 &&
      prefix.startsWith("/") &&
      !/[*:%]/.test(prefix) &&
      to.startsWith("/") &&
      !to.startsWith("//") &&
      !/[*:?#]/.test(to);
    if (supported) rules.push({ from: prefix, to, splat });
    else unsupported.push(`line ${i + 1}: ${line}`);
  }
  return { rules, unsupported };
}

/**
 * The path a request is rewritten to, or null: the first rule that matches `pathname`, in the
 * file's order; the caller gives the path as its host compares it (`Host`). A splat matches
 * anything after its prefix, however many segments.
 */
export function rewriteOf(rules: readonly Rewrite[], pathname: string): string | null {
  for (const rule of rules) {
    if (rule.splat ? pathname.startsWith(rule.from) : pathname === rule.from) return rule.to;
  }
  return null;
}

/** One rule of a `_headers` file: an exact path, or a prefix when it ends in `*` (a splat). */
export interface HeaderRule {
  path: string;
  splat: boolean;
  headers: [string, string][];
}

/**
 * Reads a `_headers` file (Netlify's format, which Cloudflare Pages reads too): a path on a line of
 * its own, then its headers indented, `Name: value` a line; `#` starts a comment line. Paths are
 * exact or end in a `*` splat; placeholders (`:name`) and absolute URLs are returned in
 * `unsupported`, as for `_redirects`.
 */
export function parseHeaders(text: string): { rules: HeaderRule[]; unsupported: string[] } {
  const rules: HeaderRule[] = [];
  const unsupported: string[] = [];
  let current: HeaderRule | null = null;
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    if (!/^\s/.test(raw)) {
      const splat = line.endsWith("*");
      const path = splat ? line.slice(0, -1) : line;
      current = path.startsWith("/") && !/[*:\s]/.test(path) ? { path, splat, headers: [] } : null;
      if (current) rules.push(current);
      else unsupported.push(`line ${i + 1}: ${line}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (current && colon > 0) current.headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
    else if (current) unsupported.push(`line ${i + 1}: ${line}`);
  }
  return { rules, unsupported };
}

/**
 * The headers of a request's path, as requested (`requestUrl`, not decoded: `Host`): every
 * matching rule applies, in the file's order, and a header named by several is joined with ", "
 * (both hosts do so).
 */
export function headersOf(rules: readonly HeaderRule[], pathname: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!(rule.splat ? pathname.startsWith(rule.path) : pathname === rule.path)) continue;
    for (const [name, value] of rule.headers) {
      const key = name.toLowerCase();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
  }
  return headers;
}

const warned = new Set<string>();
const headerCache = new Map<string, { mtimeMs: number; rules: HeaderRule[] }>();

/** The rules of the site's `_headers` file, read again when the file changes (a rebuild). */
async function siteHeaderRules(root: string): Promise<HeaderRule[]> {
  const file = join(root, "_headers");
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(file)).mtimeMs;
  } catch {
    return [];
  }
  const cached = headerCache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.rules;
  const { rules, unsupported } = parseHeaders(await readFile(file, "utf8"));
  for (const line of unsupported) {
    if (warned.has(`_headers ${line}`)) continue;
    warned.add(`_headers ${line}`);
    console.warn(`_headers ${line}: not applied (the local static host supports exact paths and splats)`);
  }
  headerCache.set(file, { mtimeMs, rules });
  return rules;
}

/** The rewrites of the site's `_redirects` file, read anew each time (a rebuild may change it). */
async function siteRewrites(root: string): Promise<Rewrite[]> {
  let text: string;
  try {
    text = await readFile(join(root, "_redirects"), "utf8");
  } catch {
    return [];
  }
  const { rules, unsupported } = parseRedirects(text);
  for (const line of unsupported) {
    if (warned.has(line)) continue;
    warned.add(line);
    console.warn(`_redirects ${line}: not applied (the local static host supports status 200 rewrites to a path only)`);
  }
  return rules;
}

/**
 * The static hosts DEPLOY.md supports. Both read an address as `requestUrl` does, look its file up
 * decoded (`decodePath`), and match `_headers` on it as requested, %-escapes and all, so
 * `/l%6Fgin` is the sign-in page with the rules for all paths only: Cloudflare's workers-sdk, the
 * Pages asset server's handler (`generateHandler`: rules matched by `generateRulesMatcher` on
 * `new URL(request.url).pathname`, then `decodeURIComponent` for the asset lookup); Netlify's
 * edge is not open, and its CLI's `netlify dev` matches on the path as requested too
 * (utils/proxy.ts, `headersForPath`): the fewest headers, the bound this host keeps. They match
 * `_redirects` differently: Netlify on the decoded path (netlify/cli's utils/rules-proxy.ts
 * hands its redirect engine `decodeURIComponent(pathname)`), Cloudflare Pages on the path as
 * requested. And they differ where an address names a file:
 * - Netlify answers a file at its name too (`/login.html`, `/index.html`: 200), serves a file that
 *   exists before any rule (its shadowing, docs.netlify.com "Rewrites and proxies"), and sends a
 *   trailing slash to the address without it (301);
 * - Cloudflare Pages sends a page's file name to its address (`/login.html` and `/login%2Ehtml` to
 *   `/login`, `/index.html` and `/index` to `/`, a trailing slash away: 308), and applies a
 *   matching rule before any file (Cloudflare's workers-sdk, the Pages asset server's handler,
 *   `generateResponse`; its docs: "Serving Pages", Route matching).
 * Either way `_headers` is matched on the address as requested, for every answer.
 */
export type Host = "netlify" | "cloudflare";

export const HOSTS: readonly Host[] = ["netlify", "cloudflare"];

export interface StaticOptions {
  /** Which host to answer as; Netlify unless said. */
  host?: Host;
}

/** What answers a request: a file (with its status), a redirect, or the 404 page. */
type Answer = { file: string; status: 200 | 404 } | { location: string; status: 301 | 308 } | { status: 404 };

/** Netlify: a trailing slash away, then a file that exists, then a rewrite's target (matched decoded). */
async function netlifyAnswer(root: string, url: URL): Promise<Answer> {
  // Canonical URLs have no trailing slash; redirect like the CDN's pretty-URL rule does.
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) {
    return { location: location(url.pathname.slice(0, -1) + url.search), status: 301 };
  }
  const file = await resolveFile(root, url.pathname);
  if (file) return { file, status: 200 };
  const decoded = decodePath(url.pathname);
  const target = decoded === null ? null : rewriteOf(await siteRewrites(root), decoded);
  const rewritten = target && (await resolveFile(root, target));
  return rewritten ? { file: rewritten, status: 200 } : { status: 404 };
}

/** The file at a decoded URL path, exactly, or null (the host's asset lookup). */
async function assetAt(root: string, path: string): Promise<string | null> {
  const safe = normalize(path).replace(/^(\.\.[/\\])+/, "");
  if (HOST_FILES.has(safe)) return null;
  const file = join(root, safe);
  return file.startsWith(root) && (await isFile(file)) ? file : null;
}

/**
 * A redirect's address as the host sends it: leading slashes and their look-alikes made one, so
 * `/%2F%2Fevil.example/index` never leads off the site (Cloudflare's responses'
 * `stripLeadingDoubleSlashes`; Netlify's trailing-slash redirect of `//evil.example/` likewise
 * stays here), and what a header cannot carry percent-encoded.
 */
function location(path: string): string {
  return path
    .replace(/^(\/|%2F|%2f|%5C|%5c|%09|\s|\\)+(.*)/, "/$2")
    .replace(/[^\x21-\x7e]+/g, (run) => encodeURIComponent(run));
}

/** Cloudflare Pages' asset server (its handler's `generateResponse`), for the rules this host takes. */
async function cloudflareAnswer(root: string, url: URL): Promise<Answer> {
  const { search } = url;
  const rules = await siteRewrites(root);
  // An exact rule first, then the first splat in the file's order (its static and dynamic rules).
  const exact = rules.find((rule) => !rule.splat && rule.from === url.pathname);
  let pathname = exact?.to ?? rewriteOf(rules, url.pathname) ?? url.pathname;
  // Decoded for the asset lookup only; kept as it came when malformed, as the host does.
  pathname = decodePath(pathname) ?? pathname;
  const redirect = (path: string): Answer => ({ location: location(`${path}${search}`), status: 308 });
  let file: string | null;
  if (pathname.endsWith("/")) {
    if ((file = await assetAt(root, `${pathname}index.html`))) return { file, status: 200 };
    if (pathname.endsWith("/index/")) return redirect(`/${pathname.slice(1, -"index/".length)}`);
    if (await assetAt(root, pathname.replace(/\/$/, ".html"))) return redirect(`/${pathname.slice(1, -1)}`);
    return { status: 404 };
  }
  if ((file = await assetAt(root, pathname))) {
    if (!pathname.endsWith(".html")) return { file, status: 200 };
    const extensionless = pathname.slice(0, -".html".length);
    if (extensionless.endsWith("/index")) return redirect(extensionless.replace(/\/index$/, "/"));
    if (extensionless === "/" || (await assetAt(root, extensionless))) return { file, status: 200 };
    return redirect(extensionless);
  }
  if (pathname.endsWith("/index")) return redirect(`/${pathname.slice(1, -"index".length)}`);
  if ((file = await assetAt(root, `${pathname}.html`))) return { file, status: 200 };
  if (await assetAt(root, `${pathname}/index.html`)) return redirect(`${pathname}/`);
  return { status: 404 };
}

/**
 * A request handler for the static site in `dir`, answering as `host` does (Netlify unless said):
 * a file, a rewrite of `_redirects` keeping the address, a redirect to a page's address, or the
 * site's 404 page; with the headers of `_headers` for the address as requested.
 */
export function staticHandler(dir: string, { host = "netlify" }: StaticOptions = {}) {
  const root = resolve(dir);
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestUrl(req.url ?? "/");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    // The build's own headers (src/integrations/security-headers.ts), matched on the path as
    // requested, not decoded, as the hosts match them (`Host`).
    const siteHeaders = headersOf(await siteHeaderRules(root), url.pathname);
    const answer = host === "cloudflare" ? await cloudflareAnswer(root, url) : await netlifyAnswer(root, url);
    if ("location" in answer) {
      // Cloudflare's answers all carry the rules' headers; Netlify's redirect only says where.
      res.writeHead(answer.status, { location: answer.location, ...(host === "cloudflare" ? siteHeaders : {}) }).end();
      return;
    }
    const file = "file" in answer ? answer.file : join(root, "404.html");
    if (!("file" in answer) && !(await isFile(file))) {
      // No 404 page (a build still running, or none): a plain answer rather than a crash.
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" }).end("Not found");
      return;
    }
    const ext = extname(file);
    const headers: Record<string, string> = {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      "cache-control": url.pathname.startsWith("/_astro/")
        ? "public, max-age=31536000, immutable"
        : "public, max-age=0, must-revalidate",
      vary: "accept-encoding",
      ...siteHeaders,
    };
    const gzip = COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    if (gzip) headers["content-encoding"] = "gzip";
    res.writeHead(answer.status, headers);
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    // A file removed between the lookup and the read (a rebuild) ends the answer, not the server.
    stream.on("error", () => res.destroy());
    (gzip ? stream.pipe(createGzip()) : stream).pipe(res);
  };
}
