/**
 * `leads`: the lead pages' own consultation form (src/features/leads/), for when no scheduling
 * provider is configured. POST JSON (packages/shared/lead.ts): it keeps the request with the
 * visit's first touch (public.leads), then e-mails the business (functions/_shared/emails.ts,
 * reply-to the lead) and confirms to the visitor. The lead is kept first: a mail outage leaves its
 * e-mails owed on its row, the visitor is answered as usual, and a later request sends them
 * (claim_lead_notifications, claim_lead_confirmations).
 *
 * What it refuses, and how: a post another website's page could make its visitors send (403 for
 * another origin, 415 for anything but JSON, which makes the CORS preflight the gate:
 * functions/_shared/cors.ts `crossSiteRefusal`); a body over 16 KB (413) before parsing; answers that fail the form's
 * rules (400, field by field); a flood, per e-mail address, per client address and for everyone together, counted in
 * Postgres (rate_limit_hit: hosted instances share no memory) with 429 and Retry-After, nothing
 * stored (functions/_shared/rate-limit.ts). A bot (the honeypot filled, or the form sent sooner than a person could) is answered as
 * if accepted, and nothing is stored or sent: a bot told nothing learns nothing. A form that
 * e-mails any address typed into it is a spammer's tool, so the visitor's confirmation goes only
 * for a lead kept past every check above, once (its row and the provider's idempotency key), and
 * says nothing they typed but their first name (`leadConfirmationEmail`).
 *
 * No JWT (`verify_jwt = false`): visitors have no account, and its checks are its gate. CORS for
 * the site's origins. Runs under Node (local stack, tests) and Deno (Supabase Edge, ./index.ts).
 */
import { BUSINESS_EMAIL } from "../_shared/catalogue.ts";
import { ATTRIBUTION_KEYS, type AttributionKey, keptAttribution } from "../../packages/shared/checkout-request.ts";
import { crossSiteRefusal, parseOrigins, preflight, withCors } from "../_shared/cors.ts";
import { readJson } from "../_shared/body.ts";
import { leadConfirmationEmail, leadNotificationEmail } from "../_shared/emails.ts";
import { type Env, type FunctionVariable, json } from "../_shared/env.ts";
import {
  checkLead,
  HONEYPOT,
  type LeadAnswer,
  MAX_BODY_BYTES,
  MIN_FILL_MS,
  PAGE_PATH,
} from "../../packages/shared/lead.ts";
import { sendEmail } from "../_shared/mail.ts";
import { clientAddress, type Limit, overLimit, tooMany } from "../_shared/rate-limit.ts";
import { adminClient } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "ALLOWED_ORIGINS",
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "RESEND_API_KEY",
  "RESEND_API_URL",
  "MAIL_FROM",
  "RATE_LIMIT_SCALE",
] as const satisfies readonly FunctionVariable[];

/**
 * How many requests go through per window. Per e-mail address: a person who asks three times in
 * an hour has been heard. Per client address: an office or a conference network shares one, so
 * it allows ten, and still stops a script from filling the table. For everyone together: each lead
 * is an e-mail from the account that also sends buyers their set-password links, so a flood from
 * many addresses must not spend its sending limits or reputation; a hundred requests an hour is
 * several times the busiest launch hour the business expects, and is counted only for requests
 * their own limits let through.
 */
export const LIMITS = {
  email: { hits: 3, window: "1 hour" },
  address: { hits: 10, window: "1 hour" },
  everyone: { hits: 100, window: "1 hour" },
} as const satisfies Record<string, Limit>;

/** Earlier leads whose notification (or confirmation) is owed, sent after a new lead's own went through. */
const CATCH_UP = 3;

const METHODS = "POST, OPTIONS";

/** A row of public.leads, as the database answers it. */
interface LeadRow extends Record<AttributionKey, string | null> {
  id: string;
  created_at: string;
  name: string;
  email: string;
  phone: string | null;
  firm: string | null;
  aum: string | null;
  help: string | null;
  page: string;
}

/** A sign of a bot: the honeypot filled, or the form sent sooner than a person fills it in (or without saying when). */
function looksAutomated(body: Record<string, unknown>): boolean {
  const trap = body[HONEYPOT];
  if (trap !== undefined && trap !== "" && trap !== null) return true;
  const elapsed = body.elapsed_ms;
  return typeof elapsed !== "number" || !Number.isFinite(elapsed) || elapsed < MIN_FILL_MS;
}

/**
 * A lead's two e-mails, the business's notification and the visitor's confirmation: what each
 * says, its idempotency key at the provider, and the functions that claim it and record it on the
 * lead's row (supabase/migrations/20261128000100_leads.sql, 20261203000100_lead_confirmation.sql).
 */
