/** Where Supabase Auth may redirect to (GoTrue's IsRedirectURLValid and GetReferrer), in packages/local-stack/src/auth/redirect.ts. */
import { describe, expect, it } from "vitest";
import { globMatches, isRedirectAllowed, referrer } from "../../src/auth/redirect.ts";

describe("redirect rules", () => {
  it.each([
    [
      "same scheme, host and port as site_url",
      "https://advisor.example",
      "https://advisor.example/reset-password",
      true,
    ],
    ["a scheme downgrade", "https://advisor.example", "http://advisor.example/reset-password", false],
    ["another port on a public host", "https://advisor.example", "https://advisor.example:8443/x", false],
    ["another port on localhost (RFC 8252)", "http://localhost:4321", "http://localhost:8080/reset-password", true],
    ["localhost with another scheme", "https://localhost:4321", "http://localhost:8080/x", false],
    ["any loopback IP", "https://advisor.example", "http://127.0.0.1:9999/x", true],
    ["IPv6 loopback", "https://advisor.example", "http://[::1]:9999/x", true],
    ["a private IP", "https://advisor.example", "http://10.0.0.8/x", false],
    ["another site", "https://advisor.example", "https://evil.example/steal", false],
    ["a look-alike host", "https://advisor.example", "https://advisor.example.evil.example/", false],
    ["a javascript: URL", "https://advisor.example", "javascript:alert(1)", false],
    ["nothing", "https://advisor.example", "", false],
  ])("%s", (_name, site, target, allowed) => {
    expect(isRedirectAllowed(target, site, [])).toBe(allowed);
  });

  it("matches additional_redirect_urls as globs whose * stays within a host label or path segment", () => {
    const patterns = ["https://*.preview.example/*", "https://advisor.example/**"];
    expect(isRedirectAllowed("https://pr-12.preview.example/reset-password", "https://a.example", patterns)).toBe(true);
    expect(isRedirectAllowed("https://a.b.preview.example/reset-password", "https://a.example", patterns)).toBe(false);
    expect(isRedirectAllowed("https://pr-12.preview.example/a/b", "https://a.example", patterns)).toBe(false);
    expect(isRedirectAllowed("https://advisor.example/a/b?c=d", "https://a.example", patterns)).toBe(true);
    expect(globMatches("http://localhost:8000/*", "http://localhost:8000/path?param=1")).toBe(true);
    expect(globMatches("http://localhost:8000/*", "http://localhost:8000/path/to")).toBe(false);
  });

  it("falls back to the Referer, then to site_url", () => {
    const site = "https://advisor.example";
    expect(referrer("https://advisor.example/reset-password", null, site, [])).toBe(
      "https://advisor.example/reset-password",
    );
    expect(referrer("https://evil.example/", "https://advisor.example/forgot-password", site, [])).toBe(
      "https://advisor.example/forgot-password",
    );
    expect(referrer("https://evil.example/", "https://evil.example/", site, [])).toBe(site);
    expect(referrer(null, null, site, [])).toBe(site);
  });
});
