// Module preloads: after the build, each page that runs an external module script
// (`<script type="module" src>`, such as the portal header's) gets a `<link rel="modulepreload">` in
// its <head> for that script and every module it imports statically, transitively. Without them the
// browser finds supabase-js only after the header's script has arrived and been parsed, one round
// trip after another; with them every module downloads at once while the HTML is still parsed.
// The links go largest module first. Over HTTP/1.1 (the bench's server, any host without HTTP/2)
// the browser opens six connections to the site and queues the rest: in the order found, the
// desk's and the lessons' two extra page modules put supabase-js seventh, and it waited about
// 180 ms for a connection while small modules took them; the portal's data waits on it. Largest
// first, the longest transfer starts at once, as in any schedule that finishes soonest. Over
// HTTP/2 every request starts at once and the order costs nothing.
// Islands' modules are not preloaded: they load when the island hydrates, by design.
// A page that says `data-scripts="after-load"` on any element (the lead pages' form,
// src/features/leads/ConsultationForm.astro) gets no preloads, and its module scripts are fetched
// only once the page has loaded: each `<script type="module" src>` becomes a one-line inline module
// that imports it at the load event. Any request that starts before the largest paint counts
// against it in Lighthouse's simulation (the bench's LCP budget), and such a page needs none of
// its script to be read; it only needs it to work by the time the reader has filled something in.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";
import { init, parse } from "es-module-lexer";

const AFTER_LOAD = /\sdata-scripts="after-load"/;
const MODULE_SCRIPT = /<script\b(?=[^>]*\btype="module")[^>]*\bsrc="([^"]+)"[^>]*><\/script>/g;

/** The specifiers a module imports statically (not `import()`). */
export function staticImports(code: string): string[] {
  const [imports] = parse(code);
  return imports.flatMap((i) => (i.d === -1 && i.n ? [i.n] : []));
}

/**
 * The URLs to preload for a page: its module scripts on this site (under `base`) and what they
 * import, largest first (ties in the order found). `readModule(url)` gives a module's code, or null
 * when it is not ours.
 */
export async function preloadsFor(
  html: string,
  readModule: (url: string) => Promise<string | null>,
  base = "/",
): Promise<string[]> {
  const found: string[] = [];
  const sizes = new Map<string, number>();
  if (AFTER_LOAD.test(html)) return found;
  const queue = [...html.matchAll(MODULE_SCRIPT)].flatMap(([, src]) => (src?.startsWith(base) ? [src] : []));
  for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
    if (found.includes(url)) continue;
    const code = await readModule(url);
    if (code === null) continue;
    found.push(url);
    sizes.set(url, code.length);
    for (const specifier of staticImports(code)) {
      if (specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/")) {
        queue.push(new URL(specifier, `https://site.invalid${url}`).pathname);
      }
    }
  }
  return found.sort((a, b) => sizes.get(b)! - sizes.get(a)!);
}

/**
 * A page marked `data-scripts="after-load"` with each of its module scripts on this site (under
 * `base`) loaded at the load event instead; any other page as it is. The inline module runs before
 * the load event fires (module scripts are deferred, and the event waits for them).
 */
export function deferToLoad(html: string, base = "/"): string {
  if (!AFTER_LOAD.test(html)) return html;
  return html.replace(MODULE_SCRIPT, (tag, src: string) =>
    src.startsWith(base)
      ? `<script type="module">addEventListener("load",()=>import(${JSON.stringify(src)}),{once:true})</script>`
      : tag,
  );
}

/** The page with a modulepreload link per URL before </head>, skipping those it already has. */
export function addPreloads(html: string, urls: string[]): string {
  const missing = urls.filter((url) => !html.includes(`rel="modulepreload" href="${url}"`));
  if (!missing.length) return html;
  const links = missing.map((url) => `<link rel="modulepreload" href="${url}">`).join("");
  return html.replace("</head>", `${links}</head>`);
}

export default function modulePreload(): AstroIntegration {
  let base = "/";
  return {
    name: "module-preload",
    hooks: {
      "astro:config:done": ({ config }) => {
        base = config.base.endsWith("/") ? config.base : `${config.base}/`;
      },
      "astro:build:done": async ({ dir, logger }) => {
        await init;
        const root = fileURLToPath(dir);
        const cache = new Map<string, Promise<string | null>>();
        const readModule = (url: string) => {
          let code = cache.get(url);
          if (!code) {
            code = readFile(join(root, url.slice(base.length)), "utf8").catch(() => null);
            cache.set(url, code);
          }
          return code;
        };
        const entries = await readdir(root, { withFileTypes: true, recursive: true });
        let pages = 0;
        for (const entry of entries) {
          if (!entry.isFile() || !entry.name.endsWith(".html")) continue;
          const file = join(entry.parentPath, entry.name);
          const html = await readFile(file, "utf8");
          const urls = await preloadsFor(html, readModule, base);
          const out = deferToLoad(addPreloads(html, urls), base);
          if (out !== html) {
            await writeFile(file, out);
            pages += 1;
          }
        }
        logger.info(`module preloads added (or scripts deferred to the load event) on ${pages} page(s)`);
      },
    },
  };
}