const MAILS = {
  notification: {
    write: (row: LeadRow) =>
      leadNotificationEmail(BUSINESS_EMAIL, {
        name: row.name,
        email: row.email,
        phone: row.phone,
        firm: row.firm,
        aum: row.aum,
        help: row.help,
        page: row.page,
        createdAt: new Date(row.created_at).toISOString(),
        attribution: Object.fromEntries(ATTRIBUTION_KEYS.map((key) => [key, row[key]])),
      }),
    key: (id: string) => `lead-${id}`,
    claim: "claim_lead_notifications",
    finish: "finish_lead_notification",
  },
  confirmation: {
    write: (row: LeadRow) => leadConfirmationEmail(row.email, row.name, BUSINESS_EMAIL),
    key: (id: string) => `lead-confirmation-${id}`,
    claim: "claim_lead_confirmations",
    finish: "finish_lead_confirmation",
  },
} as const;
type LeadMail = keyof typeof MAILS;

/** Sends `row`'s e-mail of kind `kind` and records the outcome on it; true when it went. */
async function deliver(env: Env, kind: LeadMail, row: LeadRow): Promise<boolean> {
  const mail = MAILS[kind];
  let providerId: string | null = null;
  let failure: string | null = null;
  try {
    providerId = await sendEmail(env, mail.write(row), mail.key(row.id));
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    console.error(`leads: the ${kind} of lead ${row.id} was not sent:`, failure);
  }
  const { error } = await adminClient(env).rpc(mail.finish, {
    p_id: row.id,
    p_provider_id: providerId,
    p_error: failure,
  });
  if (error) console.error(`leads: the ${kind} of lead ${row.id} could not be recorded:`, error.message);
  return failure === null;
}

/** After a send went through: the e-mails of kind `kind` an outage left owed, a few at a time. */
async function catchUp(env: Env, kind: LeadMail): Promise<void> {
  const { data, error } = await adminClient(env).rpc(MAILS[kind].claim, { p_limit: CATCH_UP });
  if (error) {
    console.error(`leads: owed ${kind}s could not be claimed:`, error.message);
    return;
  }
  for (const row of (data ?? []) as LeadRow[]) if (!(await deliver(env, kind, row))) return;
}

export default async function handler(request: Request, env: Env): Promise<Response> {
  const origins = parseOrigins(env.ALLOWED_ORIGINS);
  const early = preflight(request, origins, METHODS);
  if (early) return early;
  const answer = (body: LeadAnswer, status = 200, headers: Record<string, string> = {}) =>
    withCors(request, json(body, status, { "cache-control": "no-store", ...headers }), origins, METHODS);
  if (request.method !== "POST") return answer({ error: "Method not allowed: use POST." }, 405, { allow: METHODS });
  const foreign = crossSiteRefusal(request, origins);
  if (foreign) return answer({ error: foreign.error }, foreign.status);

  const read = await readJson(request, MAX_BODY_BYTES);
  if (!read.ok) return answer({ error: read.error }, read.status);
  const { body } = read;
  if (!body || typeof body !== "object" || Array.isArray(body))
    return answer({ error: "The request body must be a JSON object." }, 400);
  const input = body as Record<string, unknown>;
  // As if accepted: nothing stored, nothing sent.
  if (looksAutomated(input)) return answer({ ok: true });

  const page = typeof input.page === "string" && input.page.length <= 100 ? input.page : "";
  if (!PAGE_PATH.test(page)) return answer({ error: "page must be the lead page's path, like /get-started." }, 400);
  const checked = checkLead(input);
  if (!checked.ok) return answer({ error: "Please correct the highlighted answers.", errors: checked.errors }, 400);
  const { lead } = checked;

  let row: LeadRow;
  try {
    const address = clientAddress(request);
    const wait = await overLimit(env, "leads", [
      [
        { kind: "email", value: lead.email, limit: LIMITS.email },
        ...(address ? [{ kind: "address", value: address, limit: LIMITS.address } as const] : []),
      ],
      [{ kind: "everyone", value: "", limit: LIMITS.everyone }],
    ]);
    if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });
    const claimed = new Date().toISOString();
    const { data, error } = await adminClient(env)
      .from("leads")
      .insert({
        name: lead.name,
        email: lead.email,
        phone: lead.phone || null,
        firm: lead.firm || null,
        aum: lead.aum || null,
        help: lead.help || null,
        page,
        ...keptAttribution(input.attribution),
        // This request sends its notification and its confirmation itself: claimed from the start.
        notify_attempts: 1,
        notify_claimed_at: claimed,
        confirm_status: "pending",
        confirm_attempts: 1,
        confirm_claimed_at: claimed,
      })
      .select("id, created_at, name, email, phone, firm, aum, help, page, " + ATTRIBUTION_KEYS.join(", "))
      .single();
    if (error) throw new Error(`insert: ${error.message}`);
    row = data as unknown as LeadRow;
  } catch (error) {
    console.error("leads: the request could not be stored:", error);
    return answer({ error: "Your request could not be saved just now. Please try again in a minute." }, 503);
  }

  // Kept: from here on the visitor is told it went through, whatever the mail does. The business
  // first, then the visitor; each kind's catch-up follows only its own send, which shows mail works.
  const notified = await deliver(env, "notification", row);
  const confirmed = await deliver(env, "confirmation", row);
  const owed = (kind: LeadMail) =>
    catchUp(env, kind).catch((error: unknown) => console.error(`leads: catch-up of ${kind}s:`, error));
  if (notified) await owed("notification");
  if (confirmed) await owed("confirmation");
  return answer({ ok: true });
}
