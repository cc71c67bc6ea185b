/**
 * The Supabase variables as the build reads them (src/lib/supabase-url.ts): checked by name, with
 * no default, and the hosted project's only unless the local stack builds with its own.
 */
import { describe, expect, it } from "vitest";
import { apiKey } from "@advisor-accelerator/local-stack";
import { publicAnonKey, publicSupabaseUrl, supabaseProject } from "../../src/lib/supabase-url.ts";

/** An unsigned token with these claims: the checks read the role, the project's API verifies the rest. */
const jwt = (claims: object) =>
  ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", Buffer.from(JSON.stringify(claims)).toString("base64url"), "c2ln"].join(".");

const HOSTED = "https://abcdefghijklmnop.supabase.co";
const LOCAL_URL = "http://localhost:4321";
const local = { local: true };

describe("PUBLIC_SUPABASE_URL", () => {
  it("takes the hosted project's URL, and has no default", () => {
    expect(publicSupabaseUrl(HOSTED)).toBe(HOSTED);
    expect(publicSupabaseUrl(` ${HOSTED}\n`)).toBe(HOSTED);
    for (const value of [undefined, "  "]) {
      expect(() => publicSupabaseUrl(value)).toThrow(
        "PUBLIC_SUPABASE_URL must be set to the hosted project's URL (https://<project-ref>.supabase.co)",
      );
      expect(() => publicSupabaseUrl(value, local)).toThrow("PUBLIC_SUPABASE_URL must be set");
    }
  });

  it("stops the build on a malformed value, naming the variable", () => {
    for (const value of ["abcdefghijklmnop.supabase.co", "ftp://abcdefghijklmnop.supabase.co", "https://"]) {
      expect(() => publicSupabaseUrl(value, local), value).toThrow(
        `PUBLIC_SUPABASE_URL must be the project's http(s) URL, not "${value}"`,
      );
    }
  });

  it("must be a hosted https URL, unless the local stack builds the site with its own", () => {
    for (const value of [LOCAL_URL, "http://abcdefghijklmnop.supabase.co", "https://127.0.0.1:54321"]) {
      expect(() => publicSupabaseUrl(value), value).toThrow(
        `PUBLIC_SUPABASE_URL must be the hosted project's https URL, not "${value}"`,
      );
    }
    expect(publicSupabaseUrl(LOCAL_URL, local)).toBe(LOCAL_URL);
  });
});

describe("PUBLIC_SUPABASE_ANON_KEY", () => {
  const publishable = "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH";

  it("takes the project's publishable key or its anon key, and has no default", () => {
    const hosted = jwt({ iss: "supabase", ref: "abcdefghijklmnop", role: "anon" });
    expect(publicAnonKey(hosted)).toBe(hosted);
    expect(publicAnonKey(` ${publishable}\n`)).toBe(publishable);
    expect(() => publicAnonKey(undefined)).toThrow(
      "PUBLIC_SUPABASE_ANON_KEY must be set to the hosted project's publishable key (sb_publishable_…)",
    );
    expect(() => publicAnonKey(undefined, local)).toThrow("PUBLIC_SUPABASE_ANON_KEY must be set");
  });

  it("refuses a secret or service-role key, which must never reach a browser, naming the variable", () => {
    expect(() => publicAnonKey(apiKey("service_role"), local)).toThrow(
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

  it("is not the local stack's key (a Supabase CLI demo key), unless the local stack builds the site", () => {
    expect(() => publicAnonKey(apiKey("anon"))).toThrow("PUBLIC_SUPABASE_ANON_KEY is the local stack's key");
    expect(publicAnonKey(apiKey("anon"), local)).toBe(apiKey("anon"));
  });
});

describe("the build's project", () => {
  it("names every variable that is missing or wrong at once", () => {
    expect(() => supabaseProject({})).toThrow(
      /PUBLIC_SUPABASE_URL must be set[^\n]*\nPUBLIC_SUPABASE_ANON_KEY must be set/,
    );
    expect(() => supabaseProject({ PUBLIC_SUPABASE_URL: LOCAL_URL, PUBLIC_SUPABASE_ANON_KEY: apiKey("anon") })).toThrow(
      /hosted project's https URL[^\n]*\nPUBLIC_SUPABASE_ANON_KEY is the local stack's key/,
    );
    expect(
      supabaseProject({
        PUBLIC_SUPABASE_URL: HOSTED,
        PUBLIC_SUPABASE_ANON_KEY: "sb_publishable_ACJWlzQHlZjBrEguHvfOxg",
      }),
    ).toEqual({ url: HOSTED, anonKey: "sb_publishable_ACJWlzQHlZjBrEguHvfOxg" });
  });
});
