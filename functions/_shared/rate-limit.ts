/**
 * Flood limits for the functions anyone can call (the checkout, the lead form), counted in
 * Postgres by `rate_limit_hit` (supabase/migrations/20261128000100_leads.sql): hosted function
 * instances share no memory, so a count kept in one would let a flood through the others.
 *
 * A request is counted in stages: its own limits first (per e-mail address, per client address),
 * then, only if it passed those, the limits everyone shares (the checkout's ceiling below Stripe's
 * rate limit). A caller already refused for its own address takes no place in the shared
 * allowance, so one script cannot use it up for every buyer.
 *
 * RATE_LIMIT_SCALE multiplies the allowances per client address and for everyone. Unset in
 * production; the end-to-end tests and the bench set it, because every one of their buyers comes
 * from 127.0.0.1. The limits per e-mail address stay as they are: each test buyer has their own.
 */
import { sha256Hex } from "./digest.ts";
import type { Env } from "./env.ts";
import { adminClient } from "./supabase-admin.ts";

/** An allowance: `hits` requests per fixed `window` (a Postgres interval, e.g. "1 hour"). */
export interface Limit {
  hits: number;
  window: string;
}

/**
 * One counter: what it counts, the value counted (digested before it is stored; "" for the
 * counter everyone shares), and its allowance.
 */
export interface Counter {
  kind: "email" | "address" | "everyone";
  value: string;
  limit: Limit;
}

/** An IPv4 or IPv6 address, as written in `X-Forwarded-For`. */
const IP = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?::\d{1,3}(?:\.\d{1,3}){3})?)$/i;

/**
 * The client's address: the first entry of `X-Forwarded-For` that is an IP address, which
 * Supabase's gateway sets to the address the request came from. It is the one Supabase Auth keys
 * its own rate limits on behind the same gateway (supabase/auth, internal/utilities/request.go
 * `GetIPAddress`); the local gateway (packages/local-stack/src/functions.ts) sets it the same way,
 * replacing what a caller sent. Null when there is none.
 */
export function clientAddress(request: Request): string | null {
  for (const entry of (request.headers.get("x-forwarded-for") ?? "").split(",")) {
    const address = entry.trim();
    if (address && IP.test(address)) return address.toLowerCase();
  }
  return null;
}

/** RATE_LIMIT_SCALE as a number: 1 when unset (functions/_shared/env.ts checks a value given). */
export function scaleOf(env: Env): number {
  const scale = Number(env.RATE_LIMIT_SCALE?.trim() || "1");
  return Number.isFinite(scale) && scale > 0 ? scale : 1;
}

/**
 * Counts this request to function `fn` against each stage's counters in turn, stopping at the
 * first stage that refuses it; answers the longest wait, in seconds, among the counters it
 * exceeded, or 0 when every stage allowed it. Throws when the database cannot count.
 */
export async function overLimit(env: Env, fn: string, stages: readonly (readonly Counter[])[]): Promise<number> {
  const db = adminClient(env);
  const scale = scaleOf(env);
  const hit = async ({ kind, value, limit }: Counter): Promise<number> => {
    // Keyed on digests: the table needs to tell addresses apart, not to know them.
    const key = value ? `${fn}:${kind}:${await sha256Hex(value)}` : `${fn}:${kind}`;
    const hits = kind === "email" ? limit.hits : Math.max(1, Math.round(limit.hits * scale));
    const { data, error } = await db.rpc("rate_limit_hit", {
      p_key: key,
      p_limit: hits,
      p_window: limit.window,
    });
    if (error) throw new Error(`rate_limit_hit: ${error.message}`);
    const answer = data as { allowed: boolean; retry_after: number };
    return answer.allowed ? 0 : answer.retry_after;
  };
  for (const stage of stages) {
    const wait = Math.max(0, ...(await Promise.all(stage.map(hit))));
    if (wait > 0) return wait;
  }
  return 0;
}

/** The 429 answer's body: what to show, and the wait in seconds (also in `Retry-After`). */
export function tooMany(wait: number): { error: string; code: "rate_limited"; retry_after: number } {
  return {
    error: "Too many requests in a short time. Please try again later.",
    code: "rate_limited",
    retry_after: wait,
  };
}
