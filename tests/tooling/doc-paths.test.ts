/**
 * The repo's pointers lead somewhere. Comments and docs send a reader to a file ("the rule is in
 * functions/_shared/env.ts"), a doc to another doc's heading; after a file moves or a section is
 * renamed, a stale pointer sends them nowhere, and nothing else would notice. So:
 * - every repo path a tracked text file names (a word starting with one of the repo's top-level
 *   folders, or one of its top-level files) exists, unless git ignores it (a build output such as
 *   `dist-local/`, `dist-bench/` or `bench/latest.json`, which a clean clone makes when it runs);
 * - every relative Markdown link leads to a file, and its `#anchor` to a heading there;
 * - docs are cited by heading, never by section number (`docs/product.md §7`), since numbers
 *   shift when a section is added.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

const TEXT = /\.(ts|tsx|astro|mjs|js|cjs|md|mdx|sql|toml|ya?ml|css|sh|json|example)$|(^|\/)run$/;
/**
 * Where a path-like word is not a pointer to today's tree: the lock file and public assets, this
 * file's own lists, and migrations, which record the code as it was when they were applied and are
 * never edited afterwards (a later migration updates a database comment that moved; the types
 * generated from the database are checked).
 */
const SKIP = /^(package-lock\.json|public\/|supabase\/migrations\/|tests\/tooling\/doc-paths\.test\.ts$)/;

const ROOTS = [
  "content",
  "src",
  "functions",
  "supabase",
  "tests",
  "docs",
  "packages",
  "local",
  "scripts",
  "tools",
  "public",
  "bench",
  ".github",
  ".ci",
];
const TOP_FILES = [
  "README.md",
  "DEPLOY.md",
  "package.json",
  "astro.config.ts",
  "tsconfig.json",
  "playwright.config.ts",
  "vitest.config.ts",
  "eslint.config.js",
  ".env.example",
];

/** The files git would commit: tracked, plus new ones not ignored. */
function repoFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
  });
  return [...new Set(out.split("\0").filter(Boolean))].filter(
    (file) => TEXT.test(file) && !SKIP.test(file) && existsSync(join(root, file)),
  );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/**
 * A path word: a root folder and what follows, or a top-level file, not inside a longer path, URL
 * or import (`../../src/x.ts` resolves relative to its file and the type-check follows it).
 */
const PATH = new RegExp(
  `(?<![\\w./@~#:-])(?:(?:${ROOTS.map(escape).join("|")})/[\\w./[\\]-]*|(?:${TOP_FILES.map(escape).join("|")})(?![\\w-]))`,
  "g",
);

/**
 * Another project named just before a path word (in the same comment or sentence) owns it:
 * storage-api's src/storage/object.ts, the CLI's supabase/functions/<name>/index.ts.
 */
const UPSTREAM =
  /(storage-api|GoTrue|PostgREST|stripe-node|auth-js|supabase-js|\bCLI\b|supabase\/(auth|cli|storage|setup-cli))\b[^\n]*\n?[^\n]*$/;
/** Upstream repositories on GitHub whose owner is also a folder here. */
const UPSTREAM_REPOS = new Set(["supabase/auth", "supabase/cli", "supabase/storage", "supabase/setup-cli"]);

/**
 * Words that look like repo paths and are meant not to exist, each with why.
 */
const NOT_FILES: Record<string, string> = {
  "content/lessons/growth-mindset/downloads/money-beliefs.pdf":
    "the misspelt download tests/tooling/content-build.test.ts expects the build to name",
  "src/pages/portal.astro": "one of the two forms of the portal route tools/bench probes for",
};

/** The path words of a text, trimmed of sentence punctuation; placeholders end a path. */
export function pathsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH)) {
    let path = match[0].replace(/[.,;:\]]+$/, "");
    const next = text[match.index + match[0].length];
    // A GitHub Action (`uses: supabase/setup-cli@v1`), or a path in another project's source.
    if (next === "@" || UPSTREAM_REPOS.has(path)) continue;
    if (UPSTREAM.test(text.slice(Math.max(0, match.index - 200), match.index))) continue;
    // `functions/<name>/handler.ts`, `content/lessons/*.mdx`, `{userId}/…`: keep the real part.
    if (next === "<" || next === "*" || next === "{" || next === "$") path = path.replace(/[^/]*$/, "");
    if (path.endsWith("...") || path.includes("…")) continue;
    found.push(path.replace(/\/+$/, "") || path);
  }
  return found;
}

/**
 * Of `paths`, those git ignores: outputs a clone makes by running, never committed. Each is asked
 * about as a file and as a folder: a `dist/` pattern matches a missing `dist` only when asked as
 * `dist/`, and on a fresh clone the outputs do not exist yet.
 */
export function ignored(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync("git", ["check-ignore", "--no-index", "--stdin"], {
      cwd: root,
      input: paths.flatMap((path) => [path, `${path}/`]).join("\n"),
      encoding: "utf8",
    });
    return new Set(
      out
        .split("\n")
        .filter(Boolean)
        .map((path) => path.replace(/\/+$/, "")),
    );
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of markdown.replace(/```[\s\S]*?```/g, "").split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const files = repoFiles();

describe("pointers in comments and docs", () => {
  it("finds paths where a reader would: in prose, comments and code spans, not in imports or URLs", () => {
    expect(pathsIn("The rule is in functions/_shared/env.ts.")).toEqual(["functions/_shared/env.ts"]);
    expect(pathsIn("see `content/lessons/<program>/*.mdx` and docs/product.md")).toEqual([
      "content/lessons",
      "docs/product.md",
    ]);
    expect(pathsIn('import x from "../../src/lib/x.ts"; https://example.com/docs/a.md')).toEqual([]);
    expect(pathsIn("(README.md, DEPLOY.md)")).toEqual(["README.md", "DEPLOY.md"]);
    expect(pathsIn("storage-api's findObject (src/storage/database/pg.ts)")).toEqual([]);
    expect(pathsIn("uses: supabase/setup-cli@v1")).toEqual([]);
  });

  it("knows a build output as ignored whether or not it exists yet, as on a fresh clone", () => {
    expect(ignored(["dist", "dist-local", "not-built-yet-dist-course", "src", "bench"])).toEqual(
      new Set(["dist", "dist-local"]),
    );
  });

  it("every repo path a file names exists (or is an output git ignores)", () => {
    const missing = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      for (const path of pathsIn(text)) {
        if (existsSync(join(root, path)) || path in NOT_FILES) continue;
        missing.set(path, [...(missing.get(path) ?? []), file]);
      }
    }
    const outputs = ignored([...missing.keys()]);
    const stale = [...missing]
      .filter(([path]) => !outputs.has(path))
      .map(([path, where]) => `${path} (named in ${[...new Set(where)].join(", ")})`);
    expect(stale).toEqual([]);
  });

  it("every relative Markdown link leads to a file, and its anchor to a heading", () => {
    const broken: string[] = [];
    for (const file of files.filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(join(root, file), "utf8").replace(/```[\s\S]*?```/g, "");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const to = path ? join(dirname(join(root, file)), path) : join(root, file);
        if (!existsSync(to)) {
          broken.push(`${file}: ${target} (no ${relative(root, to)})`);
          continue;
        }
        if (anchor && to.endsWith(".md") && !anchorsOf(readFileSync(to, "utf8")).has(anchor)) {
          broken.push(`${file}: ${target} (no heading #${anchor} in ${relative(root, to)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("cites docs by heading, not by section number", () => {
    const numbered: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(root, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (/\.md\s*§|\.md#\d/.test(line)) numbered.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(numbered).toEqual([]);
  });
});
