/**
 * The desk's pure rules (docs/operations.md, "The team and its roles"): lead and offer statuses,
 * the search filter PostgREST is sent, a page of rows, a price as typed, and CSV as a spreadsheet
 * reads it safely.
 */

export const LEAD_STATUSES = ["new", "contacted", "booked", "won", "lost"] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LEAD_STATUS_LABELS: Record<LeadStatus, string> = {
  new: "New",
  contacted: "Contacted",
  booked: "Booked",
  won: "Won",
  lost: "Lost",
};

export const isLeadStatus = (value: unknown): value is LeadStatus => LEAD_STATUSES.includes(value as LeadStatus);

/** An offer's state, as `desk_offers.status` has it (docs/coached-offers.md). */
export const OFFER_STATUSES = ["sent", "opened", "paid", "expired", "withdrawn"] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

export const OFFER_STATUS_LABELS: Record<OfferStatus, string> = {
  sent: "Sent",
  opened: "Opened",
  paid: "Paid",
  expired: "Expired",
  withdrawn: "Withdrawn",
};

export const isOfferStatus = (value: unknown): value is OfferStatus => OFFER_STATUSES.includes(value as OfferStatus);

/** An offer that can still be withdrawn: not paid, not withdrawn already. */
export const withdrawable = (status: OfferStatus) => status === "sent" || status === "opened" || status === "expired";

/**
 * A price in dollars as a person types it ("35000", "$35,000", "3,995.50") in cents; null for
 * anything else (more than two decimals, letters, nothing, nothing above zero).
 */
export function dollarsToCents(typed: string): number | null {
  const plain = typed.trim().replace(/^\$\s*/, "");
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/.test(plain)) return null;
  const [whole, fraction = ""] = plain.replace(/,/g, "").split(".");
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return Number.isSafeInteger(cents) && cents > 0 ? cents : null;
}

/** Rows per page of every desk table. */
export const PAGE_SIZE = 25;

/** The range PostgREST is asked for (`Range: from-to`, both included) for page `page` (1-based). */
export function pageRange(page: number, size = PAGE_SIZE): { from: number; to: number } {
  const from = (Math.max(1, Math.floor(page)) - 1) * size;
  return { from, to: from + size - 1 };
}

/** How many pages `total` rows fill; at least one, so an empty table is "page 1 of 1". */
export const pageCount = (total: number, size = PAGE_SIZE) => Math.max(1, Math.ceil(total / size));

/**
 * A search term as an `ilike` pattern inside PostgREST's `or=(…)`: LIKE's own wildcards (`%`, `_`)
 * and its escape (`\`) typed by the person are matched as themselves, `*` (PostgREST's wildcard)
 * surrounds the term, and the value is double-quoted so that commas, dots and parentheses in it
 * are not read as the filter's syntax (PostgREST's reserved characters, whose quoting escapes `"`
 * and `\` with a backslash). PostgREST turns every `*` into `%`, with no escape, so a typed `*`
 * becomes `_`: any one character, the asterisk among them.
 */
export function ilikeValue(term: string): string {
  const literal = term.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, "_");
  return `"*${literal.replace(/["\\]/g, (c) => `\\${c}`)}*"`;
}

/** The `or` filter that finds `term` in any of `columns`; null for an empty search. */
export function searchFilter(term: string, columns: readonly string[]): string | null {
  const trimmed = term.trim().slice(0, 100);
  if (!trimmed) return null;
  const value = ilikeValue(trimmed);
  return columns.map((column) => `${column}.ilike.${value}`).join(",");
}

/**
 * One CSV cell: quoted when it holds a comma, a quote or a line break (RFC 4180), and a value a
 * spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) made
 * text with a leading apostrophe: a lead's name is whatever a visitor typed (OWASP, CSV Injection).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV file: a header row of the columns' labels, then one row per item; CRLF line ends. */
export function toCsv<T>(
  columns: readonly { label: string; value: (row: T) => unknown }[],
  rows: readonly T[],
): string {
  const lines = [columns.map((c) => csvCell(c.label)).join(",")];
  for (const row of rows) lines.push(columns.map((c) => csvCell(c.value(row))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** Days with no activity after which a student counts as stalled ("No activity for 14 days"). */
export const STALLED_DAYS = 14;

/** The instant before which a student's last activity makes them stalled, as of `now`. */
export const stalledBefore = (now: Date) => new Date(now.getTime() - STALLED_DAYS * 86_400_000).toISOString();
