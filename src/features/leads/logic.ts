/**
 * The consultation form's rules (src/features/leads/consultation-form.ts), pure so that they are
 * unit tested: when a request may go (not sooner than a person could fill the form in, which the
 * function checks), what the function's answer means for the visitor, and the words for each
 * outcome. The answers' own rules are packages/shared/lead.ts, shared with the function.
 */
import { type LeadErrors, type LeadRequest, MIN_FILL_MS } from "@advisor-accelerator/shared/lead.ts";

/** What a send came to. */
export type Outcome =
  | { kind: "sent" }
  | { kind: "invalid"; errors: LeadErrors }
  /** Too many requests in a short time: how many seconds until another goes through. */
  | { kind: "limited"; retryAfter: number }
  /** The function answered with an error of its own (5xx, an unexpected answer). */
  | { kind: "failed" }
  /** No answer at all: the network, or the function unreachable. */
  | { kind: "offline" };

/** A little over the function's minimum, so a clock's rounding never makes a person look like a bot. */
const FILL_MARGIN_MS = 250;

/** How long to hold a request that is ready `elapsedMs` after the form appeared: 0 for anyone who took their time. */
export function holdFor(elapsedMs: number): number {
  return Math.max(0, MIN_FILL_MS + FILL_MARGIN_MS - elapsedMs);
}

/** The visitor-facing meaning of the function's answer (`status`, and its JSON body when it had one). */
export function outcomeOf(status: number, body: unknown, retryAfterHeader?: string | null): Outcome {
  const answer = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
  if (status >= 200 && status < 300 && answer.ok === true) return { kind: "sent" };
  if (status === 400 && answer.errors && typeof answer.errors === "object" && Object.keys(answer.errors).length > 0)
    return { kind: "invalid", errors: answer.errors as LeadErrors };
  if (status === 429) {
    const given = Number(answer.retry_after ?? retryAfterHeader);
    return { kind: "limited", retryAfter: Number.isFinite(given) && given > 0 ? Math.ceil(given) : 3600 };
  }
  return { kind: "failed" };
}

/** Sends `body` to the function at `endpoint`; never throws. */
export async function sendLead(endpoint: string, body: LeadRequest, send: typeof fetch = fetch): Promise<Outcome> {
  let response: Response;
  try {
    response = await send(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    return { kind: "offline" };
  }
  let json: unknown = null;
  try {
    // Read either way: a body left unread keeps the request open in the browser.
    json = await response.json();
  } catch {
    // Not JSON: a gateway's error page.
  }
  return outcomeOf(response.status, json, response.headers.get("retry-after"));
}

/** "in about 45 minutes", "in about an hour", "in a minute": when another request will go through. */
export function waitText(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 1) return "in a minute";
  if (minutes < 55) return `in about ${minutes} minutes`;
  if (minutes <= 90) return "in about an hour";
  return `in about ${Math.round(minutes / 60)} hours`;
}

/** What went wrong, in a sentence; the form adds the other ways to reach the team and keeps what was typed. */
export function failureText(outcome: Exclude<Outcome, { kind: "sent" } | { kind: "invalid" }>): string {
  switch (outcome.kind) {
    case "limited":
      return `We have received several requests from you in a short time, so new ones are paused. Please try again ${waitText(outcome.retryAfter)}.`;
    case "offline":
      return "Your request was not sent: we could not reach our server. Check your connection and try again.";
    case "failed":
      return "Your request was not sent: something went wrong on our side. Please try again in a minute.";
  }
}

/** The name to thank: the first word of the full name. */
export function firstName(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? "";
}

/** The visit's first touch as the script every page runs records it (src/lib/attribution.ts), or null. */
export function storedAttribution(
  key: string,
  storage: Pick<Storage, "getItem"> | null,
): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(storage?.getItem(key) ?? "null");
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
