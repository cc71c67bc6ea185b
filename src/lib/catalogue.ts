/** Program lookup by checkout key: trimmed and case-insensitive (docs/product.md, Business constants and limits). */
export interface HasCheckoutKey {
  checkoutKey: string;
}

export function normaliseKey(key: string): string {
  let decoded = key;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    // A malformed escape is matched as typed; it simply finds nothing.
  }
  return decoded.trim().toUpperCase();
}

export function findByCheckoutKey<T extends HasCheckoutKey>(
  programs: readonly T[],
  key: string | null | undefined,
): T | undefined {
  if (!key) return undefined;
  const wanted = normaliseKey(key);
  if (!wanted) return undefined;
  return programs.find((p) => p.checkoutKey.toUpperCase() === wanted);
}
