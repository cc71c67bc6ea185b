/**
 * The values a text of content/ names in braces. Copy that mentions the business writes `{brand}`,
 * filled in from content/site.yaml's `brand` when a page reads the file (src/lib/content.ts), so
 * a rename is one edit; copy around a value a page knows (a program's name, a price, a percentage)
 * names it, e.g. "Save {percent}%", and the page fills it in. The schemas say which values each
 * text may name (src/schemas/content.ts, `copy`).
 */

/** `text` with each `{name}` of `values` filled in; any other name in braces is left as written. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** One piece of a text cut at its values: words as written, or the name of a value. */
export type Part = { text: string; value?: undefined } | { value: string; text?: undefined };

/**
 * A text cut at its `{values}`, for a page that puts an element where a value goes (a link, a
 * highlighted price, a field a script fills in): "Save {percent}%" is the words "Save ", the
 * value "percent" and the words "%".
 */
export function parts(text: string): Part[] {
  return text
    .split(/\{(\w+)\}/)
    .flatMap((piece, i): Part[] => (i % 2 === 1 ? [{ value: piece }] : piece ? [{ text: piece }] : []));
}

/**
 * A content entry's data with `{brand}` filled in in every string. Only plain objects and arrays
 * are walked: a date, an image or any other value is kept as it is.
 */
export function withBrand<T>(value: T, brand: string): T {
  if (typeof value === "string") return fill(value, { brand }) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => withBrand(item, brand)) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withBrand(item, brand)])) as T;
  }
  return value;
}
