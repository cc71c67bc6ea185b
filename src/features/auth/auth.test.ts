import { describe, expect, it } from "vitest";
import { loginPath, returnPath } from "./next";
import { FIRST_VISIT_PATH, isFirstVisit } from "~/features/portal/logic";
import {
  DEFAULT_LINK_ERROR,
  INVITE_LINK_ERROR,
  MIN_PASSWORD_LENGTH,
  PASSWORD_HINT,
  passwordProblem,
  readResetLink,
} from "./reset-link";

describe("where sign-in returns to", () => {
  it("goes back to the portal page that sent the visitor to login", () => {
    expect(returnPath("/portal/settings")).toBe("/portal/settings");
    expect(returnPath("/portal/settings/purchase-history?x=1#top")).toBe("/portal/settings/purchase-history?x=1#top");
    expect(loginPath("/portal/settings")).toBe("/login?next=%2Fportal%2Fsettings");
    expect(loginPath("/portal")).toBe("/login");
  });

  it("goes back to a program's checkout, which asks a visitor whose address has an account to sign in", () => {
    expect(returnPath("/checkout/GROWTH_MINDSET")).toBe("/checkout/GROWTH_MINDSET");
    expect(loginPath("/checkout/AI_ACCELERATOR")).toBe("/login?next=%2Fcheckout%2FAI_ACCELERATOR");
  });

  it("goes to /portal for anything but a portal path of this site", () => {
    for (const next of [
      null,
      "",
      "https://evil.example/portal",
      "//evil.example/portal",
      "/\\evil.example",
      "/portalx",
      "/login",
      "javascript:alert(1)",
      "portal/settings",
      "/portal/../login",
      "/checkout",
      "/checkout/GROWTH_MINDSET/../../login",
      "/checkout/a/b",
      "/checkout/%2F%2Fevil.example",
    ]) {
      expect(returnPath(next), String(next)).toBe("/portal");
    }
  });
});

describe("the reset link", () => {
  const at = (rest: string) => readResetLink(`https://advisoraccelerator.com/reset-password${rest}`);

  it("asks for Continue when the e-mailed link carries a token hash", () => {
    expect(at("?token_hash=pkce_abc123&type=recovery")).toEqual({
      kind: "token-hash",
      tokenHash: "pkce_abc123",
      type: "recovery",
    });
    // A token hash without a type is read as a recovery, as the page always has.
    expect(at("?token_hash=abc")).toEqual({ kind: "token-hash", tokenHash: "abc", type: "recovery" });
  });

  it("asks for Continue on a buyer's set-password link, keeping its type for verifyOtp (supabase/templates/invite.html)", () => {
    expect(at("?token_hash=0a1b2c&type=invite")).toEqual({ kind: "token-hash", tokenHash: "0a1b2c", type: "invite" });
  });

  it("leaves links of other types to the no-token path: this page sets passwords only", () => {
    // GoTrue's other e-mail types (signup, magiclink, email_change) verify elsewhere, not here.
    for (const type of ["signup", "magiclink", "email_change", "email", ""]) {
      expect(at(`?token_hash=abc&type=${type}`), type).toEqual({ kind: "none" });
    }
    expect(at("#access_token=eyJ.a.b&refresh_token=r&type=signup")).toEqual({ kind: "none" });
  });

  it("an error in the address outranks a token hash beside it", () => {
    expect(at("?token_hash=abc&type=invite&error_description=Token+has+expired")).toEqual({
      kind: "error",
      message: "Token has expired",
    });
  });

  it("shows Auth's error description, plus signs read as spaces", () => {
    expect(
      at("#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired"),
    ).toEqual({ kind: "error", message: "Email link is invalid or has expired" });
    expect(at("?error_description=Token%20has%20expired")).toEqual({ kind: "error", message: "Token has expired" });
  });

  it("keeps a hostile description as plain text to render", () => {
    expect(at("?error_description=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E")).toEqual({
      kind: "error",
      message: "<img src=x onerror=alert(1)>",
    });
  });

  it("falls back to the default text for an error without a description", () => {
    expect(at("#error=access_denied&error_code=otp_expired")).toEqual({ kind: "error", message: DEFAULT_LINK_ERROR });
  });

  it("recognises Auth's fragment form, for a recovery or an invite, and an address with nothing", () => {
    expect(at("#access_token=eyJ.a.b&refresh_token=r&type=recovery")).toEqual({
      kind: "fragment",
      type: "recovery",
      account: null,
    });
    expect(at("#access_token=eyJ.a.b&refresh_token=r&type=invite")).toEqual({
      kind: "fragment",
      type: "invite",
      account: null,
    });
    // The account the link is for: its token's subject, so the page can tell it from the one signed in.
    const claims = Buffer.from(JSON.stringify({ sub: "7c1e2d3f-0000-4000-8000-00000000000b" })).toString("base64url");
    expect(at(`#access_token=h.${claims}.s&refresh_token=r&type=recovery`)).toMatchObject({
      account: "7c1e2d3f-0000-4000-8000-00000000000b",
    });
    expect(at("#access_token=eyJ.a.b&refresh_token=r")).toEqual({ kind: "none" });
    expect(at("")).toEqual({ kind: "none" });
  });
});

describe("the new password", () => {
  it("must match, then be at least 6 characters long", () => {
    expect(passwordProblem("secret1", "secret2")).toBe("Passwords do not match");
    expect(passwordProblem("abc", "abc")).toBe("Password must be at least 6 characters long");
    expect(passwordProblem("abcdef", "abcdef")).toBeNull();
  });

  it("says the rule under the field with the same minimum the check uses", () => {
    expect(PASSWORD_HINT).toBe("At least 6 characters.");
    expect(passwordProblem("a".repeat(MIN_PASSWORD_LENGTH), "a".repeat(MIN_PASSWORD_LENGTH))).toBeNull();
    expect(passwordProblem("a".repeat(MIN_PASSWORD_LENGTH - 1), "a".repeat(MIN_PASSWORD_LENGTH - 1))).not.toBeNull();
  });
});

describe("a new buyer's set-password link", () => {
  it("ends on the portal's first visit", () => {
    const url = new URL(FIRST_VISIT_PATH, "https://advisoraccelerator.com");
    expect(url.pathname).toBe("/portal");
    expect(isFirstVisit(url.search)).toBe(true);
  });

  it("explains a spent or expired link to someone who never had a password", () => {
    expect(INVITE_LINK_ERROR).toContain("Links work once and for an hour");
    expect(INVITE_LINK_ERROR).not.toMatch(/reset/i);
  });
});
