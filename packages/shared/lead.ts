/**
 * The consultation request the lead pages send to the `leads` function: the visitor's answers,
 * the page they asked from, the visit's first-touch attribution, and what tells a person from a
 * bot (a honeypot field people never see, and how long the form was open). Pure and
 * dependency-free, like ./checkout-request.ts: the form island (src/features/leads/) checks
 * the answers with `checkLead` as the visitor types and builds the body with `leadRequest`; the
 * function checks them again with the same rules and trusts nothing else the browser says.
 */
import { type AttributionKey, isEmail, keptAttribution } from "./checkout-request.ts";

/** The assets-under-management bands the form offers, as the business reads them in its e-mail. */
export const AUM_RANGES = ["Under $10M", "$10M to $50M", "$50M to $100M", "$100M to $250M", "Over $250M"] as const;
export type AumRange = (typeof AUM_RANGES)[number];

/** The answers, by field name (the form's `name`s and the body's keys). */
export const LEAD_FIELDS = ["name", "email", "phone", "firm", "aum", "help"] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];

/** The longest answer each field keeps: enough for any real one, and the database's limit too. */
export const FIELD_MAX: Record<LeadField, number> = {
  name: 120,
  email: 254,
  phone: 40,
  firm: 160,
  aum: 20,
  help: 2000,
};

/** The honeypot's name: an input people never see or reach, which form-filling bots fill in. */
export const HONEYPOT = "website";

/** A person takes longer than this to fill in the form; a bot that posts at once does not. */
export const MIN_FILL_MS = 3000;

/** The largest body the function reads: a full form is under 5 KB. */
export const MAX_BODY_BYTES = 16 * 1024;

/** A phone number as people write one: digits with spaces, dots, dashes, brackets, a leading + and an extension. */
const PHONE = /^\+?[\d\s().-]{7,}(?:\s*(?:x|ext\.?)\s*\d{1,6})?$/i;
/** Control characters, which no answer needs (line breaks are allowed in `help` only). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAK = /[\r\n]/;

export type Lead = Record<LeadField, string> & { aum: AumRange | "" };
export type LeadErrors = Partial<Record<LeadField, string>>;

const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** What is wrong with each answer, in words for the visitor; an empty object when nothing is. */
export function leadErrors(answers: Partial<Record<LeadField, unknown>>): LeadErrors {
  const errors: LeadErrors = {};
  const value = Object.fromEntries(LEAD_FIELDS.map((field) => [field, trimmed(answers[field])])) as Record<
    LeadField,
    string
  >;
  if (!value.name) errors.name = "Please enter your name.";
  else if (value.name.length > FIELD_MAX.name)
    errors.name = `Please shorten your name to ${FIELD_MAX.name} characters.`;
  if (!value.email || !isEmail(value.email)) errors.email = "Please enter a valid email address.";
  if (value.phone && (value.phone.length > FIELD_MAX.phone || !PHONE.test(value.phone)))
    errors.phone = "Please enter a phone number with its area code, or leave it empty.";
  if (value.firm.length > FIELD_MAX.firm) errors.firm = `Please shorten the firm name to ${FIELD_MAX.firm} characters.`;
  if (value.aum && !(AUM_RANGES as readonly string[]).includes(value.aum))
    errors.aum = "Please choose one of the listed ranges.";
  if (value.help.length > FIELD_MAX.help)
    errors.help = `Please shorten this to ${FIELD_MAX.help} characters (it is ${value.help.length}).`;
  for (const field of LEAD_FIELDS) {
    const text = value[field];
    if (!errors[field] && (CONTROL.test(text) || (field !== "help" && LINE_BREAK.test(text))))
      errors[field] = "Please remove the special characters from this answer.";
  }
  return errors;
}

/** The answers, trimmed, when every one is acceptable; otherwise the errors, field by field. */
export function checkLead(
  answers: Partial<Record<LeadField, unknown>>,
): { ok: true; lead: Lead } | { ok: false; errors: LeadErrors } {
  const errors = leadErrors(answers);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const lead = Object.fromEntries(LEAD_FIELDS.map((field) => [field, trimmed(answers[field])])) as Lead;
  lead.email = lead.email.toLowerCase();
  return { ok: true, lead };
}

/** A lead page's address: `/get-started-ai` (content/lead-pages.yaml's ids). */
export const PAGE_PATH = /^\/[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The body the form sends. */
export interface LeadRequest extends Partial<Record<LeadField, string>> {
  /** The lead page the request came from. */
  page: string;
  /** Milliseconds between the form's first showing and its sending. */
  elapsed_ms: number;
  /** The honeypot's value: empty from a person. */
  [HONEYPOT]?: string;
  attribution?: Partial<Record<AttributionKey, string>>;
}

/** The body for `answers` sent from `page`, `elapsedMs` after the form appeared, with the visit's first touch. */
export function leadRequest(
  answers: Partial<Record<LeadField | typeof HONEYPOT, string>>,
  page: string,
  elapsedMs: number,
  attribution?: Partial<Record<string, unknown>> | null,
): LeadRequest {
  const kept = keptAttribution(attribution);
  const body: LeadRequest = { page, elapsed_ms: Math.max(0, Math.round(elapsedMs)) };
  for (const field of [...LEAD_FIELDS, HONEYPOT] as const) {
    const value = answers[field];
    if (typeof value === "string") body[field] = value;
  }
  if (Object.keys(kept).length > 0) body.attribution = kept;
  return body;
}

/** What the function answers: accepted; the answers' errors (400); or an error to show, with when to try again (429). */
export interface LeadAnswer {
  ok?: true;
  error?: string;
  errors?: LeadErrors;
  /** A refusal for too many requests (429), with the seconds before another can go through. */
  code?: "rate_limited";
  retry_after?: number;
}
