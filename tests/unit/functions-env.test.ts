/** The functions' environment schema (functions/_shared/env.ts): each variable's rule, named in every message. */
import { describe, expect, it } from "vitest";
import { checkEnv, ConfigError, envProblems, required } from "../../functions/_shared/env.ts";

const good = {
  SUPABASE_URL: "https://abcdefghijklmnop.supabase.co",
  SUPABASE_SERVICE_ROLE_KEY: "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJl",
  STRIPE_SECRET_KEY: "rk_live_51Abc",
  STRIPE_WEBHOOK_SECRET: "whsec_0123abcd",
  ALLOWED_ORIGINS: "https://advisoraccelerator.com, https://www.advisoraccelerator.com/",
};
const ALL = [
  "SUPABASE_URL",
  "SUPABASE_SERVICE_ROLE_KEY",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "STRIPE_API_URL",
  "ALLOWED_ORIGINS",
] as const;

describe("the functions' environment", () => {
  it("the mail settings: the site's root URL, a Resend key, a sender with a name, an optional reply-to", () => {
    const MAIL = ["SITE_URL", "RESEND_API_KEY", "RESEND_API_URL", "MAIL_FROM", "MAIL_REPLY_TO"] as const;
    const mail = {
      SITE_URL: "https://advisoraccelerator.com",
      RESEND_API_KEY: "re_123abc",
      MAIL_FROM: "Advisor Accelerator <team@advisoraccelerator.com>",
    };
    expect(envProblems(mail, MAIL)).toEqual([]);
    expect(
      envProblems({ ...mail, MAIL_FROM: "team@advisoraccelerator.com", MAIL_REPLY_TO: "help@a.com" }, MAIL),
    ).toEqual([]);
    expect(
      envProblems(
        {
          SITE_URL: "https://advisoraccelerator.com/portal",
          RESEND_API_KEY: "sk_123",
          MAIL_FROM: "Advisor Accelerator",
          MAIL_REPLY_TO: "help",
        },
        MAIL,
      ),
    ).toEqual([
      "SITE_URL must be the site's root URL, like https://example.com",
      "RESEND_API_KEY must start with re_",
      "MAIL_FROM must be `Name <address@your-domain>` or an address",
      "MAIL_REPLY_TO must be an e-mail address",
    ]);
  });

  it("RATE_LIMIT_SCALE: optional, and a positive number when set (a typo must not lift the flood limits)", () => {
    const SCALE = ["RATE_LIMIT_SCALE"] as const;
    expect(envProblems({}, SCALE)).toEqual([]);
    for (const value of ["1000", "2.5"]) expect(envProblems({ RATE_LIMIT_SCALE: value }, SCALE)).toEqual([]);
    for (const value of ["0", "-1", "lots", "1e9", "Infinity"]) {
      expect(envProblems({ RATE_LIMIT_SCALE: value }, SCALE), value).toEqual([
        "RATE_LIMIT_SCALE must be a positive number",
      ]);
    }
  });

  it("accepts a production environment: live or test keys, restricted keys, origins with a trailing slash", () => {
    expect(envProblems(good, ALL)).toEqual([]);
    expect(
      envProblems({ ...good, STRIPE_SECRET_KEY: "sk_test_51Abc", SUPABASE_SERVICE_ROLE_KEY: "sb_secret_abc123" }, ALL),
    ).toEqual([]);
    expect(required(good, ["STRIPE_WEBHOOK_SECRET"])).toEqual({ STRIPE_WEBHOOK_SECRET: "whsec_0123abcd" });
  });

  it("names each variable that is missing, blank or malformed, and what it must be", () => {
    const problems = envProblems(
      {
        SUPABASE_URL: "abcdefghijklmnop.supabase.co",
        SUPABASE_SERVICE_ROLE_KEY: "  ",
        STRIPE_SECRET_KEY: "pk_live_51Abc",
        STRIPE_WEBHOOK_SECRET: "whsec_",
        STRIPE_API_URL: "ftp://stripe.test",
        ALLOWED_ORIGINS: "https://advisoraccelerator.com/checkout,advisoraccelerator.com",
      },
      ALL,
    );
    expect(problems).toEqual([
      "SUPABASE_URL must be an http(s) URL",
      "SUPABASE_SERVICE_ROLE_KEY is not set",
      "STRIPE_SECRET_KEY must start with sk_live_ or sk_test_ or rk_live_ or rk_test_",
      "STRIPE_WEBHOOK_SECRET must start with whsec_",
      "STRIPE_API_URL must be an http(s) URL",
      "ALLOWED_ORIGINS must be comma-separated origins like https://example.com (not: https://advisoraccelerator.com/checkout, advisoraccelerator.com)",
    ]);
  });

  it("takes only the service-role key for SUPABASE_SERVICE_ROLE_KEY, not the public anon key nor another string", () => {
    const key = (role: string) =>
      `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ role })).toString("base64url")}.c2lnbmF0dXJl`;
    const check = (value: string) => envProblems({ SUPABASE_SERVICE_ROLE_KEY: value }, ["SUPABASE_SERVICE_ROLE_KEY"]);
    expect(check(key("service_role"))).toEqual([]);
    expect(check(key("anon"))).toEqual([
      'SUPABASE_SERVICE_ROLE_KEY must be the project\'s service-role key, not a key with role "anon"',
    ]);
    expect(check("sb_publishable_abc123")).toEqual([
      "SUPABASE_SERVICE_ROLE_KEY must be the project's service-role key (a JWT, or an sb_secret_ key)",
    ]);
    expect(check("not.a.jwt")).toEqual([
      "SUPABASE_SERVICE_ROLE_KEY must be the project's service-role key (a JWT, or an sb_secret_ key)",
    ]);
  });

  it("leaves an optional variable out when unset, but never a required one", () => {
    expect(envProblems({ ...good, STRIPE_API_URL: "" }, ["STRIPE_API_URL"])).toEqual([]);
    expect(envProblems({}, ["STRIPE_SECRET_KEY", "STRIPE_API_URL"])).toEqual(["STRIPE_SECRET_KEY is not set"]);
  });

  it("stops a function's start, and a read, with a ConfigError naming the variables", () => {
    expect(() => checkEnv({}, ["STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET"], "stripe-webhook")).toThrow(
      new ConfigError(
        "stripe-webhook cannot start: STRIPE_SECRET_KEY is not set; STRIPE_WEBHOOK_SECRET is not set. Set them with `supabase secrets set`.",
      ),
    );
    expect(() => required({ STRIPE_SECRET_KEY: "sk_nope" }, ["STRIPE_SECRET_KEY"])).toThrow(ConfigError);
    expect(() => checkEnv(good, ["STRIPE_SECRET_KEY", "ALLOWED_ORIGINS"])).not.toThrow();
  });
});
