/**
 * Lessons and pages cite no research the business has not done (docs/content-editing.md, "Sample
 * content"): no survey, study, intake interview or graduates' report is given as a finding. Where a
 * figure's research belongs is its `source`, shown as its footnote: the business's own survey once
 * it has one, or a sample the pages label "Sample" and the production build refuses
 * (src/integrations/sample-content.ts). Sources are left out here; the rest of the copy is read.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { contentDir } from "./content-files";

/** How research is cited as a finding. */
const CITED =
  /\b(intake interviews?|(?:our|a|an|the) (?:own )?(?:survey|study|research)(?! (?:group|meeting))|surveys? (?:of|show)|studies (?:show|find|found)|research (?:shows|finds|found)|graduates (?:report|reported|say|tell)|(?:members|clients) tell us)\b/i;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ya?ml|mdx?)$/.test(name)) yield path;
  }
}

/** Every string of `value`, leaving out the `source` of an entry marked sample. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (!value || typeof value !== "object") return [];
  const entry = value as Record<string, unknown>;
  return Object.entries(entry).flatMap(([key, item]) =>
    key === "source" && entry.sample === true ? [] : strings(item),
  );
}

/** The text of a content file a visitor or buyer reads: its data's strings, and an MDX file's body. */
function text(path: string): string[] {
  const raw = readFileSync(path, "utf8");
  if (!/\.mdx?$/.test(path)) return strings(load(raw));
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/.exec(raw);
  return match ? [...strings(load(match[1]!)), match[2]!] : [raw];
}

describe("research the business has not done", () => {
  it("is cited nowhere in the copy of content/ (lessons, pages, collections), figures' sources aside", () => {
    const found = [...files(contentDir)].flatMap((path) =>
      text(path).flatMap((t) => {
        const match = CITED.exec(t);
        return match ? [`${relative(contentDir, path)}: "${match[0]}"`] : [];
      }),
    );
    expect(found).toEqual([]);
  });

  it("would be caught: a finding from intake interviews, a survey or graduates' reports", () => {
    for (const sentence of [
      "In our intake interviews, a third of advisors name fear of rejection.",
      "A survey of 2023 graduates found a 300% increase.",
      "Our research shows that niches win.",
      "Graduates report twelve hours saved a week.",
    ]) {
      expect(CITED.test(sentence), sentence).toBe(true);
    }
    for (const advice of [
      "Study your A-tier households for what they share.",
      "Request a research meeting with each (30 minutes).",
      "Report your score to a study group each week.",
    ]) {
      expect(CITED.test(advice), advice).toBe(false);
    }
  });
});
