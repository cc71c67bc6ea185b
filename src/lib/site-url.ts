/**
 * The site's public origin, which canonical URLs, Open Graph URLs, the sitemap and robots.txt
 * use: `url` in content/site.yaml (the business's domain), or `SITE_URL` for a preview deploy.
 * Read by astro.config.ts at build time.
 */
import { load } from "js-yaml";

export function siteUrl(siteYaml: string, override?: string): string {
  const url =
    override?.trim() ||
    (load(siteYaml, { filename: "content/site.yaml" }) as { site?: { url?: unknown } } | null)?.site?.url;
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw new Error(
      override?.trim()
        ? `SITE_URL must be an http(s) URL, not "${override}"`
        : "content/site.yaml: site.url must be an https:// URL",
    );
  }
  return new URL(url).origin;
}
