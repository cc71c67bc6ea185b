/** Reading a JWT's claims (packages/shared/jwt.ts), as the build's key check, its secret scan and the functions' start do. */
import { describe, expect, it } from "vitest";
import { claimsOf, roleOf } from "../../packages/shared/jwt.ts";

const token = (payload: string) =>
  `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(payload).toString("base64url")}.c2lnbmF0dXJlLXBhcnQ`;

describe("a JWT's claims", () => {
  it("reads an anon key as Supabase issues it (the Supabase CLI's public demo key)", () => {
    const anon =
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0";
    expect(claimsOf(anon)).toEqual({ iss: "supabase-demo", role: "anon", exp: 1983812996 });
    expect(roleOf(anon)).toBe("anon");
  });

  it("reads base64url's own characters, any padding and text beyond ASCII", () => {
    // "?>" and "~~~" put base64url's "_" and "-" in the claims part; the lengths leave 0, 2 and 1 "=" out.
    for (const name of ["?>", "~~~", "Renée Calloway", "Zoë"]) {
      const claims = { role: "authenticated", name };
      expect(claimsOf(token(JSON.stringify(claims)))).toEqual(claims);
    }
  });

  it("has none for what is not a JWT with an object of claims", () => {
    expect(claimsOf("sb_publishable_abc123")).toBeNull();
    expect(claimsOf("not.a.jwt")).toBeNull();
    expect(claimsOf(token("[1,2]"))).toBeNull();
    expect(claimsOf(token('"anon"'))).toBeNull();
    expect(claimsOf(`${token("{}")}.extra`)).toBeNull();
    expect(roleOf(token(JSON.stringify({ role: 5 })))).toBeUndefined();
    expect(roleOf(token(JSON.stringify({ role: "service_role" })))).toBe("service_role");
  });
});
