// Writes dist/_headers (Netlify's and Cloudflare Pages' format): security headers for every
// response, and for each page a Content-Security-Policy that allows only what that page uses.
//   - Scripts: the site's own files and the SHA-256 hashes of the inline scripts the build emitted
//     into that page (read from the finished HTML, so it runs after every integration that edits
//     it), never 'unsafe-inline'; plus the scheduling provider's script on the booking page and
//     Wistia's on the page with the video.
//   - Frames: the scheduling provider's form or widget where a page embeds one, Wistia's player;
//     nothing elsewhere.
//   - Connections and images: the Supabase project only on the pages where the session lives
//     (sign-in, password pages, checkout, portal). Elsewhere, only the one address of the project
//     an element names: a form's function (`data-function-url`), or what the program pages ask
//     PostgREST of a signed-in visitor (`data-rest-url`, src/components/owner/OwnerSwitch.astro).
// What every page must have is in the rule for all paths (`/*`): no framing by anyone
// (X-Frame-Options and a policy of frame-ancestors 'none'), HSTS, nosniff, a referrer policy.
// Only that rule holds at every spelling of an address: the hosts match `_headers` on the path as
// requested, %-escapes and all, and decode it only to find the file (packages/static-host/README.md,
// "Addresses"), so `/l%6Fgin` is the sign-in page without the `/login` rule.
// Both hosts apply every rule whose path matches and join a header named twice with a comma. So a
// page's own rule names one header only, its Content-Security-Policy, which joined to the
// all-path one makes two policies, both enforced: the page's, and no framing, no plugins, no
// foreign <base>. Pages a `_redirects` splat serves (the checkout's) share one rule whose policy
// covers them all. Cloudflare Pages reads at most 100 rules of at most 2,000 characters a line:
// the build fails rather than ship a file the host would cut.
// A host may answer a page at its file's name too: Netlify serves /login.html (and /index.html,
// /index) as it serves /login, and matches `_headers` on the address as requested, so each page's
// rule is written for those addresses as well (Cloudflare Pages redirects them to the page's
// address instead, 308). A splat family covers its files already.
// The member area's pages (/portal/courses/: a page per lesson, as many as the courses have)
// would each take a rule; they take none: the all-path rule says what only a header can
// (frame-ancestors), and each page carries its own policy, made the same way, in a
// `<meta http-equiv="Content-Security-Policy">` at the top of its <head>, before any script. The
// browser enforces both, so a lesson with a video allows the video host and its neighbours do not.
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";

/** A built page: the URL path it answers and its HTML. */
export interface Page {
  route: string;
  html: string;
  /** Its file in the build, `/`-separated (`login.html`); `<route>.html` when not given. */
  file?: string;
}

/** A `_headers` rule's headers, by name. */
type Headers = Record<string, string>;

/** Where the session lives: supabase-js runs there, and no third-party script may. */
export const SESSION_PATHS = ["/login", "/forgot-password", "/reset-password", "/checkout", "/portal", "/desk"];

const WISTIA = ["https://fast.wistia.com", "https://fast.wistia.net", "https://*.wistia.com", "https://*.wistia.net"];

/**
 * The policy of every response, whatever its address, enforced beside a page's own: no site may
 * frame any page (none needs it), and what every page's own policy says of plugins and <base>.
 */
export const ALL_PATHS_POLICY = "frame-ancestors 'none'; object-src 'none'; base-uri 'self'";

/** Headers every response gets, at any spelling of its address: the `/*` rule's. */
export const COMMON_HEADERS: Headers = {
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": ALL_PATHS_POLICY,
};

/** Cloudflare Pages' limits for `_headers`. */
export const MAX_RULES = 100;
export const MAX_LINE = 2000;

const EXECUTABLE = new Set(["", "module", "text/javascript", "application/javascript"]);

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
};
const decode = (value: string): string =>
  value
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
const originOf = (url: string): string | null => {
  try {
    const parsed = new URL(decode(url));
    return /^https?:$/.test(parsed.protocol) ? parsed.origin : null;
  } catch {
    return null;
  }
};

