/** PUBLIC_SUPABASE_URL as the build reads it (src/lib/supabase-url.ts): checked by name. */
import { describe, expect, it } from "vitest";
import { LOCAL_SUPABASE_URL, publicSupabaseUrl } from "../../src/lib/supabase-url.ts";

describe("PUBLIC_SUPABASE_URL", () => {
  it("takes the project's URL, or the local stack's when unset or blank", () => {
    expect(publicSupabaseUrl("https://abcdefghijklmnop.supabase.co")).toBe("https://abcdefghijklmnop.supabase.co");
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
});
