// Fails the build when a secret reached the files it would publish. Only the project's anon key
// may appear (it is public by design: RLS decides what it can do). Looked for in every file of
// the output, text or not: JSON Web Tokens whose role is not `anon` (the service-role key, a
// user's token), Stripe secret, restricted and webhook-signing keys, Supabase's secret API keys
// and private keys in PEM form. The CI workflow and `.ci/run` build the site, so CI scans it too.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";
import { roleOf } from "../../packages/shared/jwt.ts";

const PATTERNS = [
  { name: "a Stripe secret key", pattern: /\bsk_(?:live|test)_[0-9A-Za-z]{8,}/g },
  { name: "a Stripe restricted key", pattern: /\brk_(?:live|test)_[0-9A-Za-z]{8,}/g },
  { name: "a Stripe webhook signing secret", pattern: /\bwhsec_[0-9A-Za-z+/=]{8,}/g },
  { name: "a Supabase secret API key", pattern: /\bsb_secret_[0-9A-Za-z_-]{8,}/g },
  { name: "a private key", pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/g },
];
const JWT = /\beyJ[0-9A-Za-z_-]{5,}\.eyJ[0-9A-Za-z_-]{5,}\.[0-9A-Za-z_-]{10,}/g;

/** A secret found in a file's text: what it is, and its first characters. */
export interface Secret {
  kind: string;
  excerpt: string;
}

/** The secrets in one file's text, the excerpt cut short. */
export function secretsIn(text: string): Secret[] {
  const found: Secret[] = [];
  const excerpt = (value: string) => `${value.slice(0, 12)}…`;
  for (const { name, pattern } of PATTERNS) {
    for (const [match] of text.matchAll(pattern)) found.push({ kind: name, excerpt: excerpt(match) });
  }
  for (const [token] of text.matchAll(JWT)) {
    const role = roleOf(token);
    if (role === "anon") continue;
    found.push({ kind: `a JWT with role ${role ?? "unknown"}`, excerpt: excerpt(token) });
  }
  return found;
}

/** Every secret in the files under `dir`, with the file's path relative to it. */
export async function scanDirectory(dir: string): Promise<(Secret & { file: string })[]> {
  const found: (Secret & { file: string })[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    // Binary files are read as latin1: a key is ASCII wherever it hides.
    const text = await readFile(path, "latin1");
    for (const secret of secretsIn(text)) found.push({ file: relative(dir, path), ...secret });
  }
  return found;
}

export default function secretScan(): AstroIntegration {
  return {
    name: "secret-scan",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const found = await scanDirectory(fileURLToPath(dir));
        if (found.length > 0) {
          throw new Error(
            `The build holds secrets it must not publish:\n${found.map((f) => `  ${f.file}: ${f.kind} (${f.excerpt})`).join("\n")}`,
          );
        }
        logger.info("no secret in the output (only the public anon key may appear)");
      },
    },
  };
}
