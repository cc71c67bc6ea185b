/**
 * Sample content (src/schemas/content.ts, `sample`): what content/ marks `sample: true` because the
 * business has not supplied or confirmed it (a person, a quote, an endorser, a figure's source, a
 * contact detail, a video, a cohort date). Local and preview builds show each with a "Sample"
 * label; a production build must not publish any of it.
 *
 * `findSamples` lists every marked item by file and field, straight from the files (YAML, and the
 * front matter of MDX pages and lessons), so `npm run launch:check` (scripts/launch-check.ts) reads
 * the same list without Astro. `sampleContent()` is the build's gate: `astro build` stops before
 * anything is written while the list is not empty, naming each item and what to do, unless the
 * build is the local stack's (LOCAL_STACK_BUILD=1, astro.config.ts) or a staging or preview build
 * that sets ALLOW_SAMPLE_CONTENT=1 (labels kept). Both are read from the process's environment
 * only, never from a .env file, so no file in a checkout can let samples into a deploy's build.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";
import { load } from "js-yaml";

/** One item marked sample: its file (from the project's root) and where in it. */
export interface SampleItem {
  /** e.g. content/testimonials/priya-raman.yaml */
  file: string;
  /** The field that holds `sample: true`, e.g. `site.contact`; empty for the file's whole entry. */
  field: string;
  /** What it is, to recognise it: a name, a label, or the fields it covers. */
  what: string;
}

/** The variable that lets a staging or preview build publish sample content, labelled. */
export const ALLOW_SAMPLE_CONTENT = "ALLOW_SAMPLE_CONTENT";

type Data = Record<string, unknown>;
const isRecord = (value: unknown): value is Data => !!value && typeof value === "object" && !Array.isArray(value);

/** The fields that name an entry, in the order tried. */
const NAMES = ["name", "author", "title", "label", "value"];

function describe(entry: Data): string {
  for (const key of NAMES) if (typeof entry[key] === "string" && entry[key]) return entry[key] as string;
  // No name: the values themselves (a contact's address and number, a cohort's days, a video's id).
  const shown = (value: unknown): string =>
    value instanceof Date
      ? value.toISOString().slice(0, 10)
      : Array.isArray(value)
        ? value.map(shown).join(", ")
        : String(value);
  return Object.entries(entry)
    .filter(([key]) => key !== "sample")
    .map(([key, value]) => `${key} ${shown(value)}`)
    .join("; ");
}

/** Every object under `value` marked `sample: true`, with its path (`a.b[2].c`). */
function marked(value: unknown, path: string, found: { field: string; what: string }[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => marked(item, `${path}[${i}]`, found));
    return;
  }
  if (!isRecord(value)) return;
  if (value.sample === true) found.push({ field: path, what: describe(value) });
  for (const [key, item] of Object.entries(value)) {
    if (key !== "sample") marked(item, path ? `${path}.${key}` : key, found);
  }
}

/** The front matter of an MDX or Markdown file, parsed; null without one. */
function frontMatter(text: string): unknown {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(text);
  return match ? load(match[1]!) : null;
}

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ya?ml|mdx?)$/.test(name)) yield path;
  }
}

/** Every item of `contentDir` marked `sample: true`, in file order; files named from `root`. */
export function findSamples(root: string, contentDir = join(root, "content")): SampleItem[] {
  const items: SampleItem[] = [];
  for (const path of files(contentDir)) {
    const text = readFileSync(path, "utf8");
    let data: unknown;
    try {
      data = /\.mdx?$/.test(path) ? frontMatter(text) : load(text);
    } catch {
      // A file that does not parse is the content schema's to report, naming it.
      continue;
    }
    const file = relative(root, path).split(sep).join("/");
    const found: { field: string; what: string }[] = [];
    marked(data, "", found);
    for (const item of found) items.push({ file, ...item });
  }
  return items;
}

/** One line per item: `content/site.yaml, site.contact: email, phone`. */
export function sampleLines(items: readonly SampleItem[]): string[] {
  return items.map(({ file, field, what }) => `${file}${field ? `, ${field}` : ""}: ${what}`);
}

/** Why the build stops, listing every item and what to do. */
export function refusal(items: readonly SampleItem[]): string {
  return [
    `This build would publish ${items.length} sample item${items.length === 1 ? "" : "s"}: content the business has not supplied or confirmed, marked \`sample: true\`.`,
    ...sampleLines(items).map((line) => `  - ${line}`),
    'Replace each with the real thing and delete its `sample: true` line, or delete the entry (a section with no entries is left out); docs/content-editing.md, "Sample content". `npm run launch:check` lists what else is left before launch.',
    `A staging or preview build may publish them, each labelled "Sample": run it with ${ALLOW_SAMPLE_CONTENT}=1.`,
  ].join("\n");
}

/** The build's gate (see the module's comment). */
export default function sampleContent(): AstroIntegration {
  return {
    name: "sample-content",
    hooks: {
      "astro:config:setup": ({ command, config }) => {
        if (command !== "build") return;
        if (process.env.LOCAL_STACK_BUILD === "1" || process.env[ALLOW_SAMPLE_CONTENT] === "1") return;
        const items = findSamples(fileURLToPath(config.root));
        if (items.length > 0) throw new Error(refusal(items));
      },
    },
  };
}
