/**
 * The local stack's settings, read once from `supabase/config.toml`: the file the Supabase CLI
 * deploys to a hosted project (`supabase config push`) is also the one source of what the stand-in
 * does, so the two cannot drift. Only the keys the stack uses are read; each is checked, and a
 * wrong type fails the start with the key's name. Tests change a value through `overrides`.
 * Dev and test only.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "smol-toml";
import { checkTemplate } from "./auth/template.ts";
import { PROJECT_ROOT } from "./project.ts";

/** An auth e-mail: its subject and the Go template of its HTML body. */
export interface EmailTemplate {
  subject: string;
  /** The body's template text, read from `content_path`. */
  content: string;
  /** Where it was read from, relative to the project, for messages. */
  contentPath: string;
}

export interface StackConfig {
  /** Public origin of the stack (the API's URL, and the site's when the stack serves it). */
  url: string;
  auth: {
    /** `site_url`: the fallback redirect, `{{ .SiteURL }}` in e-mails, and an allowed redirect origin. */
    siteUrl: string;
    /** `additional_redirect_urls`: glob patterns of further redirect targets. */
    additionalRedirectUrls: string[];
    /** `jwt_expiry`: lifetime of access tokens, in seconds. */
    jwtExpiry: number;
    /** `enable_refresh_token_rotation`: a refresh token reused out of turn ends its session. */
    refreshTokenRotation: boolean;
    /** `refresh_token_reuse_interval`: seconds in which concurrent refreshes get the same token. */
    refreshTokenReuseInterval: number;
    /** `minimum_password_length`. */
    minimumPasswordLength: number;
    /** `[auth.rate_limit]`: requests per 5 minutes per client address. */
    rateLimit: {
      /** `token_refresh`: password sign-ins and token refreshes (`POST /token`). */
      tokenRefresh: number;
      /** `sign_in_sign_ups`: recovery e-mails and user updates (GoTrue's OTP limit). */
      signInSignUps: number;
      /** `token_verifications`: e-mailed links and `verifyOtp` (`/verify`). */
      tokenVerifications: number;
    };
    email: {
      /** `enable_confirmations`. */
      enableConfirmations: boolean;
      /** `max_frequency`: seconds before the same user can be sent another recovery e-mail. */
      maxFrequency: number;
      /** `otp_length`: digits of the one-time code e-mails carry. */
      otpLength: number;
      /** `otp_expiry`: lifetime of e-mailed links and codes, in seconds. */
      otpExpiry: number;
      /** `[auth.email.template.*]`: the e-mails the project customises, by type. */
      templates: Partial<Record<"recovery" | "invite" | "confirmation" | "magic_link", EmailTemplate>>;
    };
  };
  api: {
    /** `schemas`: the schemas PostgREST exposes, the first by default. */
    schemas: string[];
    /** `extra_search_path`: schemas on every request's search_path after the exposed one. */
    extraSearchPath: string[];
    /** `max_rows`: the most rows PostgREST answers. */
    maxRows: number;
  };
  storage: {
    /** `file_size_limit`: the largest upload any bucket takes, in bytes. */
    fileSizeLimit: number;
  };
  /** `[functions.<name>]`: the functions `supabase functions deploy` deploys. */
  functions: Record<string, FunctionSettings>;
}

export interface FunctionSettings {
  /** `verify_jwt`: whether the gateway checks the caller's JWT first (default true). */
  verifyJwt: boolean;
  /**
   * `entrypoint`, as an absolute path: the module the CLI deploys. As the CLI resolves it
   * (pkg/config/config.go of supabase/cli), a relative path is taken from the folder of config.toml,
   * and without one it is `supabase/functions/<name>/index.ts`.
   */
  entrypoint: string;
  /** The import map deployed with it: `deno.json` beside the entrypoint, if there is one (the CLI's rule). */
  importMap?: string;
}

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends unknown[] ? T[K] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};

/** Settings a test may change, table by table; `url` is the stack's own. */
export type ConfigOverrides = DeepPartial<Omit<StackConfig, "url">>;

export const CONFIG_FILE = join(PROJECT_ROOT, "supabase", "config.toml");

type Table = Record<string, unknown>;

class ConfigError extends Error {
  constructor(file: string, key: string, expected: string) {
    super(`${file}: ${key} must be ${expected}`);
  }
}

