// Writes dist/sitemap.xml: every built page at its canonical URL, except the 404 page and the pages
// kept out of search engines (login, the portal: `noindex`).
import { readFile, writeFile } from "node:fs/promises";
import type { AstroIntegration } from "astro";
import { publicPath } from "../lib/paths.ts";

/** The sitemap of the pages at `pathnames` on `site`, one URL each, but for `exclude` and the error pages. */
export function sitemapXml(site: string | URL, pathnames: string[], exclude: string[] = []): string {
  const urls = [...new Set(pathnames.map(publicPath))]
    .filter((path) => path !== "/404" && path !== "/500" && !exclude.includes(path))
    .sort()
    .map((path) => `  <url><loc>${new URL(path, site).href}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
}

/** Whether a built page asks search engines to leave it out. */
export function isNoindex(html: string): boolean {
  return /<meta\s+name=["']?robots["']?\s+content=["']?[^"'>]*noindex/i.test(html);
}

/** `exclude`: paths to leave out, such as aliases of another page. */
export default function sitemap({ exclude = [] }: { exclude?: string[] } = {}): AstroIntegration {
  let site: string | undefined;
  return {
    name: "sitemap-xml",
    hooks: {
      "astro:config:done": ({ config }) => {
        site = config.site;
      },
      "astro:build:done": async ({ pages, dir, logger }) => {
        if (!site) throw new Error("sitemap.xml needs `site` in astro.config.ts");
        const pathnames = pages.map((page) => page.pathname);
        const hidden: string[] = [];
        for (const pathname of pathnames) {
          const file = new URL(`${pathname.replace(/\/$/, "") || "index"}.html`, dir);
          const html = await readFile(file, "utf8").catch(() => "");
          if (isNoindex(html)) hidden.push(publicPath(pathname));
        }
        const xml = sitemapXml(site, pathnames, [...exclude, ...hidden]);
        await writeFile(new URL("sitemap.xml", dir), xml);
        logger.info(`sitemap.xml lists ${xml.split("<url>").length - 1} pages`);
      },
    },
  };
}
