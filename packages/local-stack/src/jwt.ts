/**
 * JSON Web Tokens as Supabase issues them. The API keys (anon, service_role) are HS256 tokens
 * signed with the project's JWT secret, as Supabase's legacy keys and the Supabase CLI's local
 * keys are; user access tokens are ES256 tokens from an asymmetric signing key whose public half
 * the JWKS endpoint publishes. Both kinds are verified here, with node:crypto only.
 * Dev and test only.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  verify,
} from "node:crypto";
import type { JsonWebKey, KeyObject } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makePrivateFolder, writePrivateFileSync } from "./data-folder.ts";

/** The Supabase CLI's well-known local secret: never used outside this machine. */
export const LOCAL_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long";

/** The Postgres roles a request can run as. */
export type Role = "anon" | "authenticated" | "service_role";
export const ROLES: readonly Role[] = ["anon", "authenticated", "service_role"];

/** Claims of a verified token, as PostgREST sets them for a request; `role` is the role it runs as. */
export interface Claims {
  role: Role;
  sub?: string;
  exp?: number;
  iat?: number;
  session_id?: string;
  [claim: string]: unknown;
}

export type Verified = { ok: true; claims: Claims } | { ok: false; reason: "malformed" | "signature" | "expired" };

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");
const json64 = (value: unknown) => b64url(JSON.stringify(value));

/** An HS256 token of `claims` signed with `secret`; `header` adds to `alg` (the CLI's keys carry `typ`). */
function hs256(claims: Record<string, unknown>, secret: string, header: Record<string, unknown>): string {
  const signed = `${json64({ alg: "HS256", ...header })}.${json64(claims)}`;
  return `${signed}.${createHmac("sha256", secret).update(signed).digest("base64url")}`;
}

/** An API key as the Supabase CLI makes them: HS256, issuer supabase-demo, valid for ten years from 2026. */
export function apiKey(role: "anon" | "service_role", secret = LOCAL_JWT_SECRET): string {
  return hs256({ iss: "supabase-demo", role, iat: 1_790_000_000, exp: 2_105_000_000 }, secret, { typ: "JWT" });
}

export interface Signer {
  /** kid of the ES256 key that signs user tokens. */
  kid: string;
  anonKey: string;
  serviceKey: string;
  /** Signs user claims with ES256. */
  sign(claims: Record<string, unknown>): string;
  /**
   * Signs claims with HS256 and the project's JWT secret, as Storage signs its URLs (jose's
   * SignJWT: the header is `{"alg":"HS256"}` plus `header`).
   */
  signWithSecret(claims: Record<string, unknown>, header?: Record<string, unknown>): string;
  /**
   * Checks the signature, the role and the expiry. `leeway` is the clock skew a service allows
   * past `exp`: PostgREST allows 30 seconds; Supabase Auth, Storage and the functions gateway none.
   * `role: false` accepts claims without a role (Storage's signed-URL tokens carry none).
   */
  verify(token: string, options?: { leeway?: number; now?: number; role?: boolean }): Verified;
  /** The public keys, as `/auth/v1/.well-known/jwks.json` answers them. */
  jwks(): { keys: JsonWebKey[] };
}

/**
 * Keys for one stack. With a data folder the ES256 key is kept in it, so sessions survive a
 * restart; without one it lives in memory.
 */
export function createSigner(options: { dataDir?: string; secret?: string } = {}): Signer {
  const secret = options.secret ?? LOCAL_JWT_SECRET;
  const { privateKey, kid } = loadOrCreateKey(
    options.dataDir ? join(options.dataDir, "auth-signing-key.json") : undefined,
  );
  const publicKey = createPublicKey(privateKey);
  const publicJwk = { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig", key_ops: ["verify"] };

  return {
    kid,
    anonKey: apiKey("anon", secret),
    serviceKey: apiKey("service_role", secret),
    sign(claims) {
      const header = json64({ alg: "ES256", typ: "JWT", kid });
      const payload = json64(claims);
      const signature = sign("sha256", Buffer.from(`${header}.${payload}`), {
        key: privateKey,
        dsaEncoding: "ieee-p1363",
      });
      return `${header}.${payload}.${b64url(signature)}`;
    },
    signWithSecret: (claims, header = {}) => hs256(claims, secret, header),
    verify(token, { leeway = 0, now = Math.floor(Date.now() / 1000), role = true } = {}) {
      const parts = token.split(".");
      if (parts.length !== 3) return { ok: false, reason: "malformed" };
      const [h, p, s] = parts as [string, string, string];
      let header: { alg?: string; kid?: string };
      let claims: Claims;
      try {
        header = JSON.parse(Buffer.from(h, "base64url").toString("utf8"));
        claims = JSON.parse(Buffer.from(p, "base64url").toString("utf8"));
      } catch {
        return { ok: false, reason: "malformed" };
      }
      if (!claims || typeof claims !== "object") return { ok: false, reason: "malformed" };
      const data = Buffer.from(`${h}.${p}`);
      const signature = Buffer.from(s, "base64url");
      let valid = false;
      if (header.alg === "HS256") {
        const expected = createHmac("sha256", secret).update(data).digest();
        valid = expected.length === signature.length && expected.equals(signature);
      } else if (header.alg === "ES256" && header.kid === kid) {
        valid = verify("sha256", data, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature);
      }
      if (!valid) return { ok: false, reason: "signature" };
      if (role && !ROLES.includes(claims.role)) return { ok: false, reason: "malformed" };
      // Expired once the clock is past exp (plus the leeway), as GoTrue and PostgREST compare.
      if (typeof claims.exp === "number" && now > claims.exp + leeway) return { ok: false, reason: "expired" };
      return { ok: true, claims };
    },
    jwks: () => ({ keys: [publicJwk] }),
  };
}

function loadOrCreateKey(file?: string): { privateKey: KeyObject; kid: string } {
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as { kid: string; jwk: JsonWebKey };
    return { kid: saved.kid, privateKey: createPrivateKey({ key: saved.jwk, format: "jwk" }) };
  }
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = randomUUID();
  if (file) {
    makePrivateFolder(dirname(file));
    writePrivateFileSync(file, JSON.stringify({ kid, jwk: privateKey.export({ format: "jwk" }) }));
  }
  return { privateKey, kid };
}
