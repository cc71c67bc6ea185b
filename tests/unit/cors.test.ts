/** CORS for the functions the site calls (functions/_shared/cors.ts): the site's origins only. */
import { describe, expect, it } from "vitest";
import { corsHeaders, parseOrigins, preflight, withCors } from "../../functions/_shared/cors.ts";

const origins = parseOrigins(
  "https://advisoraccelerator.com/, https://www.advisoraccelerator.com,not a url,ftp://x.example",
);
const from = (origin: string | null, method = "POST") =>
  new Request("https://project.supabase.co/functions/v1/stripe-checkout", {
    method,
    headers: origin ? { origin } : {},
  });

describe("functions' CORS", () => {
  it("reads the allowed origins from a comma-separated list, dropping what is not an http(s) origin", () => {
    expect(origins).toEqual(["https://advisoraccelerator.com", "https://www.advisoraccelerator.com"]);
    expect(parseOrigins(undefined)).toEqual([]);
  });

  it("echoes an allowed origin and varies on it", () => {
    expect(corsHeaders(from("https://www.advisoraccelerator.com"), origins)).toMatchObject({
      "access-control-allow-origin": "https://www.advisoraccelerator.com",
      "access-control-allow-methods": "POST, OPTIONS",
      vary: "Origin",
    });
  });

  it("gives any other origin, or none, no permission", () => {
    expect(corsHeaders(from("https://evil.example"), origins)).toEqual({ vary: "Origin" });
    expect(corsHeaders(from("https://advisoraccelerator.com.evil.example"), origins)).toEqual({ vary: "Origin" });
    expect(corsHeaders(from(null), origins)).toEqual({ vary: "Origin" });
  });

  it("answers a preflight itself and leaves other requests to the function", async () => {
    const answer = preflight(from("https://advisoraccelerator.com", "OPTIONS"), origins)!;
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://advisoraccelerator.com");
    expect(preflight(from("https://advisoraccelerator.com"), origins)).toBeNull();
    const marked = withCors(from("https://advisoraccelerator.com"), Response.json({ url: "x" }), origins);
    expect(marked.headers.get("access-control-allow-origin")).toBe("https://advisoraccelerator.com");
    expect(await marked.json()).toEqual({ url: "x" });
  });
});
