/**
 * What every service of the local stack shares: the context a handler runs with, JSON answers,
 * bounded body reading, and the API gateway's key check (Supabase's gateway refuses a request
 * without a valid `apikey` before any service sees it). Dev and test only.
 */
import type { Database } from "./db.ts";
import type { Signer, TokenClaims, Verified } from "./jwt.ts";
import type { Mailer } from "./mail.ts";

export interface StackConfig {
  /** Public origin of the stack, e.g. http://localhost:4321: the API's URL and the site's. */
  url: string;
  /** Origins a redirect (recovery link, checkout URLs) may point at; the site's own is always allowed. */
  redirectOrigins: string[];
  /** Lifetime of access tokens in seconds (Supabase: 3600). Tests make it short. */
  jwtExpiry: number;
  /** Lifetime of e-mailed links in seconds (Supabase: 3600). */
  otpExpiry: number;
  /** Sign-in attempts per e-mail address and client per window; recover requests per address per window. */
  rateLimits: { signInPerWindow: number; signInWindowSeconds: number; recoverWindowSeconds: number };
  /** Largest request body any endpoint reads, in bytes (Supabase's storage default: 50 MB). */
  maxBodyBytes: number;
}

export interface Context {
  db: Database;
  signer: Signer;
  mail: Mailer;
  config: StackConfig;
  /** Data folder (bucket files, mail, keys); absent for an in-memory stack. */
  dataDir: string;
  /** The client's address, for rate limits. */
  ip: string;
}

export type Handler = (request: Request, context: Context) => Promise<Response>;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export class BodyTooLarge extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`Request body larger than ${limit} bytes`);
    this.limit = limit;
  }
}

/** Reads the body, refusing more than `limit` bytes without buffering the rest. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) throw new BodyTooLarge(limit);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The bearer token of the request, if any. */
export function bearer(request: Request): string | undefined {
  const header = request.headers.get("authorization") ?? "";
  const match = /^bearer\s+(\S+)$/i.exec(header.trim());
  return match?.[1];
}

/**
 * The gateway's check: the request must carry a valid API key (header `apikey`, or the query
 * parameter of the same name). Answers the key's role, or the gateway's 401.
 */
export function gateway(request: Request, context: Context): { role: TokenClaims["role"] } | Response {
  const url = new URL(request.url);
  const key = request.headers.get("apikey") ?? url.searchParams.get("apikey");
  if (!key) return json({ message: "No API key found in request" }, 401);
  if (key === context.signer.anonKey) return { role: "anon" };
  if (key === context.signer.serviceKey) return { role: "service_role" };
  return json({ message: "Invalid API key" }, 401);
}

/**
 * The claims a data request runs with: the bearer token's when present (it must verify),
 * otherwise the API key's role, as PostgREST and Storage decide it.
 */
export function requestClaims(request: Request, context: Context): Verified {
  const token = bearer(request);
  if (!token) {
    const key = request.headers.get("apikey") ?? new URL(request.url).searchParams.get("apikey") ?? "";
    return context.signer.verify(key);
  }
  return context.signer.verify(token);
}

/** True when `target` is an absolute http(s) URL on the site's own origin or an allowed one. */
export function isAllowedRedirect(target: string, config: StackConfig): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const allowed = new Set([new URL(config.url).origin, ...config.redirectOrigins.map((o) => new URL(o).origin)]);
  return allowed.has(url.origin);
}
