/** The local stack's tokens: the keys the build ships, and what verification refuses. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiKey, createSigner } from "../../local/jwt.ts";
import { LOCAL_ANON_KEY, publicAnonKey } from "../../src/lib/supabase-url.ts";

describe("local JWTs", () => {
  it("builds the site with the local stack's anon key by default", () => {
    expect(publicAnonKey(undefined)).toBe(apiKey("anon"));
    expect(createSigner().verify(LOCAL_ANON_KEY)).toMatchObject({ ok: true, claims: { role: "anon" } });
    const example = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
    expect(/^PUBLIC_SUPABASE_ANON_KEY=(.*)$/m.exec(example)?.[1]).toBe(apiKey("anon"));
  });

  it("verifies its own user tokens and refuses tampered, foreign, expired and malformed ones", () => {
    const signer = createSigner();
    const now = Math.floor(Date.now() / 1000);
    const token = signer.sign({ sub: "u1", role: "authenticated", exp: now + 60 });
    expect(signer.verify(token)).toMatchObject({ ok: true, claims: { sub: "u1", role: "authenticated" } });

    const [h, , s] = token.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ sub: "u2", role: "service_role", exp: now + 60 })).toString(
      "base64url",
    );
    expect(signer.verify(`${h}.${forgedPayload}.${s}`)).toEqual({ ok: false, reason: "signature" });
    expect(createSigner().verify(token)).toEqual({ ok: false, reason: "signature" });
    expect(signer.verify(signer.sign({ sub: "u1", role: "authenticated", exp: now - 1 }))).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(signer.verify(signer.sign({ sub: "u1", role: "postgres", exp: now + 60 }))).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(signer.verify("not.a.jwt")).toEqual({ ok: false, reason: "malformed" });
    expect(signer.verify(apiKey("service_role", "another-secret-of-at-least-32-characters"))).toEqual({
      ok: false,
      reason: "signature",
    });
  });

  it("publishes the verifying key as a JWKS without its private part", () => {
    const signer = createSigner();
    const { keys } = signer.jwks();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", kid: signer.kid });
    expect(keys[0]).not.toHaveProperty("d");
  });
});
