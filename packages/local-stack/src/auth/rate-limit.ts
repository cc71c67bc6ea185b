/**
 * The Auth stand-in's rate limits, as GoTrue's router applies them: per client address, one
 * token bucket for `/token`, one for the calls that send e-mail or change the user (`/recover`,
 * `PUT /user`) and one for `/verify`, sized by `[auth.rate_limit]` in supabase/config.toml
 * (`token_refresh`, `sign_in_sign_ups`, `token_verifications`); over the limit is GoTrue's 429.
 * Dev and test only.
 */
import type { StackConfig } from "../config.ts";
import type { Context } from "../http.ts";
import { AuthError } from "./errors.ts";

/**
 * GoTrue's rate limiters (tollbooth): per client address, a bucket of `burst` requests that
 * refills at `perFiveMinutes` / 300 a second.
 */
class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perFiveMinutes: number;
  private readonly burst = 30;
  constructor(perFiveMinutes: number) {
    this.perFiveMinutes = perFiveMinutes;
  }
  take(key: string): boolean {
    const now = Date.now() / 1000;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * (this.perFiveMinutes / 300));
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

interface Limiters {
  token: TokenBuckets;
  otp: TokenBuckets;
  verify: TokenBuckets;
}
const limiters = new WeakMap<StackConfig, Limiters>();
export function limit(context: Context, which: keyof Limiters) {
  let found = limiters.get(context.config);
  if (!found) {
    const { rateLimit } = context.config.auth;
    found = {
      token: new TokenBuckets(rateLimit.tokenRefresh),
      otp: new TokenBuckets(rateLimit.signInSignUps),
      verify: new TokenBuckets(rateLimit.tokenVerifications),
    };
    limiters.set(context.config, found);
  }
  if (!found[which].take(context.ip)) throw new AuthError(429, "over_request_rate_limit", "Request rate limit reached");
}
