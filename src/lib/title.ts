/**
 * Every page's `<title>` ends with the brand in the same form: "<page title> | <brand>", or the
 * brand alone for a page without a title of its own. A title that already ends that way is kept.
 */
export function titleWithBrand(title: string | undefined, brand: string): string {
  const own = title?.trim();
  if (!own || own === brand) return brand;
  const suffix = ` | ${brand}`;
  return own.endsWith(suffix) ? own : `${own}${suffix}`;
}