/** `'sha256-…'` for each inline script the browser would run, in page order. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/gi)) {
    const tag = match[1] ?? "";
    if (attribute(tag, "src") !== undefined) continue;
    const type = (attribute(tag, "type") ?? "").trim().toLowerCase();
    if (!EXECUTABLE.has(type)) continue;
    hashes.push(
      `'sha256-${createHash("sha256")
        .update(match[2] ?? "", "utf8")
        .digest("base64")}'`,
    );
  }
  return [...new Set(hashes)];
}

/** The third parties a page embeds: frames and scripts of the scheduling provider, Wistia's video. */
export function embedsOf(html: string): { frames: Set<string>; scripts: Set<string>; wistia: boolean } {
  const frames = new Set<string>();
  const scripts = new Set<string>();
  for (const match of html.matchAll(/<lead-embed\b[^>]*>/gi)) {
    const src = attribute(match[0], "data-src");
    const script = attribute(match[0], "data-script");
    const frame = src && originOf(src);
    if (frame) frames.add(frame);
    const scriptOrigin = script && originOf(script);
    if (scriptOrigin) {
      scripts.add(scriptOrigin);
      // The provider's embed script opens its own frames and calls its own API.
      frames.add(scriptOrigin);
    }
  }
  for (const match of html.matchAll(/<iframe\b[^>]*>/gi)) {
    const src = attribute(match[0], "src");
    const frame = src && originOf(src);
    if (frame) frames.add(frame);
  }
  // The OS page's player, and a video facade (src/components/VideoPlaceholder.astro) with a video,
  // which opens Wistia's player frame on click.
  let wistia = /<(?:wistia-video|video-facade)\b[^>]*\sdata-media-id=/i.test(html);
  // A lesson with a video names its player's script (src/pages/portal/courses/[program]/[lesson].astro):
  // Wistia's, or the local stack's stand-in, whose own origin is then allowed to run it.
  for (const match of html.matchAll(/<[a-z][a-z0-9-]*\b[^>]*\sdata-video-player=("[^"]*"|'[^']*')/gi)) {
    const origin = originOf((match[1] ?? "").slice(1, -1));
    if (!origin) continue;
    if (
      WISTIA.some(
        (host) => host === origin || (host.includes("*") && origin.endsWith(host.slice(host.indexOf("*") + 1))),
      )
    )
      wistia = true;
    else scripts.add(origin);
  }
  return { frames, scripts, wistia };
}

/** Whether the session lives on the page at `route`. */
export const isSessionRoute = (route: string): boolean =>
  SESSION_PATHS.some((path) => route === path || route.startsWith(`${path}/`));

/**
 * The Content-Security-Policy for the pages of one rule: `pages` is a list of `{ route, html }`
 * (one page, or the pages a splat serves), `supabaseOrigin` the project's API origin.
 */
export function contentSecurityPolicy(pages: Page[], { supabaseOrigin }: { supabaseOrigin: string }): string {
  const session = pages.some((page) => isSessionRoute(page.route));
  const scripts = new Set(["'self'"]);
  const frames = new Set<string>();
  const connects = new Set(["'self'"]);
  const images = new Set(["'self'", "data:"]);
  const media = new Set(["'self'"]);
  const styles = new Set(["'self'", "'unsafe-inline'"]);
  const fonts = new Set(["'self'"]);
  const workers = new Set(["'self'"]);
  for (const { html } of pages) {
    for (const hash of inlineScriptHashes(html)) scripts.add(hash);
    // A form that posts to one of the project's functions names it (the lead pages' consultation
    // form, `data-function-url` in src/features/leads/ConsultationForm.astro), and so does an element
    // that reads one of its tables (the owner's link where a program is sold, `data-rest-url` in
    // src/components/owner/OwnerSwitch.astro): that address alone, not the whole project.
    for (const match of html.matchAll(/\sdata-(?:function|rest)-url=("[^"]*"|'[^']*')/gi)) {
      const url = URL.parse(decode((match[1] ?? "").slice(1, -1)));
      if (url && url.origin === supabaseOrigin && !url.search) connects.add(url.origin + url.pathname);
    }
    const embeds = embedsOf(html);
    for (const origin of embeds.scripts) {
      scripts.add(origin);
      connects.add(origin);
    }
    for (const origin of embeds.frames) frames.add(origin);
    if (embeds.wistia) {
      // Wistia's player: its scripts and frames, media streamed through blob: URLs, its
      // thumbnails, fonts, styles and analytics on its own hosts.
      for (const set of [scripts, frames, connects, images, media, styles, fonts])
        for (const host of WISTIA) set.add(host);
      media.add("blob:");
      workers.add("blob:");
    }
  }
  if (session && supabaseOrigin) {
    connects.add(supabaseOrigin);
    // Avatars come from the project's storage.
    images.add(supabaseOrigin);
  }
  const list = (set: Set<string>) => [...set].join(" ");
  return [
    "default-src 'self'",
    `script-src ${list(scripts)}`,
    `style-src ${list(styles)}`,
    `img-src ${list(images)}`,
    `font-src ${list(fonts)}`,
    `connect-src ${list(connects)}`,
    `media-src ${list(media)}`,
    `worker-src ${list(workers)}`,
    `frame-src ${frames.size ? list(frames) : "'none'"}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
}

/** The URL path a built HTML file answers (`portal/settings.html` -> `/portal/settings`). */
export function routeOf(file: string): string {
  const path = `/${file.split(sep).join("/")}`.replace(/\.html$/, "");
  return path.endsWith("/index") ? path.slice(0, -"/index".length) || "/" : path;
}

/**
 * The other addresses a static host may answer a page at: its file's name (`/login.html`,
 * `/index.html`), and an index file's name without `.html` (`/index`). Netlify serves all three
 * as the page itself; packages/static-host/index.ts (`Host`) answers as either host does.
 */
export function aliasesOf({ route, file }: Page): string[] {
  const path = file ? `/${file}` : route === "/" ? "/index.html" : `${route}.html`;
  const aliases = [path];
  if (path.endsWith("/index.html")) aliases.push(path.slice(0, -".html".length));
  return aliases.filter((alias) => alias !== route);
}

/** The splat prefixes (`/checkout/`) of a `_redirects` file's status 200 rewrites. */
export function splatPrefixes(redirects: string): string[] {
  const prefixes: string[] = [];
  for (const raw of redirects.split(/\r?\n/)) {
    const [from = "", , status] = raw.trim().split(/\s+/);
    if (!raw.trim().startsWith("#") && status === "200" && from.endsWith("/*")) prefixes.push(from.slice(0, -1));
  }
  return prefixes;
}

/** Where each page carries its own policy in a meta tag, under one header rule for the prefix. */
export const META_POLICY_PREFIXES = ["/portal/courses/"];

/** Whether the page at `route` carries its policy in a meta tag. */
export const hasMetaPolicy = (route: string, prefixes: string[] = META_POLICY_PREFIXES): boolean =>
  prefixes.some((prefix) => route.startsWith(prefix));

/** A page's policy, for its meta tag (frame-ancestors, which a meta tag cannot carry, is the all-path rule's). */
export function metaPolicy(page: Page, { supabaseOrigin }: { supabaseOrigin: string }): string {
  return contentSecurityPolicy([page], { supabaseOrigin });
}

/** The page's HTML with `policy` as a meta tag, first in <head> after the charset (before any script). */
export function withMetaPolicy(html: string, policy: string): string {
  const tag = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">`;
  const charset = /<meta charset="?[^">]*"?>/i.exec(html);
  if (charset)
    return html.slice(0, charset.index + charset[0].length) + tag + html.slice(charset.index + charset[0].length);
  return html.replace(/<head(\s[^>]*)?>/i, (head) => head + tag);
}

/**
 * The `_headers` file for the built `pages` (`{ route, html }`, the 404 page left out): the
 * common headers for every path, then one policy rule per page, or per splat family; the pages
 * under a meta-policy prefix take none.
 */
export function headersFile(
  pages: Page[],
  {
    supabaseOrigin,
    splats = [],
    metaPrefixes = META_POLICY_PREFIXES,
  }: { supabaseOrigin: string; splats?: string[]; metaPrefixes?: string[] },
): string {
  const rules: [path: string, headers: Headers][] = [["/*", COMMON_HEADERS]];
  const families = new Map(splats.map((prefix): [string, Page[]] => [prefix, []]));
  const single: Page[] = [];
  for (const page of [...pages].sort((a, b) => (a.route < b.route ? -1 : 1))) {
    if (hasMetaPolicy(page.route, metaPrefixes)) continue;
    const family = splats.find((prefix) => page.route.startsWith(prefix));
    if (family) families.get(family)?.push(page);
    else single.push(page);
  }
  // Only the policy: any other header here would be sent twice, joined with the all-path rule's.
  const pageHeaders = (group: Page[]): Headers => ({
    "Content-Security-Policy": contentSecurityPolicy(group, { supabaseOrigin }),
  });
  for (const page of single) {
    const headers = pageHeaders([page]);
    for (const path of [page.route, ...aliasesOf(page)]) rules.push([path, headers]);
  }
  for (const [prefix, group] of families) if (group.length) rules.push([`${prefix}*`, pageHeaders(group)]);
  if (rules.length > MAX_RULES) throw new Error(`_headers: ${rules.length} rules, over Cloudflare Pages' ${MAX_RULES}`);
  const lines = ["# Written by src/integrations/security-headers.ts at build time; do not edit."];
  for (const [path, headers] of rules) {
    lines.push(path);
    for (const [name, value] of Object.entries(headers)) {
      const line = `  ${name}: ${value}`;
      if (line.length > MAX_LINE) throw new Error(`_headers: the ${name} of ${path} is over ${MAX_LINE} characters`);
      lines.push(line);
    }
  }
  return `${lines.join("\n")}\n`;
}

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".html"))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** `supabaseUrl`: the project's API URL the browser talks to. */
export default function securityHeaders({ supabaseUrl }: { supabaseUrl: string }): AstroIntegration {
  return {
    name: "security-headers",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const supabaseOrigin = new URL(supabaseUrl).origin;
        const pages: Page[] = [];
        let metas = 0;
        for (const file of await htmlFiles(root)) {
          const route = routeOf(file);
          if (route === "/404" || route === "/500") continue;
          const page = { route, file: file.split(sep).join("/"), html: await readFile(join(root, file), "utf8") };
          pages.push(page);
          if (hasMetaPolicy(route)) {
            await writeFile(join(root, file), withMetaPolicy(page.html, metaPolicy(page, { supabaseOrigin })));
            metas += 1;
          }
        }
        const redirects = await readFile(join(root, "_redirects"), "utf8").catch(() => "");
        const text = headersFile(pages, { supabaseOrigin, splats: splatPrefixes(redirects) });
        await writeFile(join(root, "_headers"), text);
        logger.info(
          `_headers: a Content-Security-Policy for ${pages.length} pages (${metas} of them in the page's own meta tag)`,
        );
      },
    },
  };
}
