/**
 * The Supabase variables as the build reads them (src/lib/supabase-url.ts): checked by name, with
 * the local stack's values as defaults except in a production build.
 */
import { describe, expect, it } from "vitest";
import { apiKey } from "../../local/jwt.ts";
import { LOCAL_ANON_KEY, LOCAL_SUPABASE_URL, publicAnonKey, publicSupabaseUrl } from "../../src/lib/supabase-url.ts";

/** An unsigned token with these claims: the checks read the role, the project's API verifies the rest. */
const jwt = (claims: object) =>
  ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", Buffer.from(JSON.stringify(claims)).toString("base64url"), "c2ln"].join(".");

const HOSTED = "https://abcdefghijklmnop.supabase.co";
const production = { production: true };

describe("PUBLIC_SUPABASE_URL", () => {
  it("takes the project's URL, or the local stack's when unset or blank", () => {
    expect(publicSupabaseUrl(HOSTED)).toBe(HOSTED);
    expect(publicSupabaseUrl(undefined)).toBe(LOCAL_SUPABASE_URL);
    expect(publicSupabaseUrl("  ")).toBe(LOCAL_SUPABASE_URL);
  });

  it("stops the build on a malformed value, naming the variable", () => {
    for (const value of ["abcdefghijklmnop.supabase.co", "ftp://abcdefghijklmnop.supabase.co", "https://"]) {
      expect(() => publicSupabaseUrl(value), value).toThrow(
        `PUBLIC_SUPABASE_URL must be the project's http(s) URL, not "${value}"`,
      );
    }
  });

  it("has no default in a production build, and must be a hosted https URL there", () => {
    expect(publicSupabaseUrl(HOSTED, production)).toBe(HOSTED);
    expect(() => publicSupabaseUrl(undefined, production)).toThrow(
      "PUBLIC_SUPABASE_URL must be set for a production build",
    );
    for (const value of [LOCAL_SUPABASE_URL, "http://abcdefghijklmnop.supabase.co", "https://127.0.0.1:54321"]) {
      expect(() => publicSupabaseUrl(value, production), value).toThrow(
        `PUBLIC_SUPABASE_URL must be the hosted project's https URL in a production build, not "${value}"`,
      );
    }
  });
});

describe("PUBLIC_SUPABASE_ANON_KEY", () => {
  const publishable = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";

  it("takes the project's publishable key or its anon key, or the local stack's when unset", () => {
    const hosted = jwt({ iss: "supabase", ref: "abcdefghijklmnop", role: "anon" });
    expect(publicAnonKey(hosted)).toBe(hosted);
    expect(publicAnonKey(hosted, production)).toBe(hosted);
    expect(publicAnonKey(` ${publishable}\n`, production)).toBe(publishable);
    expect(publicAnonKey(undefined)).toBe(LOCAL_ANON_KEY);
  });

  it("refuses a secret or service-role key, which must never reach a browser, naming the variable", () => {
    expect(() => publicAnonKey(apiKey("service_role"))).toThrow(
      'PUBLIC_SUPABASE_ANON_KEY must be the project\'s publishable or anon key, not a key with role "service_role"',
    );
    expect(() => publicAnonKey("sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz")).toThrow(
      "PUBLIC_SUPABASE_ANON_KEY is a secret key (sb_secret_…), which must never reach a browser",
    );
  });

  it("refuses anything that is neither key", () => {
    for (const value of ["anon", "a.b.c", "sb_publishable_", "sb_publishable_abc def", "pk_live_51Habc"]) {
      expect(() => publicAnonKey(value), value).toThrow(
        "PUBLIC_SUPABASE_ANON_KEY must be the project's publishable key (sb_publishable_…) or its legacy anon key (a JWT)",
      );
    }
  });

  it("has no default in a production build, and is not the local stack's key there", () => {
    expect(() => publicAnonKey(undefined, production)).toThrow(
      "PUBLIC_SUPABASE_ANON_KEY must be set for a production build",
    );
    expect(() => publicAnonKey(LOCAL_ANON_KEY, production)).toThrow(
      "PUBLIC_SUPABASE_ANON_KEY is the local stack's key",
    );
  });
});
