/**
 * Lead attribution: the UTM parameters and referrer of a visitor's first landing are kept for
 * the visit and passed on to the consultation form and booking widget, so the business knows
 * which page and campaign produced each lead.
 */

export const UTM_KEYS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export const ATTRIBUTION_STORAGE_KEY = "aa:attribution";

export type Attribution = Partial<Record<(typeof UTM_KEYS)[number] | "referrer" | "landing_page", string>>;

/** What the first landing of a visit says; later pages of the same visit keep the first. */
export function firstTouch(existing: Attribution | null, landing: URL, referrer: string): Attribution {
  if (existing) return existing;
  const found: Attribution = { landing_page: landing.pathname };
  for (const key of UTM_KEYS) {
    const value = landing.searchParams.get(key)?.trim();
    if (value) found[key] = value.slice(0, 200);
  }
  try {
    const from = new URL(referrer);
    // Our own pages are not a source.
    if (from.host !== landing.host) found.referrer = from.origin + from.pathname;
  } catch {
    // No referrer, or not a URL: a direct visit.
  }
  return found;
}

/** The embed URL with the visit's attribution appended; parameters already on the URL win. */
export function withAttribution(embedUrl: string, attribution: Attribution | null): string {
  const url = new URL(embedUrl);
  for (const [key, value] of Object.entries(attribution ?? {})) {
    if (value && !url.searchParams.has(key)) url.searchParams.set(key, value);
  }
  return url.href;
}

export function parseStored(raw: string | null): Attribution | null {
  if (!raw) return null;
  try {
    const value: unknown = JSON.parse(raw);
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === "string")) as Attribution;
  } catch {
    return null;
  }
}

/** Browser side: records the first touch of this visit in sessionStorage and returns it. */
export function recordVisit(): Attribution | null {
  try {
    const stored = parseStored(sessionStorage.getItem(ATTRIBUTION_STORAGE_KEY));
    const current = firstTouch(stored, new URL(location.href), document.referrer);
    if (!stored) sessionStorage.setItem(ATTRIBUTION_STORAGE_KEY, JSON.stringify(current));
    return current;
  } catch {
    // Storage blocked: attribute from this page alone.
    return firstTouch(null, new URL(location.href), document.referrer);
  }
}
