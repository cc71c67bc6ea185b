/**
 * Which addresses may sign someone in (src/lib/url-session.ts): supabase-js's
 * `detectSessionInUrl` asks it before taking a session from `#access_token=…` (auth-js
 * GoTrueClient `_isImplicitGrantCallback`, which calls the option with the address and its query
 * and fragment parameters merged, the query winning: `parseParametersFromURL`).
 */
import { describe, expect, it } from "vitest";
import { acceptsSessionFromUrl, accountOf, URL_SESSION_PATH } from "./url-session";

const A = "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f";
const B = "7c1e2d3f-1111-4222-8333-444455556666";

/** An access token as Auth issues them, for `sub` (the signature is never read here). */
const token = (sub: string) =>
  `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub, role: "authenticated" })).toString("base64url")}.sig`;

/** The session supabase-js persists for `id`. */
const stored = (id: string, { expired = false, refresh = true } = {}) =>
  JSON.stringify({
    access_token: token(id),
    refresh_token: refresh ? "r1" : "",
    expires_at: Math.round(Date.now() / 1000) + (expired ? -60 : 3600),
    user: { id, email: `${id.slice(0, 4)}@example.com` },
  });

const at = (path: string) => new URL(`https://advisoraccelerator.com${path}`);
const redirect = (sub: string, type = "recovery") => ({
  access_token: token(sub),
  refresh_token: "r2",
  expires_in: "3600",
  token_type: "bearer",
  type,
});

describe("a session in the address", () => {
  it("is taken on the reset page from Auth's redirect of a reset or an invite, with nobody signed in", () => {
    expect(URL_SESSION_PATH).toBe("/reset-password");
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B), null)).toBe(true);
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B, "invite"), null)).toBe(true);
  });

  it("is never taken on any other page that loads supabase-js", () => {
    for (const path of [
      "/portal",
      "/portal/settings",
      "/portal/settings/purchase-history",
      "/portal/courses/growth-mindset",
      "/login",
      "/forgot-password",
      "/checkout/OS_ACCELERATOR",
      "/checkout/success",
      "/reset-password.html",
      "/reset-password/",
      "/Reset-Password",
    ]) {
      expect(acceptsSessionFromUrl(at(path), redirect(B), null), path).toBe(false);
    }
  });

  it("is not taken for what the reset page does not do: a sign-up, a magic link, no type at all", () => {
    for (const type of ["signup", "magiclink", "email_change", "email", ""]) {
      expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B, type), null), type).toBe(false);
    }
    const { type: _none, ...untyped } = redirect(B);
    expect(acceptsSessionFromUrl(at("/reset-password"), untyped, null)).toBe(false);
  });

  it("never replaces another account's session, and renews the same account's", () => {
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B), stored(A))).toBe(false);
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B, "invite"), stored(A))).toBe(false);
    // An expired session supabase-js renews still counts; one it cannot renew is no session.
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(B), stored(A, { expired: true }))).toBe(false);
    expect(
      acceptsSessionFromUrl(at("/reset-password"), redirect(B), stored(A, { expired: true, refresh: false })),
    ).toBe(true);
    expect(acceptsSessionFromUrl(at("/reset-password"), redirect(A), stored(A))).toBe(true);
  });

  it("is not taken from a token without a subject, nor from an error", () => {
    expect(acceptsSessionFromUrl(at("/reset-password"), { ...redirect(B), access_token: "not-a-jwt" }, null)).toBe(
      false,
    );
    expect(
      acceptsSessionFromUrl(
        at("/reset-password"),
        { error: "access_denied", error_description: "Email link is invalid or has expired", type: "recovery" },
        null,
      ),
    ).toBe(false);
  });

  it("reads the account a token names, or none", () => {
    expect(accountOf(token(B))).toBe(B);
    expect(accountOf(undefined)).toBeNull();
    expect(accountOf("a.b.c")).toBeNull();
    expect(accountOf(token(""))).toBeNull();
  });
});
