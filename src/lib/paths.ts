/**
 * The public path of a page. With `build.format: "file"` Astro reports `/index.html` and
 * `/dmca.html` while building; the CDN serves them at `/` and `/dmca`.
 */
export function publicPath(pathname: string): string {
  return pathname.replace(/(\/index)?\.html$/, "") || "/";
}
