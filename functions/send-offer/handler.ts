/**
 * `send-offer`: an admin, on the desk, sends an applicant a coached offer (docs/coached-offers.md).
 * POST `{ lead, offer, cohortStart?, priceCents?, priceReason?, expiresInDays? }` with the admin's
 * access token (supabase-js `functions.invoke`; the gateway checks the JWT, `verify_jwt = true` in
 * supabase/config.toml). Whether the caller is an admin is asked of the database as the caller
 * (`is_staff('admin')` under their token), so the rule is the desk's own.
 *
 * The request is checked against the catalogue on the business's day (functions/_shared/offers.ts
 * `prepareOffer`); the applicant is the lead's name and e-mail as the database has them. The offer
 * is stored with its link's SHA-256 only, then e-mailed with the link itself (`offerEmail`), which
 * exists nowhere else. If the e-mail cannot go, the offer is taken back (its row deleted) and the
 * admin told to try again: an offer stored but never received would show "sent" on the desk while
 * nobody holds its link.
 *
 * Answers 201 `{ id, status: "sent", expires_at }`; 400 `{ error, field }` for what the catalogue
 * refuses; 401 without a session; 403 for anyone but an admin; 404 for a lead that is not there;
 * 503 when the database or the mail could not be reached. CORS for the site's origins. Runs under
 * Node (local stack, tests) and Deno (Supabase Edge, ./index.ts).
 */
import { dayIn } from "../../packages/shared/cohort.ts";
import { readJson } from "../_shared/body.ts";
import { BUSINESS_EMAIL, CATALOGUE, COACHED_OFFERS, TIME_ZONE } from "../_shared/catalogue.ts";
import { jsonPost } from "../_shared/cors.ts";
import { offerEmail } from "../_shared/emails.ts";
import { type Env, type FunctionVariable, required } from "../_shared/env.ts";
import { sendEmail } from "../_shared/mail.ts";
import { newOfferToken, OfferError, type OfferRequest, offerTokenHash, prepareOffer } from "../_shared/offers.ts";
import { adminClient, bearerToken, callerClient } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "SUPABASE_URL",
  "SUPABASE_ANON_KEY",
  "SUPABASE_SERVICE_ROLE_KEY",
  "ALLOWED_ORIGINS",
  "SITE_URL",
  "RESEND_API_KEY",
  "RESEND_API_URL",
  "MAIL_FROM",
  "ALLOW_SAMPLE_CONTENT",
] as const satisfies readonly FunctionVariable[];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The optional whole numbers and texts of a request, as JSON carries them; anything else is refused by name. */
function requestOf(body: Record<string, unknown>): OfferRequest | OfferError {
  const text = (field: string) => {
    const value = body[field];
    if (value === undefined || value === null || typeof value === "string") return value ?? null;
    return new OfferError(`${field} must be text.`, field);
  };
  const whole = (field: string) => {
    const value = body[field];
    if (value === undefined || value === null || value === "") return null;
    if (typeof value === "number" && Number.isInteger(value)) return value;
    return new OfferError(`${field} must be a whole number.`, field);
  };
  const offer = text("offer");
  const cohortStart = text("cohortStart");
  const priceReason = text("priceReason");
  const priceCents = whole("priceCents");
  const expiresInDays = whole("expiresInDays");
  for (const value of [offer, cohortStart, priceReason, priceCents, expiresInDays]) {
    if (value instanceof OfferError) return value;
  }
  return {
    offer: (offer as string | null) ?? "",
    cohortStart: cohortStart as string | null,
    priceCents: priceCents as number | null,
    priceReason: priceReason as string | null,
    expiresInDays: expiresInDays as number | null,
  };
}

export default async function handler(request: Request, env: Env): Promise<Response> {
  const start = jsonPost(request, env.ALLOWED_ORIGINS);
  if (start.done) return start.done;
  const { answer } = start;

  const token = bearerToken(request);
  const read = await readJson(request, 8192);
  if (!read.ok) return answer({ error: read.error }, read.status);
  const body = read.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return answer({ error: "Send the offer as a JSON object." }, 400);
  }
  const fields = body as Record<string, unknown>;
  if (typeof fields.lead !== "string" || !UUID.test(fields.lead)) {
    return answer({ error: "lead must be the id of a consultation request.", field: "lead" }, 400);
  }
  const asked = requestOf(fields);
  if (asked instanceof OfferError) return answer({ error: asked.message, field: asked.field }, 400);

  try {
    const admin = adminClient(env);
    const { SITE_URL } = required(env, ["SITE_URL"]);
    // As the caller: the desk's own rule says whether they are an admin.
    const caller = callerClient(env, token);
    const [{ data: who, error: unknown }, { data: isAdmin, error: refused }] = await Promise.all([
      admin.auth.getUser(token),
      caller.rpc("is_staff", { p_role: "admin" }),
    ]);
    if (unknown || !who.user) return answer({ error: "Sign in to send an offer." }, 401);
    if (refused) throw new Error(`is_staff: ${refused.message}`);
    if (isAdmin !== true) return answer({ error: "Only the team's admins send offers." }, 403);

    const lead = await admin.from("leads").select("id, name, email").eq("id", fields.lead).maybeSingle();
    if (lead.error) throw new Error(`leads: ${lead.error.message}`);
    if (!lead.data) return answer({ error: "That consultation request is not there any more.", field: "lead" }, 404);

    const now = new Date();
    let prepared;
    try {
      prepared = prepareOffer(
        asked,
        { offers: COACHED_OFFERS, products: CATALOGUE },
        dayIn(TIME_ZONE, now),
        now,
        env.ALLOW_SAMPLE_CONTENT === "1",
      );
    } catch (error) {
      if (error instanceof OfferError) return answer({ error: error.message, field: error.field }, 400);
      throw error;
    }

    const link = newOfferToken();
    const stored = await admin
      .from("coached_offers")
      .insert({
        ...prepared,
        lead_id: lead.data.id,
        name: lead.data.name,
        email: lead.data.email,
        token_hash: await offerTokenHash(link),
        created_at: now.toISOString(),
        created_by: who.user.id,
      })
      .select("id, expires_at")
      .single();
    if (stored.error) throw new Error(`coached_offers: ${stored.error.message}`);

    const offer = COACHED_OFFERS.find((o) => o.id === prepared.offer_key)!;
    const email = offerEmail(
      lead.data.email,
      {
        name: lead.data.name,
        program: { name: offer.name, includes: offer.includes },
        priceCents: prepared.price_cents,
        payment: prepared.payment,
        cohortStart: prepared.cohort_start,
        url: new URL(`/offer/${link}`, SITE_URL).href,
        expiresAt: new Date(prepared.expires_at),
        timeZone: TIME_ZONE,
      },
      BUSINESS_EMAIL,
    );
    try {
      await sendEmail(env, email, `offer:${stored.data.id}`);
    } catch (error) {
      // Nobody holds the link: take the offer back, so the desk does not show it as sent.
      const removed = await admin.from("coached_offers").delete().eq("id", stored.data.id);
      if (removed.error) console.error("send-offer: an unsent offer could not be removed:", removed.error.message);
      console.error("send-offer: the e-mail failed:", error);
      return answer({ error: "The offer's e-mail could not be sent, so nothing was sent. Please try again." }, 503);
    }
    return answer({ id: stored.data.id, status: "sent", expires_at: stored.data.expires_at }, 201);
  } catch (error) {
    console.error("send-offer failed:", error);
    return answer({ error: "The offer could not be sent. Please try again." }, 503);
  }
}
