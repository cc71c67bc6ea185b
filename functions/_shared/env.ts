/**
 * The functions' environment, declared once: every variable a function reads, with its rule. A
 * function lists the ones it needs (`ENV` in its handler); its Edge entry checks them when it
 * starts (`checkEnv`), so a missing or malformed secret stops the deploy's first boot with a
 * message naming the variable, instead of failing later inside a library. Handlers read values
 * through `required`, which applies the same rules. Production sets the Stripe variables and
 * ALLOWED_ORIGINS with `supabase secrets set`; the platform provides SUPABASE_URL and
 * SUPABASE_SERVICE_ROLE_KEY. Locally, packages/local-stack/src/functions.ts provides all of them.
 * .env.example describes each one.
 */
import { roleOf } from "../../packages/shared/jwt.ts";

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

interface Variable {
  /** Optional variables may be unset or blank; a value given must still pass `check`. */
  optional?: boolean;
  /** What is wrong with a (trimmed, non-empty) value, or null. */
  check(value: string): string | null;
}

const httpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? null : "must be an http(s) URL";
  } catch {
    return "must be an http(s) URL";
  }
};

const startsWith =
  (...prefixes: string[]) =>
  (value: string) =>
    prefixes.some((prefix) => value.startsWith(prefix) && value.length > prefix.length)
      ? null
      : `must start with ${prefixes.join(" or ")}`;

/** Comma-separated origins (`https://a.com,https://www.a.com`): each a bare http(s) origin. */
const origins = (value: string) => {
  const bad = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => {
      try {
        const url = new URL(entry);
        return !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, "");
      } catch {
        return true;
      }
    });
  return bad.length ? `must be comma-separated origins like https://example.com (not: ${bad.join(", ")})` : null;
};

/** A site's root: an http(s) URL with no path, query or fragment. */
const siteUrl = (value: string) => {
  const problem = httpUrl(value);
  if (problem) return problem;
  const url = new URL(value);
  return url.pathname === "/" && !url.search && !url.hash && !value.includes("#")
    ? null
    : "must be the site's root URL, like https://example.com";
};

const EMAIL_ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** A sender as mail providers take it: `Name <address>` or a bare address. */
const sender = (value: string) => {
  const match = /^(?:[^<>]+<([^<>]+)>|([^<>\s]+))$/.exec(value);
  const address = match?.[1] ?? match?.[2];
  return address && EMAIL_ADDRESS.test(address) ? null : "must be `Name <address@your-domain>` or an address";
};

/**
 * The service-role key: a secret API key (`sb_secret_…`) or a JWT whose role is `service_role`.
 * The anon key is a JWT too, and set here by mistake it would fail every write later, under RLS.
 */
const serviceKey = (value: string) => {
  if (/^sb_secret_\w+$/.test(value)) return null;
  const role = roleOf(value);
  if (role === "service_role") return null;
  return role
    ? `must be the project's service-role key, not a key with role "${role}"`
    : "must be the project's service-role key (a JWT, or an sb_secret_ key)";
};

export const FUNCTION_ENV = {
  /** The project's API URL; the platform sets it. */
  SUPABASE_URL: { check: httpUrl },
  /** The project's public (anon) key, to ask the database as the caller; the platform sets it. */
  SUPABASE_ANON_KEY: {
    check: (value: string) =>
      /^sb_publishable_\w+$/.test(value) || roleOf(value) === "anon"
        ? null
        : "must be the project's anon or publishable key",
  },
  /** The service-role key the webhook writes orders and creates accounts with; the platform sets it. */
  SUPABASE_SERVICE_ROLE_KEY: { check: serviceKey },
  /** A secret or restricted Stripe key, live or test. */
  STRIPE_SECRET_KEY: { check: startsWith("sk_live_", "sk_test_", "rk_live_", "rk_test_") },
  /** The webhook endpoint's signing secret. */
  STRIPE_WEBHOOK_SECRET: { check: startsWith("whsec_") },
  /** Another Stripe API address (the local stack's stand-in); unset in production. */
  STRIPE_API_URL: { optional: true, check: httpUrl },
  /**
   * "1": each coached offer's buyer gets a Stripe customer on a test clock of their own, so a
   * developer or a test can move them months ahead (the local stack sets it; Stripe has test clocks
   * in test mode only, and the offer function ignores it with a live key). Unset in production.
   */
  /**
   * "1": offers whose plans, membership start or terms content still marks sample may be sent
   * (functions/_shared/offers.ts `prepareOffer`), as a staging build publishes sample content,
   * labelled (the local stack sets it). Unset in production.
   */
  ALLOW_SAMPLE_CONTENT: { optional: true, check: (value) => (value === "1" ? null : 'must be "1" or unset') },
  STRIPE_TEST_CLOCKS: { optional: true, check: (value) => (value === "1" ? null : 'must be "1" or unset') },
  /** The site's origins that may call the checkout from a browser. */
  ALLOWED_ORIGINS: { check: origins },
  /** The site's public URL: the links in the product's e-mails (the portal, the set-password page). */
  SITE_URL: { check: siteUrl },
  /** The mail provider's API key (Resend, functions/_shared/mail.ts). */
  RESEND_API_KEY: { check: startsWith("re_") },
  /** Another Resend API address (the local stack's stand-in); unset in production. */
  RESEND_API_URL: { optional: true, check: httpUrl },
  /** The sender of the product's e-mails, on a domain verified at the provider: `Name <address>`. */
  MAIL_FROM: { check: sender },
  /** Where replies go, when not to MAIL_FROM. */
  MAIL_REPLY_TO: { optional: true, check: (value) => (EMAIL_ADDRESS.test(value) ? null : "must be an e-mail address") },
  /**
   * Multiplies every flood limit's allowance (functions/_shared/rate-limit.ts). Unset in
   * production; tests whose buyers all come from one address raise it.
   */
  RATE_LIMIT_SCALE: {
    optional: true,
    check: (value) => (/^\d+(\.\d+)?$/.test(value) && Number(value) > 0 ? null : "must be a positive number"),
  },
} satisfies Record<string, Variable>;

export type FunctionVariable = keyof typeof FUNCTION_ENV;

/** What is wrong with the named variables in `env`: one line per variable, naming it. */
export function envProblems(env: Env, names: readonly FunctionVariable[]): string[] {
  const problems: string[] = [];
  for (const name of names) {
    const rule: Variable = FUNCTION_ENV[name];
    const value = env[name]?.trim() ?? "";
    if (!value) {
      if (!rule.optional) problems.push(`${name} is not set`);
      continue;
    }
    const problem = rule.check(value);
    if (problem) problems.push(`${name} ${problem}`);
  }
  return problems;
}

/** Throws a ConfigError listing every problem of the named variables: a function's start. */
export function checkEnv(env: Env, names: readonly FunctionVariable[], fn = "The function"): void {
  const problems = envProblems(env, names);
  if (problems.length > 0) {
    throw new ConfigError(`${fn} cannot start: ${problems.join("; ")}. Set them with \`supabase secrets set\`.`);
  }
}

/** The named variables, trimmed, or a ConfigError naming every one missing or malformed. */
export function required<const Name extends FunctionVariable>(env: Env, names: readonly Name[]): Record<Name, string> {
  const problems = envProblems(env, names);
  if (problems.length > 0) throw new ConfigError(`Environment: ${problems.join("; ")}`);
  return Object.fromEntries(names.map((name) => [name, env[name]!.trim()])) as Record<Name, string>;
}

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
