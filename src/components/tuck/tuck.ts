/**
 * Headline punctuation set where a typesetter would put it. At display sizes the brand face's
 * comma, period, colon, semicolon and exclamation mark start 0.09 to 0.12 em right of their origin
 * (a letter's side bearing is 0.02 to 0.06 em), so "assets," reads as "assets ,". The fallback
 * face (Arial scaled to the brand's metrics, src/components/BrandFont.astro) starts them 0.06 to
 * 0.09 em in. Each such mark is wrapped in a span that BrandFont's rules pull left by the face's
 * excess; tests/e2e/typography.spec.ts measures the ink in both faces.
 */

/** A run of a headline's text; `tuck` names how far its one mark is pulled left. */
export interface TuckPart {
  text: string;
  /** The mark's kind, whose side bearing differs by face: "tall" is a colon, semicolon or exclamation mark. */
  tuck?: "comma" | "dot" | "tall";
}

const MARK: Record<string, TuckPart["tuck"]> = { ",": "comma", ".": "dot", ":": "tall", ";": "tall", "!": "tall" };

/**
 * Splits `text` into runs, each mark that ends a word (after a letter, digit or closing bracket or
 * quote, before a space, a closing quote or the end) a run of its own. Separators inside numbers
 * ("$3,995", "1.5") and the second and third dots of an ellipsis stay in the text.
 */
export function tuckPunctuation(text: string): TuckPart[] {
  const parts: TuckPart[] = [];
  let start = 0;
  for (let i = 1; i < text.length; i++) {
    const tuck = MARK[text[i]!];
    if (!tuck) continue;
    const before = text[i - 1]!;
    const after = text[i + 1];
    if (!/[\p{L}\p{N})\]"'’”]/u.test(before)) continue;
    if (after !== undefined && !/[\s"'’”)\]]/u.test(after) && !(MARK[after] && after === text[i])) continue;
    if (i > start) parts.push({ text: text.slice(start, i) });
    parts.push({ text: text[i]!, tuck });
    start = i + 1;
  }
  if (start < text.length) parts.push({ text: text.slice(start) });
  return parts;
}

/** The class of a tucked mark, styled in src/components/BrandFont.astro. */
export const tuckClass = (tuck: NonNullable<TuckPart["tuck"]>) => `tuck-${tuck}`;
