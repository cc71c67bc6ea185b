/**
 * Who a request runs as, decided as PostgREST 14.12 decides it: the bearer token must verify and
 * its claims pass PostgREST's checks (30 seconds of clock skew on exp, nbf and iat); a verified
 * token without a role runs as anon. Every refusal is PostgREST's JWT error or, for a role the
 * database cannot switch to, the Postgres error PostgREST would answer.
 */
import type { Database } from "../db.ts";
import { type Context, requestClaims } from "../http.ts";
import type { Claims } from "../jwt.ts";
import { jwtError, type JwtProblem, type PgError, type RestError } from "./errors.ts";

/** PostgREST's allowance for clocks that disagree, in seconds. */
export const ALLOWED_SKEW_SECONDS = 30;

/** The JWS algorithms PostgREST's JWT library knows; a header naming another cannot be parsed. */
const ALGORITHMS = new Set(["HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "EdDSA"]);

/** The token after `Bearer` (any case) as PostgREST reads it; `""` when nothing follows the word. */
export function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  const match = /^(\S*)\s*([\s\S]*)$/.exec(header)!;
  return match[1]!.toLowerCase() === "bearer" ? match[2]! : undefined;
}

const isBase64url = (part: string) => /^[A-Za-z0-9_-]*$/.test(part) && part.length % 4 !== 1;
const decodePart = (part: string): unknown => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Why PostgREST cannot parse the token at all (its parts, their encoding, the header), if it cannot. */
function parseProblem(token: string): JwtProblem | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return { kind: "parts", parts: parts.length };
  if (!parts.every(isBase64url)) return { kind: "crypto" };
  let header: unknown;
  try {
    header = decodePart(parts[0]!);
  } catch {
    return { kind: "crypto" };
  }
  const alg = isObject(header) ? header.alg : undefined;
  if (alg === "none") return { kind: "algorithm", details: "JWT is unsecured but expected 'alg' was not 'none'" };
  if (typeof alg !== "string" || !ALGORITHMS.has(alg)) return { kind: "crypto" };
  return undefined;
}

/** PostgREST's answer for a parsed token no key of the project verifies. */
function keyProblem(token: string, kid: string): JwtProblem {
  const header = decodePart(token.split(".")[0]!) as { alg: string; kid?: unknown };
  // The project's keys: its JWT secret (HS*) and one ES256 signing key, matched by kid when given.
  const suitable =
    header.alg.startsWith("HS") || (header.alg === "ES256" && (header.kid === undefined || header.kid === kid));
  return {
    kind: "key",
    details: suitable ? "None of the keys was able to decode the JWT" : "No suitable key was found to decode the JWT",
  };
}

/** A claim PostgREST reads as a number: a whole number, anything else counts as 0. */
const asSeconds = (value: number) => (Number.isSafeInteger(value) ? value : 0);

/** PostgREST's checks of exp, nbf, iat and aud, in its order; the first that fails is the answer. */
export function claimsProblem(claims: Record<string, unknown>, now: number): string | undefined {
  const time = (name: string, late: (seconds: number) => boolean, message: string) => {
    const value = claims[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number") return `The JWT '${name}' claim must be a number`;
    return late(asSeconds(value)) ? message : undefined;
  };
  const aud = claims.aud;
  const audProblem =
    aud === undefined ||
    aud === null ||
    typeof aud === "string" ||
    (Array.isArray(aud) && aud.every((a) => typeof a === "string"))
      ? undefined
      : "The JWT 'aud' claim must be a string or an array of strings";
  return (
    time("exp", (exp) => now - ALLOWED_SKEW_SECONDS > exp, "JWT expired") ??
    time("nbf", (nbf) => now + ALLOWED_SKEW_SECONDS < nbf, "JWT not yet valid") ??
    time("iat", (iat) => now + ALLOWED_SKEW_SECONDS < iat, "JWT issued at future") ??
    audProblem
  );
}

/** The claims the request runs with, or a JWT error, or the Postgres error of switching to its role. */
export async function authenticate(
  request: Request,
  context: Context,
  db: Database,
): Promise<{ claims: Claims } | { error: RestError } | { pgError: PgError; role: string }> {
  const now = Math.floor(Date.now() / 1000);
  const token = bearerToken(request.headers.get("authorization"));
  if (token === "") return { error: jwtError({ kind: "empty" }) };
  // Without a bearer token the gateway's API key is the caller (packages/local-stack/src/http.ts
  // `requestClaims`).
  const verified =
    token === undefined
      ? requestClaims(request, context, ALLOWED_SKEW_SECONDS)
      : context.signer.verify(token, { leeway: ALLOWED_SKEW_SECONDS, now });
  if (verified.ok) {
    const problem = claimsProblem(verified.claims, now);
    return problem ? { error: jwtError({ kind: "claims", message: problem }) } : { claims: verified.claims };
  }
  const raw = token ?? "";
  const unparsable = parseProblem(raw);
  if (unparsable) return { error: jwtError(unparsable) };
  if (verified.reason === "expired") return { error: jwtError({ kind: "claims", message: "JWT expired" }) };
  if (verified.reason === "signature") return { error: jwtError(keyProblem(raw, context.signer.kid)) };
  // The signer checks the payload is an object before the signature, the role after it.
  let payload: unknown;
  try {
    payload = decodePart(raw.split(".")[1]!);
  } catch {
    payload = undefined;
  }
  // An array passes the signer's object check, so its signature was good: PostgREST cannot read it as claims.
  if (Array.isArray(payload)) return { error: jwtError({ kind: "claims", message: "Parsing claims failed" }) };
  if (!isObject(payload)) return { error: jwtError(keyProblem(raw, context.signer.kid)) };
  const problem = claimsProblem(payload, now);
  if (problem) return { error: jwtError({ kind: "claims", message: problem }) };
  if (payload.role === undefined) return { claims: { ...payload, role: "anon" } as Claims };
  // PostgREST switches to the role named; a role the database lacks, or one its API role may not become, fails there.
  const role = typeof payload.role === "string" ? payload.role : JSON.stringify(payload.role);
  const exists = await db.query("select 1 from pg_roles where rolname = $1", [role]).then((r) => r.rows.length > 0);
  return {
    role,
    pgError: exists
      ? { code: "42501", message: `permission denied to set role "${role}"` }
      : { code: "22023", message: `role "${role}" does not exist` },
  };
}
