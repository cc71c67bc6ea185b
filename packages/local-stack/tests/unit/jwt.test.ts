/** The local stack's tokens: the keys the build ships, and what verification refuses. */
import { describe, expect, it } from "vitest";
import { apiKey, createSigner } from "../../src/jwt.ts";

describe("local JWTs", () => {
  it("issues the anon key the stack builds the site with (packages/local-stack/src/site.ts), which it accepts", () => {
    expect(createSigner().anonKey).toBe(apiKey("anon"));
    expect(createSigner().verify(apiKey("anon"))).toMatchObject({ ok: true, claims: { role: "anon" } });
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
