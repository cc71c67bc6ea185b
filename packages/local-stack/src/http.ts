/**
 * What every service of the local stack shares: the context a handler runs with, JSON answers,
 * bounded body reading, and the API gateway's key check (Supabase's gateway refuses a request
 * without a valid `apikey` before any service sees it). Dev and test only.
 */
import type { StackConfig } from "./config.ts";
import type { Database } from "./db.ts";
import type { Role, Signer, Verified } from "./jwt.ts";
import type { Mailer } from "./mail.ts";

/**
 * The largest request body the stack reads, in bytes: a guard of the stand-in's own against
 * runaway requests, above anything the product sends (an avatar is at most 2 MB).
 */
export const MAX_BODY_BYTES = 50 * 1024 * 1024;

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
export function gateway(request: Request, context: Context): { role: Role } | Response {
  const url = new URL(request.url);
  const key = request.headers.get("apikey") ?? url.searchParams.get("apikey");
  if (!key) return json({ message: "No API key found in request" }, 401);
  if (key === context.signer.anonKey) return { role: "anon" };
  if (key === context.signer.serviceKey) return { role: "service_role" };
  return json({ message: "Invalid API key" }, 401);
}

/**
 * The claims a data request runs with: the bearer token's when present (it must verify),
 * otherwise the API key's role, as PostgREST and Storage decide it. `leeway` is the clock skew
 * the service allows on expiry (PostgREST: 30 seconds).
 */
export function requestClaims(request: Request, context: Context, leeway = 0): Verified {
  const token =
    bearer(request) ?? request.headers.get("apikey") ?? new URL(request.url).searchParams.get("apikey") ?? "";
  return context.signer.verify(token, { leeway });
}

/** Parameters in one stable form, whatever order their keys came in: what "the same request" compares (idempotency keys). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
