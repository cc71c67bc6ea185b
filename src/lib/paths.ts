/**
 * The public path of a built page. Astro reports `/index.html`, `/dmca.html` or `dmca/` while
 * building with `build.format: "file"`; the CDN serves them at `/` and `/dmca`.
 */
export function publicPath(pathname: string): string {
  const trimmed = pathname
    .replace(/^\/+|\/+$/g, "")
    .replace(/\.html$/, "")
    .replace(/(^|\/)index$/, "");
  return `/${trimmed}`;
}