/** Reads `supabase/config.toml` (or `file`) into the stack's settings, with `overrides` applied. */
export function loadConfig(url: string, overrides: ConfigOverrides = {}, file = CONFIG_FILE): StackConfig {
  const text = readFileSync(file, "utf8");
  let toml: Table;
  try {
    toml = parse(text) as Table;
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
  const project = resolve(dirname(file), "..");
  const read = reader(file, toml);

  const templates: StackConfig["auth"]["email"]["templates"] = {};
  for (const type of ["recovery", "invite", "confirmation", "magic_link"] as const) {
    const key = `auth.email.template.${type}`;
    if (read.table(key) === undefined) continue;
    const contentPath = read.string(`${key}.content_path`);
    let content: string;
    try {
      content = readFileSync(resolve(project, contentPath), "utf8");
    } catch (error) {
      throw new Error(`${file}: ${key}.content_path names ${contentPath}, which cannot be read`, { cause: error });
    }
    const subject = read.string(`${key}.subject`);
    checkTemplate(subject, `${file}: ${key}.subject`);
    checkTemplate(content, contentPath);
    templates[type] = { subject, content, contentPath };
  }

  const functions: StackConfig["functions"] = {};
  for (const name of Object.keys(read.table("functions") ?? {})) {
    const given = read.string(`functions.${name}.entrypoint`, "");
    const entrypoint = given ? resolve(dirname(file), given) : join(dirname(file), "functions", name, "index.ts");
    const denoJson = join(dirname(entrypoint), "deno.json");
    functions[name] = {
      verifyJwt: read.boolean(`functions.${name}.verify_jwt`, true),
      entrypoint,
      ...(existsSync(denoJson) ? { importMap: denoJson } : {}),
    };
  }

  const config: StackConfig = {
    url,
    auth: {
      siteUrl: read.string("auth.site_url"),
      additionalRedirectUrls: read.strings("auth.additional_redirect_urls", []),
      jwtExpiry: read.integer("auth.jwt_expiry", 3600),
      refreshTokenRotation: read.boolean("auth.enable_refresh_token_rotation", true),
      refreshTokenReuseInterval: read.integer("auth.refresh_token_reuse_interval", 10),
      minimumPasswordLength: read.integer("auth.minimum_password_length", 6),
      rateLimit: {
        tokenRefresh: read.integer("auth.rate_limit.token_refresh", 150),
        signInSignUps: read.integer("auth.rate_limit.sign_in_sign_ups", 30),
        tokenVerifications: read.integer("auth.rate_limit.token_verifications", 30),
      },
      email: {
        enableConfirmations: read.boolean("auth.email.enable_confirmations", false),
        maxFrequency: read.duration("auth.email.max_frequency", 60),
        otpLength: read.integer("auth.email.otp_length", 6),
        otpExpiry: read.integer("auth.email.otp_expiry", 3600),
        templates,
      },
    },
    api: {
      schemas: read.strings("api.schemas", ["public", "graphql_public"]),
      extraSearchPath: read.strings("api.extra_search_path", ["public", "extensions"]),
      maxRows: read.integer("api.max_rows", 1000),
    },
    storage: { fileSizeLimit: read.size("storage.file_size_limit", 50 * 1024 * 1024) },
    functions,
  };
  return merge(config, overrides);
}

/** Typed access to dotted keys of the parsed file, failing with the key's name. */
function reader(file: string, toml: Table) {
  const get = (key: string): unknown =>
    key
      .split(".")
      .reduce<unknown>((node, part) => (node && typeof node === "object" ? (node as Table)[part] : undefined), toml);
  const typed = <T>(key: string, fallback: T | undefined, check: (value: unknown) => boolean, expected: string): T => {
    const value = get(key);
    if (value === undefined) {
      if (fallback === undefined) throw new ConfigError(file, key, `set (${expected})`);
      return fallback;
    }
    if (!check(value)) throw new ConfigError(file, key, expected);
    return value as T;
  };
  return {
    table: (key: string): Table | undefined => {
      const value = get(key);
      if (value !== undefined && !isTable(value)) throw new ConfigError(file, key, "a table");
      return value as Table | undefined;
    },
    string: (key: string, fallback?: string) => typed(key, fallback, (v) => typeof v === "string", "a string"),
    strings: (key: string, fallback?: string[]) =>
      typed(key, fallback, (v) => Array.isArray(v) && v.every((s) => typeof s === "string"), "an array of strings"),
    boolean: (key: string, fallback?: boolean) => typed(key, fallback, (v) => typeof v === "boolean", "true or false"),
    integer: (key: string, fallback?: number) =>
      typed(key, fallback, (v) => Number.isInteger(v) && (v as number) >= 0, "a whole number"),
    /** A Go duration such as "1m0s", "90s" or "1h", in seconds. */
    duration: (key: string, fallback?: number) => {
      const value = typed<string | number>(
        key,
        fallback,
        (v) => typeof v === "string" && parseDuration(v) !== undefined,
        'a duration such as "60s" or "1m0s"',
      );
      return typeof value === "number" ? value : parseDuration(value)!;
    },
    /** A size such as "2MiB" or "50MB" (binary units, as the CLI reads them), in bytes. */
    size: (key: string, fallback?: number) => {
      const value = typed<string | number>(
        key,
        fallback,
        (v) => typeof v === "string" && parseSize(v) !== undefined,
        'a size such as "2MiB"',
      );
      return typeof value === "number" ? value : parseSize(value)!;
    },
  };
}

const isTable = (value: unknown) => !!value && typeof value === "object" && !Array.isArray(value);

/** Seconds in a Go duration string ("1m0s", "1.5h", "500ms"); undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) return undefined;
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * units[unit!]!, 0);
}

/** Bytes in a size string ("2MiB", "50MB", "512KB", "1GB", "100B"); undefined when it is not one. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i.exec(text.trim());
  if (!match) return undefined;
  const power = { b: 0, kb: 1, kib: 1, mb: 2, mib: 2, gb: 3, gib: 3 }[(match[2] ?? "B").toLowerCase()]!;
  return Math.floor(Number(match[1]) * 1024 ** power);
}

/** `base` with the values of `overrides` laid over it, table by table. */
function merge<T>(base: T, overrides: unknown): T {
  if (!isTable(overrides)) return (overrides === undefined ? base : overrides) as T;
  const result: Table = { ...(base as Table) };
  for (const [key, value] of Object.entries(overrides as Table)) {
    if (value === undefined) continue;
    result[key] = isTable(value) && isTable(result[key]) ? merge(result[key], value) : value;
  }
  return result as T;
}
