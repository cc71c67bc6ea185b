/**
 * The product's one mail client: the functions' own e-mails (functions/_shared/emails.ts) go
 * through Resend's library, the path Supabase documents for sending e-mail from Edge Functions.
 * Production sets RESEND_API_KEY and MAIL_FROM (a sender on a domain verified at Resend); the
 * local stack aims RESEND_API_URL at its Resend stand-in, which lands every message in the
 * outbox. Each send carries an idempotency key: Resend answers a repeated key with the first
 * send's result for 24 hours instead of sending again, so a retry after a lost answer, or a
 * second delivery racing the first, reaches the buyer once.
 */
import { Resend } from "resend";
import { type Env, required } from "./env.ts";

export interface Email {
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Where a reply goes, when not to MAIL_REPLY_TO (a lead's notification: the lead). */
  replyTo?: string;
  /** Text files sent with it (a cohort's calendar file), encoded as UTF-8. */
  attachments?: { filename: string; contentType: string; text: string }[];
}

/** Why a send failed; `retryable` when a later attempt may succeed (outage, rate limit). */
export class MailError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}

const clients = new Map<string, Resend>();

function client(key: string, api: string): Resend {
  const id = `${key}@${api}`;
  let resend = clients.get(id);
  if (!resend) {
    resend = new Resend(key, api ? { baseUrl: api.replace(/\/$/, "") } : undefined);
    clients.set(id, resend);
  }
  return resend;
}

/**
 * A rate-limited send (Resend allows 10 requests a second per account) tries again this many
 * times, after Resend's `retry-after` (1 s) plus up to a second of jitter, so that a burst of
 * buyers spreads out instead of colliding again; longer waits are left to the caller's retry.
 */
const RATE_LIMIT_RETRIES = 3;
const MAX_WAIT_MS = 2_000;

/**
 * Sends `email` once per `idempotencyKey`; answers the provider's message id, or null when an
 * earlier send under this key went out with other content (Resend answers 409
 * invalid_idempotent_request rather than send a second message).
 */
export async function sendEmail(env: Env, email: Email, idempotencyKey: string): Promise<string | null> {
  const { RESEND_API_KEY, MAIL_FROM } = required(env, ["RESEND_API_KEY", "MAIL_FROM"]);
  const { replyTo: own, attachments, ...message } = email;
  const replyTo = own ?? env.MAIL_REPLY_TO?.trim();
  const resend = client(RESEND_API_KEY, env.RESEND_API_URL?.trim() ?? "");
  const files = attachments?.map(({ filename, contentType, text }) => ({
    filename,
    contentType,
    // The library sends bytes as base64, as Resend's API takes them.
    content: new TextEncoder().encode(text),
  }));
  const payload = {
    from: MAIL_FROM,
    ...message,
    ...(replyTo ? { replyTo } : {}),
    ...(files?.length ? { attachments: files } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    const { data, error, headers } = await resend.emails.send(payload, { idempotencyKey });
    if (data) return data.id;
    const status = (error as { statusCode?: number | null } | null)?.statusCode ?? null;
    if (error?.name === "invalid_idempotent_request") return null;
    const message = `Resend refused the e-mail "${email.subject}": ${error?.name ?? "error"}: ${error?.message ?? "no answer"}`;
    if (status === 429 && attempt <= RATE_LIMIT_RETRIES) {
      const wait = Number(headers?.["retry-after"] ?? 1) * 1000;
      if (wait <= MAX_WAIT_MS) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 100) + Math.random() * 1000));
        continue;
      }
    }
    // No answer, a rate limit, a server error or the same key still in flight: try later.
    const retryable =
      status === null || status === 429 || status >= 500 || error?.name === "concurrent_idempotent_requests";
    throw new MailError(message, retryable);
  }
}
